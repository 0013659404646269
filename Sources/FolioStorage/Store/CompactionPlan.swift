/// What a compaction folds into the snapshots: the store as it stood at one sequence number, taken
/// under the writer lock. Preparing from a plan needs no lock, so that an automatic compaction can
/// write its files while the store goes on committing (see ``StoreConfiguration/compactsInBackground``).
struct CompactionPlan: Sendable {
    /// The state the snapshots will hold; its `lastSequence` is the compaction point.
    let state: StoreState
    /// The transactions retained in memory (oldest first, all at or before the compaction point).
    let retained: [JournalTransaction]
    /// Whether ``retained`` includes `history.jsonl`'s transactions. If not, preparing reads the file
    /// (it can be large: the writer that makes the plan does not wait for it).
    let historyFileLoaded: Bool
    /// When set, transactions up to and including this sequence leave the history
    /// (``Store/deleteHistory(through:)``).
    let historyFloor: UInt64?
    /// When set (a store in a git work tree), the history keeps every transaction from this sequence
    /// on, whatever the retention policy: those the compaction folds, which a git merge of two
    /// compacted copies replays (``BaseJournalReplay``).
    var keepsHistoryFrom: UInt64? = nil
    /// The header sequence of each snapshot file on disk when the plan was made.
    let snapshotBases: [String: UInt64]
    /// The conflicts their headers record, by entity.
    let snapshotConflicts: [String: [MergeConflict]]
    /// The journal the plan was taken from. A compaction installs only if it is still the store's
    /// journal: any other compaction (in any process) replaces it.
    let journalIdentity: FileStatus?
    /// Where the plan's transactions end in that journal: what follows was committed meanwhile and is
    /// carried over to the new journal.
    let journalEnd: Int64
    /// The number of complete lines up to ``journalEnd``.
    let journalLines: Int
    /// Where the inserted records are in the journal lines this process wrote, by sequence.
    let insertedSpans: [UInt64: InsertedRecordSpans]

    /// The transactions of `transactions` (the retained ones, with the history file's) that the new
    /// history file may keep, oldest first.
    func history(of transactions: [JournalTransaction]) -> [JournalTransaction] {
        guard let historyFloor else { return transactions }
        return transactions.filter { $0.sequence > historyFloor }
    }

    /// The compaction point.
    var sequence: UInt64 { state.lastSequence }
}

/// The files a compaction has written, synced, under temporary names, ready to be renamed into place.
struct PreparedCompaction: Sendable {
    /// The new snapshot file of each entity that changed since its snapshot was written.
    var snapshots: [(entity: String, temporary: String)] = []
    /// The new `history.jsonl`.
    var history: String? = nil
    /// The transactions the new history file holds.
    var kept: [JournalTransaction] = []
    /// The header sequence of each snapshot file once installed.
    var snapshotBases: [String: UInt64] = [:]
    /// The conflicts their headers record once installed, by entity.
    var snapshotConflicts: [String: [MergeConflict]] = [:]
    /// Entities with no records left: their snapshot files are removed once the manifest is written.
    var emptied: [String] = []
    /// The first line of the new journal: the mark of the plan's last transaction (nil when it is not
    /// known, and the journal then starts with the lines after the plan).
    var mark: JournalTransaction? = nil

    /// Removes the temporary files that are still there (when the compaction is abandoned or failed).
    func discard(_ fs: any FileSystem) {
        for snapshot in snapshots { try? fs.unlink(snapshot.temporary) }
        if let history { try? fs.unlink(history) }
    }
}
