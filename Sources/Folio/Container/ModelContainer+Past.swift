@_spi(FolioEngine) import FolioStorage
import Foundation

/// A container of a store as it was at a point of its history (``ModelConfiguration/historyToken``):
/// the store's files read once into a read-only store in memory, which nothing migrates or writes.
extension ModelContainer {
    /// The store in `configuration`'s directory as of `token`, read-only and in memory.
    ///
    /// - Throws: ``FolioError/Code/historyExpired`` when the files cannot give the store as of `token`
    ///   (too old for the retained history, after the last transaction, or another transaction than the
    ///   token's); the storage error otherwise (``ModelContainer/init(for:migrationPlan:configurations:)``
    ///   reports it as failing to open the store).
    static func openPast(
        _ configuration: ModelConfiguration, asOf token: DefaultHistoryToken,
        storeConfiguration: StoreConfiguration
    ) throws -> Store {
        do {
            return try Store.past(
                asOf: token.sequence, transactionID: token.journalIdentifier, at: configuration.url,
                configuration: storeConfiguration)
        } catch let error as StorageError where error.code == .historyExpired || error.code == .missingSequence {
            throw pastRefusal(error, configuration: configuration, token: token)
        }
    }

    /// Why the store cannot be opened as of `token`, in the model layer's words: how far back the store
    /// reaches and what bounds it.
    private static func pastRefusal(_ error: StorageError, configuration: ModelConfiguration, token: DefaultHistoryToken) -> FolioError {
        let path = configuration.url.path
        // Read again only now, to say how far the store reaches: opening stopped at the first problem.
        guard let reach = try? Store.historyReach(at: configuration.url, configuration: storeConfiguration(for: configuration)) else {
            return FolioError(.historyExpired, "The store at \(path) cannot be opened as of history token \(token)", underlying: error)
        }
        if token.sequence > reach.lastSequence {
            return FolioError(
                .historyExpired,
                """
                The store at \(path) cannot be opened as of history token \(token): its last transaction is \
                #\(reach.lastSequence). The token is from another store, or the store's files were replaced by \
                older ones (a git checkout or reset).
                """, underlying: error)
        }
        if token.sequence < reach.oldestSequence {
            return FolioError(
                .historyExpired,
                """
                The store at \(path) cannot be opened as of history token \(token): the oldest token it reaches \
                is #\(reach.oldestSequence) (its last is #\(reach.lastSequence)). Going back before the last \
                compaction undoes the transactions the compaction kept in the history, and a compaction keeps \
                only what the historyRetention of the configuration that wrote the store allows (this \
                configuration's keeps \(describe(configuration.historyRetention))); in a git work tree it keeps \
                every transaction it folds. Keep more history to reach further back.
                """, underlying: error)
        }
        return FolioError(
            .historyExpired,
            """
            The store at \(path) cannot be opened as of history token \(token): the token now names another \
            transaction. A merge (git) renumbered the store's history since it was taken, or the token is from \
            another store; take a token from this store's history again.
            """, underlying: error)
    }

    /// A retention policy in words: `at most 1000 transactions, 67108864 bytes, no age limit`.
    static func describe(_ retention: ModelConfiguration.HistoryRetention) -> String {
        let count = retention.maximumCount.map { "at most \($0) transactions" } ?? "any number of transactions"
        let bytes = retention.maximumBytes.map { "at most \($0) bytes" } ?? "any size"
        let age = retention.maximumAge.map { "at most \($0) seconds old" } ?? "of any age"
        return "\(count), \(bytes), \(age)"
    }

    /// The storage configuration that reads `configuration`'s store: its history retention, file system.
    private static func storeConfiguration(for configuration: ModelConfiguration) -> StoreConfiguration {
        var storeConfiguration = StoreConfiguration()
        storeConfiguration.historyRetention = configuration.historyRetention
        storeConfiguration.readOnly = true
        if let fileSystem = configuration.fileSystem { storeConfiguration.fileSystem = fileSystem }
        return storeConfiguration
    }

    /// Checks that the models match the schema the store had as of ``ModelConfiguration/historyToken``,
    /// and reads its records into the index. A container of the past migrates nothing, even in memory:
    /// its records are what the store held then.
    ///
    /// - Throws: ``FolioError/Code/schemaMismatch`` naming the store's schema version then and the
    ///   models'; what ``loadRecords()`` throws when the records do not match the models.
    func preparePast(description: JSONValue, token: DefaultHistoryToken) throws {
        do {
            try migrateStoreIfNeeded(to: description)
        } catch let error as FolioError where error.code == .migrationRequired || error.code == .schemaMismatch {
            let recorded = store.schema.flatMap { try? RecordedSchema(parsing: $0) }.map { $0.version ?? "none" } ?? "unreadable"
            let versions = recorded == "\(schema.version)" ? "" : " (the store's schema version then: \(recorded); the models': \(schema.version))"
            throw FolioError(
                .schemaMismatch,
                """
                The models do not match the schema of the store at \(configuration.url.path) as of history token \
                \(token)\(versions), and a container as of a history token does not migrate: open it with the \
                models the store had then.
                """, underlying: error)
        }
        try loadRecords()
    }
}
