import Foundation

/// What readers of a ``Store`` see, kept in the store's read mutex and changed only inside it: the
/// records, the retained history and where the journal ends, so that no reader sees records ahead of
/// or behind the journal position and history that go with them.
struct StoreReadState: Sendable {
    /// The records, sequence, identifier counter and schema.
    var state: StoreState
    /// Retained transactions: the journal's, plus `history.jsonl`'s once ``historyFileLoaded``.
    var retained: [JournalTransaction]
    /// Whether `history.jsonl` has been read into ``retained`` (it is read on first use: it can be large).
    var historyFileLoaded: Bool
    /// Where the inserted records are in the journal lines this process wrote since the last compaction,
    /// by sequence: the next compaction copies them from there (see ``JournalRecordCopies``).
    var insertedSpans: [UInt64: InsertedRecordSpans] = [:]
    /// The journal file's identity when this store last read or created it; `nil` when none is known.
    var journalIdentity: FileStatus?
    /// Offset after the last complete journal line this store knows of.
    var journalEnd: Int64
    /// Complete lines in the journal up to ``journalEnd``.
    var journalLines: Int
    /// Bytes after ``journalEnd`` that are no complete line (a torn append).
    var tailLength: Int64
    /// The header sequence of each snapshot file on disk.
    var snapshotBases: [String: UInt64]
    /// The conflicts snapshot headers record, by entity.
    var snapshotConflicts: [String: [MergeConflict]]
    /// The manifest's `sequence`: the base of an entity without a snapshot file.
    var manifestSequence: UInt64
    /// What the last reload of files replaced under this store (see ``Store/lastReload``) brought.
    var lastReload = Store.Reload()
    /// Warnings from opening and from automatic compactions (``Store/warnings``).
    var warnings: [String]
    /// The blobs of an in-memory store, by hash.
    var memoryBlobs: [String: Data] = [:]
    /// Identifiers reserved by ``Store/reserveIDs(_:)`` and not yet inserted.
    var reservedIDs: Set<Int64> = []
    /// Each entity's record count while the records are not read yet (see
    /// ``StoreConfiguration/defersLoadingRecords``); `nil` once they are.
    var deferredRecordCounts: [String: Int]?
    /// Why reading the deferred records failed; thrown again by every later call that needs them.
    var deferredLoadError: StorageError?

    /// The size of each snapshot file when the records were read, by entity.
    var snapshotSizes: [String: Int64] = [:]
    /// What the files need mended after a git merge, and what a read-only store mended in memory.
    var mend = MergeMend()

    init(_ loaded: LoadedStore, historyFileLoaded: Bool) {
        state = loaded.state
        retained = loaded.history
        self.historyFileLoaded = historyFileLoaded
        journalEnd = loaded.journalValidEnd
        journalLines = loaded.journalLines
        tailLength = loaded.tailLength
        snapshotBases = loaded.snapshotBases
        snapshotConflicts = loaded.snapshotConflicts
        manifestSequence = loaded.manifest.sequence
        warnings = loaded.warnings
        snapshotSizes = loaded.snapshotSizes
        mend = loaded.mend.kept
    }

    /// Takes the state and file positions of a load (or a peek).
    mutating func install(_ loaded: LoadedStore) {
        state = loaded.state
        retained = loaded.history
        // Lines folded by another process's compaction are no longer in the journal to copy from.
        let firstInJournal = loaded.history.first?.sequence ?? .max
        insertedSpans = insertedSpans.filter { $0.key >= firstInJournal }
        historyFileLoaded = false
        journalEnd = loaded.journalValidEnd
        journalLines = loaded.journalLines
        tailLength = loaded.tailLength
        snapshotBases = loaded.snapshotBases
        snapshotConflicts = loaded.snapshotConflicts
        manifestSequence = loaded.manifest.sequence
        snapshotSizes = loaded.snapshotSizes
        mend = loaded.mend.kept
        if let note = loaded.mend.note, !warnings.contains(note) { warnings.append(note) }
    }

    /// Whether the journal file now at the journal's path, `current`, is not the one this state was read from.
    func journalChanged(current: FileStatus?) -> Bool {
        guard let current else { return journalIdentity != nil }
        guard let known = journalIdentity else { return true }
        return known.inode != current.inode || known.device != current.device || current.size != journalEnd + tailLength
    }

    /// Whether `plan` can still be installed: its journal is still the store's (no compaction, here or
    /// in another process, replaced it since) and still holds the plan's transactions.
    func isCurrent(_ plan: CompactionPlan) -> Bool {
        guard let known = journalIdentity, let planned = plan.journalIdentity else { return false }
        return known.inode == planned.inode && known.device == planned.device && journalEnd >= plan.journalEnd
    }

    /// The sequence of the oldest retained transaction, or `lastSequence + 1` when none is.
    var oldestRetainedSequence: UInt64 { retained.first?.sequence ?? (state.lastSequence + 1) }
}
