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
            guard let record = try currentRecord(id, bases: bases, journal: journalTransactions, paths: paths) else { return nil }
            let scan = try HistoryFileScan.scan(for: id, in: paths, configuration: configuration)
            let history = HistoryPhase.combining(history: scan.transactions, journal: journalTransactions)
            let firstInJournal = journalTransactions.first { !$0.isCompactionMark }?.sequence
            let oldest = [scan.firstSequence, firstInJournal].compactMap { $0 }.min() ?? last + 1
            return RecordBlame(record: record, history: history, oldestRetainedSequence: oldest)
        }
    }

    /// Record `id` as the store holds it now: its snapshot line (of whichever entity has it), with the
    /// journal's later transactions applied; nil when neither holds it.
    private func currentRecord(_ id: Int64, bases: [String: UInt64], journal: [JournalTransaction], paths: StorePaths) throws -> StoredRecord? {
        var record: StoredRecord?
        var after: UInt64 = 0
        for (entity, base) in bases.sorted(by: { $0.key < $1.key }) {
            let search = SnapshotRecordSearch(path: paths.snapshot(entity), fileSystem: fs, maximumLineBytes: configuration.maximumLineBytes)
            if let values = try search.values(of: id) {
                record = StoredRecord(entity: entity, id: id, values: values)
                after = base
                break
            }
        }
        for transaction in journal where transaction.sequence > after && !transaction.isCompactionMark {
            if transaction.deleted.contains(where: { $0.id == id }) { record = nil }
            if let inserted = transaction.inserted.first(where: { $0.id == id }) { record = inserted }
            if let updated = transaction.updated.first(where: { $0.id == id }), var current = record, current.entity == updated.entity {
                current.values = current.values.merging(updated.values)
                record = current
            }
        }
        return record
    }
}
