/// What a store knows of a git merge whose files it still mends when it opens them
/// (``CrossFileReconciliation``, ``BaseJournalReplay``): found by the loader, then kept in the
/// store's read state.
struct MergeMend: Sendable {
    /// Whether the manifest asks for a mend that this writable store has not committed yet.
    var isPending = false
    /// The values a read-only store's mend, applied in memory only, did not keep.
    var lostInMemory: [MergeConflict] = []
    /// What that mend changed, as a sentence (also in the store's warnings).
    var note: String? = nil
    /// What the journal's compaction mark says of a merge base's journal both sides folded.
    var mergedBase: MergedBase? = nil
    /// The `history.jsonl` lines the replay of that journal reads.
    var baseHistory: [JournalTransaction] = []

    /// What a store keeps of a load's: the history lines only while a mend is pending.
    var kept: MergeMend {
        var kept = self
        if !isPending { kept.baseHistory = [] }
        return kept
    }

    /// Forgets what a committed mend needed.
    mutating func finish() {
        isPending = false
        baseHistory = []
    }
}
