import Foundation

extension Store {
    /// The sequence number of the oldest transaction still readable through ``history(after:)``, or
    /// `lastSequence + 1` when none is.
    public var oldestRetainedSequence: UInt64 {
        try? loadHistoryFileIfNeeded()
        return withState { state in retained.first?.sequence ?? (state.lastSequence + 1) }
    }

    /// Deletes the persistent history up to and including `sequence`, keeping the records themselves.
    ///
    /// The store is compacted first, so that no transaction lingers in the journal; then the history
    /// file is rewritten without the deleted transactions (temporary file, sync, rename, sync directory).
    /// A reader asking for history older than what remains gets ``StorageError/Code/historyExpired``.
    public func deleteHistory(through sequence: UInt64) throws {
        writerLock.lock()
        defer { writerLock.unlock() }
        try checkWritable()
        guard let paths else {
            withStateMutation { _ in retained.removeAll { $0.sequence <= sequence } }
            return
        }
        try lockExclusive()
        defer { unlockFile() }
        _ = try catchUp()
        try compactLocked()
        try loadHistoryFileIfNeeded()
        let kept = withState { _ in retained.filter { $0.sequence > sequence } }
        var bytes: [UInt8] = []
        for transaction in kept { bytes.append(contentsOf: try transaction.encodedLine()) }
        try fs.replaceFile(at: paths.history, with: bytes)
        withStateMutation { _ in retained = kept }
    }
}
