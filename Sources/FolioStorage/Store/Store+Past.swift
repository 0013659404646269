import Foundation

/// How far back in its history a store's files can be read (see ``Store/past(asOf:transactionID:at:configuration:)``).
package struct HistoryReach: Sendable, Hashable {
    /// The oldest sequence the store can be rebuilt at: the compaction point, minus what the retained
    /// history can roll back (0 when it reaches the store's beginning).
    package let oldestSequence: UInt64
    /// The store's last transaction (0 for an empty store).
    package let lastSequence: UInt64
}

extension Store {
    /// A read-only store in memory holding the store in `directory` as it was after transaction
    /// `sequence`, built from its files without writing anything. Like a read-only open, it holds the
    /// store's lock file shared while it reads, so that no compaction replaces the files meanwhile.
    ///
    /// The copy's ``lastSequence`` is `sequence`; its ``history(after:)`` returns the retained
    /// transactions up to and including `sequence`, as far back as the files hold them
    /// (``oldestRetainedSequence``); its blobs are read from `directory`. Its writes, compactions and
    /// history deletions throw ``StorageError/Code/readOnly``; ``refresh()`` finds nothing new.
    ///
    /// - Parameters:
    ///   - sequence: The transaction the copy ends with; 0 for the empty store before the first.
    ///   - transactionID: The ``JournalTransaction/transactionID`` the caller knows transaction
    ///     `sequence` by, if any. When the retained history holds that transaction under another
    ///     identifier (a git merge renumbered the history since, or the caller's sequence is another
    ///     store's), the store refuses rather than open another point of history. A transaction the
    ///     history no longer holds cannot be checked.
    ///   - directory: The store's directory.
    ///   - configuration: How to read the files; ``StoreConfiguration/readOnly`` is implied.
    /// - Throws: ``StorageError/Code/historyExpired`` when `sequence` is older than the retained
    ///   history reaches (``historyReach(at:configuration:)`` says how far it does), or when transaction
    ///   `sequence` is not `transactionID`; ``StorageError/Code/missingSequence`` when the store has
    ///   not reached `sequence`; what opening throws for damaged files.
    package static func past(
        asOf sequence: UInt64, transactionID: String? = nil, at directory: URL, configuration: StoreConfiguration = StoreConfiguration()
    ) throws -> Store {
        let paths = StorePaths(directory: directory.path)
        let source = try readingShared(paths, configuration) { try StoreLoader.past(asOf: sequence, paths, configuration: configuration) }
        if let transactionID, let found = source.history.last(where: { $0.sequence == sequence }), found.transactionID != transactionID {
            throw StorageError(
                .historyExpired,
                "transaction \(sequence) of the store is \(found.transactionID), not \(transactionID): the store's history was renumbered since (a git merge numbers each side's transactions on from their merge base), or the sequence is another store's",
                file: paths.journal)
        }
        var loaded = LoadedStore()
        loaded.state = source.state
        loaded.history = source.history
        return Store(directory: nil, configuration: pastConfiguration(configuration), loaded: loaded, blobFallbackDirectory: paths.directory)
    }

    /// How far back ``past(asOf:transactionID:at:configuration:)`` can go in the store in `directory`,
    /// and its last transaction; `(0, 0)` for a directory that holds no store yet.
    ///
    /// - Throws: what opening throws for damaged files.
    package static func historyReach(at directory: URL, configuration: StoreConfiguration = StoreConfiguration()) throws -> HistoryReach {
        let paths = StorePaths(directory: directory.path)
        let reach = try readingShared(paths, configuration) { try StoreLoader.reach(paths, configuration: configuration) }
        return HistoryReach(oldestSequence: reach.oldest, lastSequence: reach.last)
    }

    /// Runs `body` holding the store's lock file shared, when there is one, as a read-only open does: a
    /// compaction in another process, which replaces files, waits until the files are read. Opens or
    /// creates nothing else.
    static func readingShared<T>(_ paths: StorePaths, _ configuration: StoreConfiguration, _ body: () throws -> T) throws -> T {
        let fs = configuration.fileSystem
        try StoreFileSafety.check(paths, fileSystem: fs)
        guard try fs.status(atPath: paths.lock) != nil, let lockFile = try? fs.open(paths.lock, .read) else { return try body() }
        defer { fs.close(lockFile) }
        _ = try fs.lock(lockFile, exclusive: false, wait: true)
        defer { fs.unlock(lockFile) }
        return try body()
    }

    /// The configuration of a store of the past: read-only, in memory, never compacting, with its
    /// records at hand from the start.
    private static func pastConfiguration(_ configuration: StoreConfiguration) -> StoreConfiguration {
        var past = configuration
        past.readOnly = true
        past.compactionThreshold = nil
        past.defersLoadingRecords = false
        past.cachedMembers = [:]
        past.knownEntities = nil
        return past
    }
}
