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
    public var hasLoadedRecords: Bool { withState { _ in deferredRecordCounts == nil } }

    /// Reads the records now if opening deferred them; does nothing otherwise.
    ///
    /// - Throws: what opening without deferral would have thrown for these files (``StorageError``
    ///   naming the file, line and problem), or ``StorageError/Code/closed``.
    public func loadRecords() throws {
        guard withState({ _ in deferredRecordCounts != nil || deferredLoadError != nil }) else { return }
        writerLock.lock()
        defer { writerLock.unlock() }
        try loadDeferredRecordsLocked()
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
    public func recordCounts() throws -> [String: Int] {
        if withState({ _ in deferredRecordCounts != nil }) && hasExternalChanges() {
            writerLock.lock()
            defer { writerLock.unlock() }
            if isClosed { throw StorageError(.closed, "the store is closed") }
            if let paths, withState({ _ in deferredRecordCounts != nil }) {
                if let lockFile { _ = try fs.lock(lockFile, exclusive: false, wait: true) }
                let peek = StoreLoader.peek(paths, configuration: configuration)
                unlockFile()
                if let peek {
                    install(peek.loaded)
                    withStateMutation { _ in deferredRecordCounts = peek.recordCounts }
                    try openJournal()
                } else {
                    try loadDeferredRecordsLocked()
                }
            }
        }
        if let error = withState({ _ in deferredLoadError }) { throw error }
        return withState { state in deferredRecordCounts ?? state.recordCounts }
    }

    /// Reads the deferred records. Caller holds the writer lock and no file lock.
    func loadDeferredRecordsLocked() throws {
        if let error = withState({ _ in deferredLoadError }) { throw error }
        guard withState({ _ in deferredRecordCounts != nil }), let paths else { return }
        if isClosed { throw StorageError(.closed, "the store is closed") }
        do {
            if let lockFile { _ = try fs.lock(lockFile, exclusive: false, wait: true) }
            defer { unlockFile() }
            let loaded = try StoreLoader.load(paths, configuration: configuration, includeHistoryFile: false, report: { throw $0 })
            install(loaded)
            withStateMutation { _ in
                openWarnings = loaded.warnings
                deferredRecordCounts = nil
            }
            try openJournal()
        } catch let error as StorageError {
            withStateMutation { _ in deferredLoadError = error }
            throw error
        }
    }

    /// Takes the state and file positions of a load (or a peek).
    func install(_ loaded: LoadedStore) {
        withStateMutation { state in
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
        }
    }
}
