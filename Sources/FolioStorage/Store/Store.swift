import Dispatch
import Foundation

/// A Folio store: records kept in a directory of JSON-lines files, or in memory.
///
/// Reads are served from memory. ``write(author:_:)`` takes the cross-process writer lock, catches up
/// with what other processes appended, runs your changes, appends one journal line, syncs it according
/// to ``StoreConfiguration/durability`` and applies it. ``refresh()`` catches up without writing.
/// Once the journal has grown as large as what a compaction rewrites (the snapshots, and the retained
/// history up to the snapshots' size), a write starts a compaction, which by default
/// runs on a background thread (``StoreConfiguration/compactsInBackground``).
///
/// A `Store` is safe to use from several threads. Do not call `write`, `refresh`, `compact`, `sync`
/// or `waitForBackgroundCompaction` from inside a `write` body (they wait for the write to finish);
/// read through the ``WriteTransaction`` instead.
// Sendable: the mutable state is changed only under `stateLock` and the writer lock (see below).
public final class Store: @unchecked Sendable {
    /// The store directory, or `nil` for an in-memory store.
    public let directory: URL?
    /// The configuration the store was opened with.
    public let configuration: StoreConfiguration

    let paths: StorePaths?
    let fs: any FileSystem
    /// Protects the mutable state below.
    let stateLock = NSLock()
    /// Serialises writes, refreshes and compactions within this process.
    let writerLock = NSLock()

    var state: StoreState
    /// Retained transactions: the journal's, plus `history.jsonl`'s once ``historyFileLoaded``.
    var retained: [JournalTransaction]
    /// Whether `history.jsonl` has been read into ``retained`` (it is read on first use: it can be large).
    var historyFileLoaded: Bool
    /// Where the inserted records are in the journal lines this process wrote since the last compaction,
    /// by sequence: the next compaction copies them from there (see ``JournalRecordCopies``).
    var insertedSpans: [UInt64: InsertedRecordSpans] = [:]
    var journalFile: FileDescriptor?
    var journalIdentity: FileStatus?
    var journalEnd: Int64 = 0
    var journalLines = 0
    var tailLength: Int64 = 0
    var snapshotBases: [String: UInt64]
    var lockFile: FileDescriptor?
    var poisonError: StorageError?
    var unsyncedWrites = false
    var openWarnings: [String]
    var memoryBlobs: [String: Data] = [:]
    var batchTimer: (any DispatchSourceTimer)?
    /// Identifiers reserved by ``reserveIDs(_:)`` and not yet inserted.
    var reservedIDs: Set<Int64> = []
    var isClosed = false
    /// The buffer journal lines are encoded into, kept between writes (used under the writer lock).
    var lineBuffer: [UInt8] = []
    /// Each entity's record count while the records are not read yet (see
    /// ``StoreConfiguration/defersLoadingRecords``); `nil` once they are.
    var deferredRecordCounts: [String: Int]?
    /// Why reading the deferred records failed; thrown again by every later call that needs them.
    var deferredLoadError: StorageError?
    /// Whether an automatic compaction is being prepared or installed in the background.
    var backgroundCompactionRunning = false
    /// Set by ``close()`` to make a background compaction stop writing and give up.
    var backgroundCompactionCancelled = false
    /// A background compaction whose files are written, waiting for the writer lock to be installed:
    /// by the next write (which holds the lock anyway), or by its own thread, whichever comes first.
    var pendingCompaction: (prepared: PreparedCompaction, plan: CompactionPlan)?
    /// Tests only: called on a background compaction's thread once its files are ready, before it
    /// waits for the writer lock.
    var backgroundCompactionWillLock: (@Sendable () -> Void)?
    /// Entered while a background compaction runs (``waitForBackgroundCompaction()``).
    let backgroundCompactions = DispatchGroup()

    private init(directory: URL?, configuration: StoreConfiguration, loaded: LoadedStore) {
        self.directory = directory
        self.configuration = configuration
        self.paths = directory.map { StorePaths(directory: $0.path) }
        self.fs = configuration.fileSystem
        self.state = loaded.state
        self.retained = loaded.history
        self.historyFileLoaded = directory == nil
        self.journalEnd = loaded.journalValidEnd
        self.journalLines = loaded.journalLines
        self.tailLength = loaded.tailLength
        self.snapshotBases = loaded.snapshotBases
        self.openWarnings = loaded.warnings
    }

