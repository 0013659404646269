/// What loading a store directory produced.
struct LoadedStore {
    var state = StoreState()
    var manifest = Manifest()
    /// Retained history and journal transactions, ascending and contiguous.
    var history: [JournalTransaction] = []
    /// The journal's identity when it was read (nil: no journal file yet).
    var journalStatus: FileStatus? = nil
    /// Offset after the last complete journal line.
    var journalValidEnd: Int64 = 0
    /// Complete lines in the journal.
    var journalLines = 0
    /// Bytes after the last complete journal line (a torn append).
    var tailLength: Int64 = 0
    /// Warnings to surface (torn tails ignored, ...).
    var warnings: [String] = []
    /// The header sequence of each snapshot file on disk.
    var snapshotBases: [String: UInt64] = [:]
    /// The conflicts snapshot headers record (see ``SnapshotFile/Header/conflicts``), by entity.
    var snapshotConflicts: [String: [MergeConflict]] = [:]
    /// The size of each snapshot file read, by entity.
    var snapshotSizes: [String: Int64] = [:]
    /// What the files need mended after a git merge, and what a read-only load mended in memory.
    var mend = MergeMend()

    /// Takes where the journal phase left the journal file, its warnings and its compaction mark's merge base.
    mutating func take(_ journal: JournalPhase) {
        journalStatus = journal.status
        journalValidEnd = journal.validEnd
        journalLines = journal.lineCount
        tailLength = journal.tailLength
        warnings += journal.warnings
        mend.mergedBase = journal.mergedBase
    }
}
