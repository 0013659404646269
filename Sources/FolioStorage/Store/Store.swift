import Dispatch
import Foundation
import Synchronization

/// A Folio store: records kept in a directory of JSON-lines files, or in memory.
///
/// Reads are served from memory. ``write(author:_:)`` takes the cross-process writer lock, catches up
/// with what other processes appended, runs your changes, appends one journal line, syncs it according
/// to ``StoreConfiguration/durability`` and applies it. ``refresh()`` catches up without writing.
/// Once the journal has grown as large as what a compaction rewrites (the snapshots, and the retained
/// history up to the snapshots' size), a write starts a compaction, which by default
/// runs on a background thread (``StoreConfiguration/compactsInBackground``).
///
/// A `Store` is safe to use from several threads. Inside a `write` body, read through the
/// ``WriteTransaction``: the writer lock is not recursive, so `write`, `refresh`, `compact`, `sync`,
/// `deleteHistory` and `waitForBackgroundCompaction` called there throw
/// ``StorageError/Code/reentrantCall`` naming the call, and `close` takes effect when the write returns.
public final class Store: Sendable {
    /// The store directory, or `nil` for an in-memory store.
    public let directory: URL?
    /// The configuration the store was opened with.
    public let configuration: StoreConfiguration

    let paths: StorePaths?
    let fs: any FileSystem
    /// What readers see: records, history and journal position, changed together.
    /// A `LockedState`, not a `Mutex`: the change monitor's thread and the app's contend for it, and
    /// ThreadSanitizer does not see a contended `Mutex` order accesses on Linux (docs/concurrency.md).
    let readState: LockedState<StoreReadState>
    /// The journal and lock files. Holding it serialises writes, refreshes, compactions, syncs and
    /// closing within this process (the lock file serialises them between processes).
    let writer: NonReentrantMutex<JournalWriter>
    /// The automatic compaction running in the background, if any.
    let compactions = BackgroundCompactions()
    /// The snapshot caches being written in the background (see ``refreshSnapshotCaches(after:)``).
    package let cacheBuilds = SnapshotCacheBuilds()
    /// Set by ``close()`` called inside a write body on the writer's thread; that write closes the store
    /// once it has released the writer lock.
    let closesAfterWrite = Atomic<Bool>(false)

    /// Where an in-memory store reads the blobs it does not hold: the directory of the store it copies
    /// (see ``stagingCopy(of:)``); nil otherwise.
    let blobFallbackDirectory: String?