    /// Opens (creating if needed) the store in `directory`.
    ///
    /// - Throws: ``StorageError`` naming the file, line and problem if the store is damaged, was written
    ///   by a newer Folio, or holds records of an entity not in ``StoreConfiguration/knownEntities``.
    ///   Nothing is modified when opening fails.
    public static func open(at directory: URL, configuration: StoreConfiguration = StoreConfiguration()) throws -> Store {
        let fs = configuration.fileSystem
        let paths = StorePaths(directory: directory.path)
        var lockFile: FileDescriptor? = nil
        if !configuration.readOnly, try fs.status(atPath: paths.directory) == nil {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try fs.syncDirectory(PosixFileSystem.directory(of: paths.directory))
        }
        // Before any file is opened, even the lock file: nothing outside the store is ever touched.
        try StoreFileSafety.check(paths, fileSystem: fs)
        if !configuration.readOnly {
            lockFile = try fs.open(paths.lock, .readWriteCreate)
        } else if try fs.status(atPath: paths.lock) != nil {
            lockFile = try? fs.open(paths.lock, .read)
        }
        func load() throws -> Store {
            if configuration.defersLoadingRecords, let peek = StoreLoader.peek(paths, configuration: configuration) {
                let store = Store(directory: directory, configuration: configuration, loaded: peek.loaded)
                store.deferredRecordCounts = peek.recordCounts
                return store
            }
            let loaded = try StoreLoader.load(paths, configuration: configuration, includeHistoryFile: false, report: { throw $0 })
            return Store(directory: directory, configuration: configuration, loaded: loaded)
        }
        guard let lockFile else {
            let store = try load()
            try store.openJournal()
            return store
        }
        do {
            _ = try fs.lock(lockFile, exclusive: !configuration.readOnly, wait: true)
            defer { fs.unlock(lockFile) }
            if !configuration.readOnly, try fs.status(atPath: paths.manifest) == nil {
                let names = try fs.contentsOfDirectory(paths.directory)
                if !names.contains(where: { ["journal.jsonl", "history.jsonl", "snapshots"].contains($0) }) {
                    try fs.replaceFile(at: paths.manifest, with: try Manifest().encoded())
                }
            }
            let store = try load()
            store.lockFile = lockFile
            try store.openJournal()
            store.startBatchTimer()
            return store
        } catch {
            fs.close(lockFile)
            throw error
        }
    }

    /// Opens an empty store kept only in memory: the same API, no files, nothing survives the process.
    public static func inMemory(configuration: StoreConfiguration = StoreConfiguration()) -> Store {
        Store(directory: nil, configuration: configuration, loaded: LoadedStore())
    }

    deinit {
        close()
    }

    /// Syncs unsynced writes (under ``StoreConfiguration/Durability/batched(_:)``) and releases files.
    /// A compaction being prepared in the background is given up (its temporary files removed); one
    /// whose files are ready is installed first. Further calls throw ``StorageError/Code/closed``.
    public func close() {
        cancelBackgroundCompaction()
        writerLock.lock()
        defer { writerLock.unlock() }
        if isClosed { return }
        batchTimer?.cancel()
        batchTimer = nil
        if unsyncedWrites, let journalFile, poisonError == nil { try? fs.sync(journalFile) }
        unsyncedWrites = false
        if let journalFile { fs.close(journalFile) }
        if let lockFile { fs.close(lockFile) }
        journalFile = nil
        lockFile = nil
        isClosed = true
    }

    // MARK: Reading

    /// Warnings from opening: for example a torn last journal line that was ignored.
    public var warnings: [String] {
        loadRecordsIfDeferred()
        return withState { _ in openWarnings }
    }

    /// The record with this identifier, whatever its entity.
    public func record(id: Int64) -> StoredRecord? {
        loadRecordsIfDeferred()
        return withState { $0.record(id: id) }
    }

