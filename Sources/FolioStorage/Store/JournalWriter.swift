import Dispatch

/// The writer's side of a store: the journal file it appends to, the cross-process lock file and what
/// it knows of their condition. It lives in the store's writer mutex, so that only one write, refresh,
/// compaction, sync or close at a time can reach it.
struct JournalWriter {
    /// The open journal, or `nil` while there is none (an empty store, or after a failed compaction).
    var journalFile: FileDescriptor?
    /// The store's `lock` file, `nil` for an in-memory store or one opened read-only without it.
    var lockFile: FileDescriptor?
    /// Why the store refuses writes until reopened: a failed fsync, or a journal of unknown length.
    var poisonError: StorageError?
    /// Whether appends wait for a batched fsync (``StoreConfiguration/Durability/batched(_:)``).
    var unsyncedWrites = false
    /// Set by ``Store/close()``.
    var isClosed = false
    /// The buffer journal lines are encoded into, kept between writes.
    var lineBuffer: [UInt8] = []
    /// Whether this store allocates identifiers in a block of its own (decided at the first write).
    var allocatesPerClone: Bool? = nil
    /// The block it allocates in, once read or drawn (see ``IdentifierBlockFile``).
    var identifierBlock: Int64? = nil
    /// The git work tree the store is in: nil until first looked up, then `.some(nil)` outside one.
    var gitWorkTree: GitWorkTree?? = nil
    /// A git index lock that outlasted ``StoreConfiguration/gitLockWait``: left behind by a killed git, not
    /// waited for again.
    var abandonedGitLock: FileStatus? = nil
    /// Syncs batched writes on a timer.
    var batchTimer: (any DispatchSourceTimer)?

    /// Throws why the store cannot be written now, if it cannot.
    func checkWritable(readOnly: Bool) throws {
        if isClosed { throw StorageError(.closed, "the store is closed") }
        if readOnly { throw StorageError(.readOnly, "the store was opened read-only") }
        if let poisonError {
            throw StorageError(
                .storePoisoned,
                "an earlier write failed (\(poisonError.message)); reopen the store to continue from what is on disk",
                file: poisonError.file, errno: poisonError.errno)
        }
    }

    /// Throws ``StorageError/Code/closed`` once the store is closed.
    func checkOpen() throws {
        if isClosed { throw StorageError(.closed, "the store is closed") }
    }

    /// Takes the cross-process lock, exclusive for writers, shared for readers.
    func takeFileLock(_ fs: any FileSystem, exclusive: Bool) throws {
        if let lockFile { _ = try fs.lock(lockFile, exclusive: exclusive, wait: true) }
    }

    /// Releases the cross-process lock.
    func releaseFileLock(_ fs: any FileSystem) {
        if let lockFile { fs.unlock(lockFile) }
    }

    /// Writes `line` at `end` of the open journal and syncs it as `durability` says. A failed write is
    /// truncated away; a failed truncation or fsync poisons the store.
    mutating func append(_ line: [UInt8], at end: Int64, fs: any FileSystem, durability: StoreConfiguration.Durability) throws {
        guard let journalFile else { return }
        do {
            try fs.writeAll(journalFile, line, at: end)
        } catch {
            do {
                try fs.truncate(journalFile, to: end)
            } catch let truncateError as StorageError {
                poisonError = truncateError
            }
            throw error
        }
        switch durability {
        case .always:
            do { try fs.sync(journalFile) } catch let error as StorageError {
                poisonError = error
                throw error
            }
        case .batched:
            unsyncedWrites = true
        case .none:
            break
        }
    }

    /// Syncs appends a batched durability left unsynced; a failure poisons the store.
    mutating func syncBatched(_ fs: any FileSystem) throws {
        if let poisonError { throw poisonError }
        guard unsyncedWrites, let journalFile else { return }
        do {
            try fs.sync(journalFile)
            unsyncedWrites = false
        } catch let error as StorageError {
            poisonError = error
            throw error
        }
    }

    /// Syncs, cancels the timer and closes the files; the store is closed from then on.
    mutating func close(_ fs: any FileSystem) {
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
}