    init(
        directory: URL?, configuration: StoreConfiguration, loaded: LoadedStore, deferredRecordCounts: [String: Int]? = nil,
        blobFallbackDirectory: String? = nil
    ) {
        self.blobFallbackDirectory = blobFallbackDirectory
        self.directory = directory
        self.configuration = configuration
        self.paths = directory.map { StorePaths(directory: $0.path) }
        self.fs = configuration.fileSystem
        var read = StoreReadState(loaded, historyFileLoaded: directory == nil)
        read.deferredRecordCounts = deferredRecordCounts
        self.readState = LockedState(read)
        self.writer = NonReentrantMutex(
            JournalWriter(),
            advice:
                "Do not call write, refresh, compact, sync, deleteHistory or waitForBackgroundCompaction from inside a Store.write body: read through the WriteTransaction it is given, and write again after it returns."
        )
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
                return Store(directory: directory, configuration: configuration, loaded: peek.loaded, deferredRecordCounts: peek.recordCounts)
            }
            let loaded = try StoreLoader.load(paths, configuration: configuration, includeHistoryFile: false, report: { throw $0 })
            let store = Store(directory: directory, configuration: configuration, loaded: loaded)
            store.refreshSnapshotCaches()
            return store
        }
        guard let lockFile else {
            let store = try load()
            try store.writer.withLock("Store.open(at:configuration:)") { try store.openJournal(&$0) }
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
            try store.writer.withLock("Store.open(at:configuration:)") { journal in
                try store.openJournal(&journal)
                // Git merged two compacted copies: mend what spans their files before anything reads.
                try store.reconcileMergeLocked(&journal)
                // Only now: until the store owns the lock file, a failure closes it here, once.
                journal.lockFile = lockFile
                store.startBatchTimer(&journal)
            }
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
    ///
    /// Called inside a ``write(author:_:)`` body, it takes effect when that write returns, committed or not.
    public func close() {
        if writer.isHeldByCurrentThread {
            closesAfterWrite.store(true, ordering: .relaxed)
            return
        }
        compactions.cancelAndWait()
        writer.withLock("Store.close()") { $0.close(fs) }
        cacheBuilds.closeAndWait()
    }

    /// Runs `body` holding the writer lock. Called on a thread that already holds it (from inside a
    /// write body), throws ``StorageError/Code/reentrantCall`` naming `operation` instead of deadlocking.
    func withWriter<Result>(
        _ operation: @autoclosure () -> String, _ body: (inout sending JournalWriter) throws -> sending Result
    ) throws -> sending Result {
        try writer.withLock(operation(), reentrancyError: { StorageError(.reentrantCall, $0) }, body)
    }

    // MARK: Reading

    /// Warnings from opening: for example a torn last journal line that was ignored, or records a git
    /// merge kept for a migration's custom stage (``recordsAwaitingStage()``).
    public var warnings: [String] {
        loadRecordsIfDeferred()
        return withReadState { read in
            read.warnings + [Self.awaitingStageWarning(Self.awaitingStage(in: read.retained))].compactMap { $0 }
        }
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

    /// The records as they are now, with the sequence of the last transaction they include: a version
    /// that later writes and refreshes do not change (see ``StoreRecords``).
    package var currentRecords: StoreRecords {
        loadRecordsIfDeferred()
        return withState { $0.version }
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

    /// The highest counter of the store's identifiers: every identifier in use is below it. With
    /// sequential allocation it is the next identifier ``WriteTransaction/allocateID()`` returns; a store
    /// that allocates per clone counts in a block of its own (see ``StoreConfiguration/IdentifierAllocation``).
    public var nextID: Int64 { withState { $0.nextID } }

    /// The next identifier a write of a store with ``StoreConfiguration/fixedIdentifierBlock`` (a
    /// migration's staging copy) allocates.
    package var nextAllocatedID: Int64 {
        withState { state in configuration.fixedIdentifierBlock.map { state.counters.next(in: $0) } ?? state.nextID }
    }

    /// Transactions after `sequence`, oldest first, from the retained history and the journal.
    ///
    /// - Throws: ``StorageError/Code/historyExpired`` if compaction already dropped some of them
    ///   (see ``StoreConfiguration/historyRetention``).
    public func history(after sequence: UInt64) throws -> [JournalTransaction] {
        try loadRecords()
        try loadHistoryFileIfNeeded()
        return try withReadState { read in
            let available = read.oldestRetainedSequence
            // Not `sequence + 1 < available`, which overflows for a caller's `UInt64.max`.
            if available > 0, sequence < available - 1 {
                throw StorageError(
                    .historyExpired,
                    "history after sequence \(sequence) was compacted away; the oldest retained transaction is \(available). Refetch everything instead."
                )
            }
            return read.retained.filter { $0.sequence > sequence }
        }
    }

    /// Reads a blob by its hash.
    ///
    /// - Throws: ``StorageError/Code/blobNotFound`` if the hash is malformed or the blob missing or damaged.
    public func blob(_ hash: String) throws -> Data {
        guard let paths else {
            if let data = withReadState({ $0.memoryBlobs[hash] }) { return data }
            if let blobFallbackDirectory { return try BlobStore.read(hash, directory: blobFallbackDirectory, fileSystem: fs) }
            throw StorageError(.blobNotFound, "no blob \(hash) in this in-memory store")
        }
        return try BlobStore.read(hash, directory: paths.directory, fileSystem: fs)
    }

    /// Reads `history.jsonl` into the retained history on first use.
    func loadHistoryFileIfNeeded() throws {
        guard let paths else { return }
        try withReadState { read in
            guard !read.historyFileLoaded else { return }
            read.retained = try HistoryPhase.merging(read.retained, withHistoryFileIn: paths, configuration: configuration)
            read.historyFileLoaded = true
        }
    }

    /// Calls `body` with the current state, holding the read mutex.
    func withState<T, E: Error>(_ body: (StoreState) throws(E) -> T) throws(E) -> T {
        try readState.withLock { (read: inout StoreReadState) throws(E) -> T in try body(read.state) }
    }

    /// Calls `body` with everything readers see, holding the read mutex: what it changes, readers see
    /// all at once.
    func withReadState<T, E: Error>(_ body: (inout StoreReadState) throws(E) -> T) throws(E) -> T {
        try readState.withLock { (read: inout StoreReadState) throws(E) -> T in try body(&read) }
    }

    // MARK: Journal file

    /// Opens the journal file, if there is one, and records its identity.
    func openJournal(_ journal: inout JournalWriter) throws {
        guard let paths else { return }
        if let file = journal.journalFile { fs.close(file) }
        journal.journalFile = nil
        withReadState { $0.journalIdentity = nil }
        guard try fs.status(atPath: paths.journal) != nil else { return }
        let file = try fs.open(paths.journal, configuration.readOnly ? .read : .readWriteCreate)
        journal.journalFile = file
        let identity = try fs.status(file)
        withReadState { $0.journalIdentity = identity }
    }

    /// Whether another process has changed the journal since this store last read it.
    package func hasExternalChanges() -> Bool {
        let current = paths.flatMap { (try? fs.status(atPath: $0.journal)) ?? nil }
        return withReadState { $0.journalChanged(current: current) }
    }
}
