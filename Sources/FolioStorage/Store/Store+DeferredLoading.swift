/// Reading the records later than at open (``StoreConfiguration/defersLoadingRecords``).
///
/// A store opened this way has read its manifest, snapshot headers and journal: it knows its
/// sequence, schema, identifier counter and each entity's record count, but holds no record. The first
/// call that needs records (a read, a write, a refresh, a compaction, history) reads them, under a
/// shared file lock, exactly as opening would have. If that fails, the error is thrown by that call
/// and every later one that needs records (reopen the store once the problem is fixed); the calls
/// that cannot throw see no records.
extension Store {
    /// Whether the records are in memory: always, except after opening with
    /// ``StoreConfiguration/defersLoadingRecords`` until something needed them.
    package var hasLoadedRecords: Bool { withReadState { $0.deferredRecordCounts == nil } }

    /// Reads the records now if opening deferred them; does nothing otherwise.
    ///
    /// - Throws: what opening without deferral would have thrown for these files (``StorageError``
    ///   naming the file, line and problem), or ``StorageError/Code/closed``.
    package func loadRecords() throws {
        guard withReadState({ $0.deferredRecordCounts != nil || $0.deferredLoadError != nil }) else { return }
        try withWriter("Store.loadRecords()") { try loadDeferredRecordsLocked(&$0) }
    }

    /// ``loadRecords()`` for the calls that cannot throw: after a failure they see no records.
    func loadRecordsIfDeferred() {
        try? loadRecords()
    }

    /// Each entity's number of records (entities that have records), without reading the records.
    ///
    /// While the records are deferred, the counts come from the snapshot headers and the journal, read
    /// again when another process changed the store since; once the records are loaded, from memory.
    /// When the files cannot be counted that way the records are loaded.
    ///
    /// - Throws: what ``loadRecords()`` throws, when it had to load them.
    package func recordCounts() throws -> [String: Int] {
        if withReadState({ $0.deferredRecordCounts != nil }) && hasExternalChanges() {
            try withWriter("Store.recordCounts()") { journal in
                try journal.checkOpen()
                try peekAgainIfChangedLocked(&journal)
            }
        }
        return try withReadState { read in
            if let error = read.deferredLoadError { throw error }
            return read.deferredRecordCounts ?? read.state.recordCounts
        }
    }

    /// Reads the deferred records. Caller holds the writer lock and no file lock.
    func loadDeferredRecordsLocked(_ journal: inout JournalWriter) throws {
        let (failure, deferred) = withReadState { ($0.deferredLoadError, $0.deferredRecordCounts != nil) }
        if let failure { throw failure }
        guard deferred, let paths else { return }
        try journal.checkOpen()
        do {
            try journal.takeFileLock(fs, exclusive: false)
            defer { journal.releaseFileLock(fs) }
            let loaded = try StoreLoader.load(paths, configuration: configuration, includeHistoryFile: false, report: { throw $0 })
            withReadState { read in
                read.install(loaded)
                read.warnings = loaded.warnings
                read.deferredRecordCounts = nil
            }
            try openJournal(&journal)
            refreshSnapshotCaches()
        } catch let error as StorageError {
            withReadState { $0.deferredLoadError = error }
            throw error
        }
        // A failure to commit the mend of a git merge leaves the records readable: not a load error.
        _ = try reconcileMergeIfPending(&journal)
    }
}
