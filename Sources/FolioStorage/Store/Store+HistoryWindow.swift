import Foundation

extension Store {
    /// The sequence number of the oldest transaction still readable through ``history(after:)``, or
    /// `lastSequence + 1` when none is.
    public var oldestRetainedSequence: UInt64 {
        loadRecordsIfDeferred()
        try? loadHistoryFileIfNeeded()
        return withState { state in retained.first?.sequence ?? (state.lastSequence + 1) }
    }

    /// Deletes the persistent history up to and including `sequence`, keeping the records themselves.
    ///
    /// The store is compacted, so that no transaction lingers in the journal, and the compaction writes
    /// the history file without the deleted transactions (temporary file, sync, rename, sync directory);
    /// what remains is also bounded by ``StoreConfiguration/historyRetention``.
    /// A reader asking for history older than what remains gets ``StorageError/Code/historyExpired``.
    public func deleteHistory(through sequence: UInt64) throws {
        waitForBackgroundCompaction()
        writerLock.lock()
        defer { writerLock.unlock() }
        try checkWritable()
        try loadDeferredRecordsLocked()
        guard paths != nil else {
            withStateMutation { _ in retained.removeAll { $0.sequence <= sequence } }
            return
        }
        try lockExclusive()
        defer { unlockFile() }
        _ = try catchUp()
        try compactLocked(droppingHistoryThrough: sequence)
    }
}
