import Foundation

extension Store {
    /// The sequence number of the oldest transaction still readable through ``history(after:)``, or
    /// `lastSequence + 1` when none is.
    public var oldestRetainedSequence: UInt64 {
        loadRecordsIfDeferred()
        try? loadHistoryFileIfNeeded()
        return withReadState { $0.oldestRetainedSequence }
    }

    /// The identifier of transaction `sequence` when the retained history holds it; nil otherwise (compacted
    /// away, or after the last transaction).
    package func retainedTransactionID(at sequence: UInt64) throws -> String? {
        try loadRecords()
        try loadHistoryFileIfNeeded()
        return withReadState { read in
            // The retained transactions are consecutive, oldest first.
            guard let first = read.retained.first?.sequence, sequence >= first else { return nil }
            let offset = sequence - first
            guard offset < UInt64(read.retained.count) else { return nil }
            let transaction = read.retained[Int(offset)]
            return transaction.sequence == sequence ? transaction.transactionID : nil
        }
    }

    /// Deletes the persistent history up to and including `sequence`, keeping the records themselves.
    ///
    /// The store is compacted, so that no transaction lingers in the journal, and the compaction writes
    /// the history file without the deleted transactions (temporary file, sync, rename, sync directory);
    /// what remains is also bounded by ``StoreConfiguration/historyRetention``.
    /// A reader asking for history older than what remains gets ``StorageError/Code/historyExpired``.
    public func deleteHistory(through sequence: UInt64) throws {
        try waitForBackgroundCompaction(before: "Store.deleteHistory(through:)")
        try withWriter("Store.deleteHistory(through:)") { journal in
            try journal.checkWritable(readOnly: configuration.readOnly)
            try loadDeferredRecordsLocked(&journal)
            guard paths != nil else {
                withReadState { read in read.retained.removeAll { $0.sequence <= sequence } }
                return
            }
            try journal.takeFileLock(fs, exclusive: true)
            defer { journal.releaseFileLock(fs) }
            _ = try catchUp(&journal)
            try compactLocked(&journal, droppingHistoryThrough: sequence)
        }
    }
}