    /// The records of an entity, in identifier order.
    public func records(of entity: String) -> [StoredRecord] {
        loadRecordsIfDeferred()
        return withState { state in
            let records = state.records(of: entity)
            var result: [StoredRecord] = []
            result.reserveCapacity(records.count)
            records.forEach { id, values in result.append(StoredRecord(entity: entity, id: id, values: values)) }
            return result
        }
    }

    /// Calls `body` with every record, whatever its entity, in identifier order: the fast way to read a
    /// whole store. Writes by other threads wait until it returns.
    public func forEachRecord(_ body: (_ id: Int64, _ entity: String, _ values: RecordValues) throws -> Void) rethrows {
        loadRecordsIfDeferred()
        try withState { try $0.forEachRecord(body) }
    }

    /// The number of records of an entity.
    public func count(of entity: String) -> Int {
        loadRecordsIfDeferred()
        return withState { $0.count(of: entity) }
    }

    /// The number of records, all entities together.
    public var recordCount: Int {
        loadRecordsIfDeferred()
        return withState { $0.records.count }
    }

    /// The names of the entities that have records, sorted.
    public var entityNames: [String] {
        loadRecordsIfDeferred()
        return withState { $0.entitiesWithRecords }
    }

    /// The sequence number of the last transaction applied (0 for an empty store).
    public var lastSequence: UInt64 { withState { $0.lastSequence } }

    /// The store's opaque metadata slot (the model layer's schema description).
    public var schema: JSONValue? { withState { $0.schema } }

    /// The next identifier ``WriteTransaction/allocateID()`` would return.
    public var nextID: Int64 { withState { $0.nextID } }

    /// Transactions after `sequence`, oldest first, from the retained history and the journal.
    ///
    /// - Throws: ``StorageError/Code/historyExpired`` if compaction already dropped some of them
    ///   (see ``StoreConfiguration/historyRetention``).
    public func history(after sequence: UInt64) throws -> [JournalTransaction] {
        try loadRecords()
        try loadHistoryFileIfNeeded()
        return try withState { _ in
            let available = retained.first?.sequence ?? (state.lastSequence + 1)
            if sequence + 1 < available {
                throw StorageError(
                    .historyExpired,
                    "history after sequence \(sequence) was compacted away; the oldest retained transaction is \(available). Refetch everything instead.")
            }
            return retained.filter { $0.sequence > sequence }
        }
    }

    /// Reads a blob by its hash.
    ///
    /// - Throws: ``StorageError/Code/blobNotFound`` if the hash is malformed or the blob missing or damaged.
    public func blob(_ hash: String) throws -> Data {
        guard let paths else {
            if let data = withState({ _ in memoryBlobs[hash] }) { return data }
            throw StorageError(.blobNotFound, "no blob \(hash) in this in-memory store")
        }
        return try BlobStore.read(hash, directory: paths.directory, fileSystem: fs)
    }

    /// Reads `history.jsonl` into ``retained`` on first use.
    func loadHistoryFileIfNeeded() throws {
        stateLock.lock()
        defer { stateLock.unlock() }
        guard !historyFileLoaded, let paths else { return }
        retained = try StoreLoader.merging(retained, withHistoryFileIn: paths, configuration: configuration)
        historyFileLoaded = true
    }

    func withState<T>(_ body: (StoreState) throws -> T) rethrows -> T {
        stateLock.lock()
        defer { stateLock.unlock() }
        return try body(state)
    }

    // MARK: Journal file

    func openJournal() throws {
        guard let paths else { return }
        if let journalFile { fs.close(journalFile) }
        journalFile = nil
        withStateMutation { _ in journalIdentity = nil }
        guard try fs.status(atPath: paths.journal) != nil else { return }
        let file = try fs.open(paths.journal, configuration.readOnly ? .read : .readWriteCreate)
        journalFile = file
        let identity = try fs.status(file)
        withStateMutation { _ in journalIdentity = identity }
    }

    /// Whether another process has changed the journal since this store last read it.
    public func hasExternalChanges() -> Bool {
        guard let paths, let current = try? fs.status(atPath: paths.journal) else {
            return withState { _ in journalIdentity != nil }
        }
        return withState { _ in
            guard let known = journalIdentity else { return true }
            return known.inode != current.inode || known.device != current.device || current.size != journalEnd + tailLength
        }
    }
}
