extension Store {
    /// ``blame(id:)`` for a store whose records are not read yet (``StoreConfiguration/defersLoadingRecords``):
    /// the lines of `history.jsonl` that can matter to the record (``HistoryFileScan``), the journal that
    /// opening read, and the record's line of its entity's snapshot (``SnapshotRecordSearch``) with the
    /// journal laid over it. Nil when the store cannot answer this way (its records are read, or the
    /// record is not found: the full reading then says why).
    ///
    /// - Complexity: O(bytes of `history.jsonl`) searched, O(log *n*) snapshot lines read.
    func blameWithoutLoading(id: Int64) throws -> RecordBlame? {
        guard let paths, withReadState({ $0.deferredRecordCounts != nil && !$0.historyFileLoaded }) else { return nil }
        return try withWriter("Store.blame(id:)") { journal -> RecordBlame? in
            try journal.checkOpen()
            try peekAgainIfChangedLocked(&journal)
            let (deferred, bases, journalTransactions, last) = withReadState { read in
                (read.deferredRecordCounts != nil && !read.historyFileLoaded, read.snapshotBases, read.retained, read.state.lastSequence)
            }
            guard deferred else { return nil }
            try journal.takeFileLock(fs, exclusive: false)
            defer { journal.releaseFileLock(fs) }
            guard let record = try CurrentRecord.find(id, bases: bases, journal: journalTransactions, paths: paths, configuration: configuration)
            else { return nil }
            let scan = try HistoryFileScan.scan(for: id, in: paths, configuration: configuration)
            let history = HistoryPhase.combining(history: scan.transactions, journal: journalTransactions)
            let firstInJournal = journalTransactions.first { !$0.isCompactionMark }?.sequence
            let oldest = [scan.firstSequence, firstInJournal].compactMap { $0 }.min() ?? last + 1
            return RecordBlame(record: record, history: history, oldestRetainedSequence: oldest)
        }
    }
}
