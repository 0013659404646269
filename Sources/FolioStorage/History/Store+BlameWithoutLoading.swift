extension Store {
    /// ``blame(id:)`` for a store whose records are not read yet (``StoreConfiguration/defersLoadingRecords``):
    /// the record read from the files as ``RecordBlameFiles`` reads it, holding the writer lock (a call
    /// from inside a write is refused, not deadlocked) and the store's file lock shared. Nil when the
    /// store cannot answer this way (its records are read, or the record is not found: the full reading
    /// then says why).
    ///
    /// - Complexity: O(bytes of the journal and `history.jsonl`) searched, O(log *n*) snapshot lines read.
    func blameWithoutLoading(id: Int64) throws -> RecordBlame? {
        guard let paths, withReadState({ $0.deferredRecordCounts != nil && !$0.historyFileLoaded }) else { return nil }
        return try withWriter("Store.blame(id:)") { journal -> RecordBlame? in
            try journal.checkOpen()
            try journal.takeFileLock(fs, exclusive: false)
            defer { journal.releaseFileLock(fs) }
            return try RecordBlameFiles.blame(of: id, in: paths, configuration: configuration)
        }
    }
}
