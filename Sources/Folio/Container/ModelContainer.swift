@_spi(FolioEngine) import FolioStorage
import Synchronization

/// The object that owns a store and its schema, and hands out contexts to work with models.
///
/// ```swift
/// let container = try ModelContainer(for: Recipe.self, Ingredient.self,
///                                    configurations: ModelConfiguration(url: storeDirectory))
/// let context = ModelContext(container)
/// ```
///
/// A container keeps an in-memory index of every record of its store, shared by its contexts, and keeps
/// it in step with saves made through any of its contexts and, on their next fetch, with saves made by
/// other processes writing the same store. One container uses one configuration (one store).
///
/// Opening a container reads only the store's manifest, snapshot headers and journal when the store
/// was last written with the same schema: the records are read into the index by the first fetch or
/// save that needs them (or by ``loadRecords()``). Counting every model of a type
/// (`fetchCount(FetchDescriptor<Trip>())`) does not need them. A store written with another schema is
/// read and checked at once, so that a mismatch is reported by the initializer.
public final class ModelContainer: Sendable {
    /// The schema of the container's models: those it was created for and the models they refer to,
    /// and subclasses of them that they do not list, added when a context first inserts or fetches a
    /// model of one, or when the store holds records of one (see `docs/swiftdata-compatibility.md`).
    ///
    /// Adding a subclass replaces the schema with a new one; a schema read earlier stays as it was.
    public var schema: Schema { schemaState.withLock { $0.schema } }
    /// The configurations the container was made with.
    public let configurations: [ModelConfiguration]
    /// The configuration of the store in use.
    public let configuration: ModelConfiguration
    /// The migration plan the container was made with, if any; opening the container ran its stages
    /// (see `docs/migration.md`).
    public let migrationPlan: (any SchemaMigrationPlan.Type)?

    let store: Store
    /// The schema, its description and its generation, replaced together (see ``SchemaState``).
    let schemaState: Mutex<SchemaState>
    /// The generation of the schema in ``schemaState``, published after it: what a reader checks to
    /// know, without a lock, whether what it worked out from the schema is still current.
    let schemaGeneration = Atomic<Int>(0)
    /// Whether the index indexes `#Index` declarations (not for a migration's staging copy).
    let indexesDeclaredIndices: Bool
    /// Whether loading checks the records against the schema; not for a migration's staging copy, whose
    /// records the stage's `didMigrate` is still filling in (the migration checks them before it commits).
    let checksLoadedRecords: Bool
    /// Held to read or change the index and to save; not recursive. It owns the index and what the
    /// container knows of the store (see ``ContainerState``).
    let lock: ContainerLock
    /// Read and set on the main actor only, so that a save or fetch holding ``lock`` may reach it.
    @MainActor private var mainContextStorage: ModelContext?
    /// The change hub, made on first use. Its own lock, not ``lock``: observers are made and dropped by
    /// the app's code, which may run while a save holds ``lock``.
    let changeHubStorage = LockedState<StoreChangeHub?>(nil)
    /// How soon a change saved by another process reaches this container's observers, at most: its
    /// configuration's ``ModelConfiguration/changeNotificationLatency``, fixed when the container is made.
    public var changeNotificationLatency: TimeInterval { configuration.changeNotificationLatency }
    /// What identifies the store in persistent identifiers: its standardized path, or a unique name for
    /// a store in memory.
    var storeIdentifier: String { storeIdentity.identifier }
    /// ``storeIdentifier``, as the backing data of this container's models refer to it.
    let storeIdentity: StoreIdentity
    /// The schema as this container records it in the store (see `SchemaDescription`).
    var schemaDescription: JSONValue { schemaState.withLock { $0.description } }
    /// Whether the index holds the store's records (see ``loadRecords()``). For tests: it takes the lock.
    var isIndexLoaded: Bool { lock.withLock("ModelContainer.isIndexLoaded") { $0.isIndexLoaded } }

    /// Creates a container for some model classes (and the models they refer to).
    public convenience init(for forTypes: any PersistentModel.Type..., configurations: ModelConfiguration...) throws {
        try self.init(for: Schema(forTypes), configurations: configurations)
    }

    /// Creates a container for some model classes (and the models they refer to).
    public convenience init(
        for forTypes: any PersistentModel.Type..., migrationPlan: (any SchemaMigrationPlan.Type)?,
        configurations: ModelConfiguration...
    ) throws {
        try self.init(for: Schema(forTypes), migrationPlan: migrationPlan, configurations: configurations)
    }

    /// Creates a container for a schema.
    public convenience init(for givenSchema: Schema, configurations: ModelConfiguration...) throws {
        try self.init(for: givenSchema, configurations: configurations)
    }

    /// Creates a container for a schema.
    public convenience init(
        for givenSchema: Schema, migrationPlan: (any SchemaMigrationPlan.Type)?,
        configurations: ModelConfiguration...
    ) throws {
        try self.init(for: givenSchema, migrationPlan: migrationPlan, configurations: configurations)
    }

    /// Creates a container for a schema.
    ///
    /// A container keeps one store: pass at most one configuration (none uses the default one).
    ///
    /// A store written by another version of the models is migrated first, in one transaction: step by
    /// step from the store's version to the version the models match, each step a stage of
    /// `migrationPlan` where one leaves that version (up or down) and otherwise the changes Folio infers
    /// to the next version; without a plan, by the changes Folio infers (see `docs/migration.md`).
    ///
    /// - Throws: ``FolioError`` with ``FolioError/Code/invalidSchema`` when the models cannot make a
    ///   schema, several configurations are given or the plan cannot be used;
    ///   ``FolioError/Code/migrationRequired`` naming entity, property and types when the store needs a
    ///   change Folio cannot infer; ``FolioError/Code/schemaMismatch`` when the plan does not know the
    ///   store's version or the store's records do not match the schema; ``FolioError/Code/storage``
    ///   when the store cannot be opened. The store is left unchanged.
    public init(
        for givenSchema: Schema, migrationPlan: (any SchemaMigrationPlan.Type)? = nil,
        configurations: [ModelConfiguration]
    ) throws {
        guard givenSchema.problems.isEmpty else {
            throw FolioError(.invalidSchema, "The models cannot be stored:\n  " + givenSchema.problems.joined(separator: "\n  "))
        }
        if let problem = ModelContainer.configurationProblem(configurations) {
            throw FolioError(.invalidSchema, problem)
        }
        let configuration = configurations.first ?? ModelConfiguration()
        self.migrationPlan = migrationPlan
        self.configurations = [configuration]
        self.configuration = configuration

        var storeConfiguration = StoreConfiguration()
        storeConfiguration.durability = configuration.durability
        storeConfiguration.compactionThreshold = configuration.compactionThreshold
        storeConfiguration.historyRetention = configuration.historyRetention
        // No list of known entities: a store may hold records of an entity the models removed, which the
        // migration deletes; any other unknown entity is refused by the check of the loaded records.
        storeConfiguration.readOnly = !configuration.allowsSave
        storeConfiguration.defersLoadingRecords = true
        storeConfiguration.cachedMembers = ModelContainer.cachedMembers(of: givenSchema)
        if let fileSystem = configuration.fileSystem { storeConfiguration.fileSystem = fileSystem }

        do {
            if configuration.isStoredInMemoryOnly {
                self.store = Store.inMemory(configuration: storeConfiguration)
            } else if let source = configuration.gitSource {
                self.store = try Self.openStore(at: source, url: configuration.url, configuration: storeConfiguration)
            } else if let token = configuration.historyToken {
                self.store = try Self.openPast(configuration, asOf: token, storeConfiguration: storeConfiguration)
            } else {
                try FileManager.default.createDirectory(at: configuration.url, withIntermediateDirectories: true)
                self.store = try Store.open(at: configuration.url, configuration: storeConfiguration)
            }
        } catch let error as StorageError where error.code == .unknownEntity {
            throw FolioError(
                .schemaMismatch, "The store at \(configuration.url.path) holds records of an entity the schema does not know", underlying: error)
        } catch let error as FolioError {
            throw error
        } catch {
            throw FolioError(.storage, "The store at \(configuration.url.path) could not be opened", underlying: error)
        }
        self.storeIdentity = StoreIdentity(
            configuration.isStoredInMemoryOnly ? "memory:\(UUID().uuidString)" : configuration.url.standardizedFileURL.path)
        // Subclasses the models do not list, whose records the store holds, belong to the schema.
        let schema = Self.schema(givenSchema, adoptingUnlistedIn: store.schema)
        self.lock = ContainerLock(ContainerState(index: RecordIndex(schema: schema)))
        self.indexesDeclaredIndices = true
        self.checksLoadedRecords = true
        let description = SchemaDescription.make(schema)
        self.schemaState = Mutex(SchemaState(schema: schema, description: description))
        // Records written with this very schema need no check before they are used: read them when a
        // fetch or save first needs them. Any other store is read and checked now.
        if !store.hasLoadedRecords && store.schema == description {
            try carryRecordsAwaitingStage(description)
            return
        }
        if let token = configuration.historyToken { try preparePast(description: description, token: token); return }
        try migrateStoreUnlessReadFromGit(to: description)
        try loadRecords()
        if configuration.allowsSave {
            try recordSchema(description, storeName: "The store at \(configuration.url.path)")
        }
        // Records a git merge kept for the plan's custom stage (see `ModelContainer+AwaitingStage.swift`).
        try carryRecordsAwaitingStage(description)
    }

    /// A container over `store`, an in-memory staging copy (``Store/stagingCopy(of:)``) on which a
    /// migration's custom stage runs its code with `schema`'s models. It migrates nothing itself.
    init(stagingSchema schema: Schema, store: Store) throws {
        guard schema.problems.isEmpty else {
            throw FolioError(.invalidSchema, "The models cannot be stored:\n  " + schema.problems.joined(separator: "\n  "))
        }
        let configuration = ModelConfiguration(isStoredInMemoryOnly: true)
        self.migrationPlan = nil
        self.configurations = [configuration]
        self.configuration = configuration
        self.store = store
        self.storeIdentity = StoreIdentity("memory:\(UUID().uuidString)")
        self.lock = ContainerLock(ContainerState(index: RecordIndex(schema: schema, indexingDeclaredIndices: false)))
        self.indexesDeclaredIndices = false
        let description = SchemaDescription.make(schema)
        self.schemaState = Mutex(SchemaState(schema: schema, description: description))
        self.checksLoadedRecords = false
        try loadRecords()
        try recordSchema(description, storeName: "The migration's staging copy")
    }

    /// The members whose snapshot caches let a new process answer its first lookup without reading every
    /// record: each entity's `#Index`ed `String` attributes of one property (an equality on one of those
    /// is what `ModelContext.fetch` answers from the cache).
    static func cachedMembers(of schema: Schema) -> [String: [String]] {
        var members: [String: [String]] = [:]
        for entity in schema.entities {
            let indexed = Set(entity.indices.filter { $0.count == 1 }.compactMap(\.first)).filter { name in
                guard let type = entity.attributesByName[name]?.valueType else { return false }
                return type == String.self || type == String?.self
            }
            if !indexed.isEmpty { members[entity.name] = indexed.sorted() }
        }
        return members
    }

    /// Writes `description` into the store's schema slot if it holds something else.
    private func recordSchema(_ description: JSONValue, storeName: String) throws {
        guard store.schema != description else { return }
        do {
            let written = try store.write(author: nil) { transaction in transaction.setSchema(description) }
            try syncIndex(committed: written.map { [$0] } ?? [])
        } catch {
            throw FolioError(.storage, "\(storeName) could not record its schema", underlying: error)
        }
    }

    /// Refuses a save once another process migrated the store away from this container's schema.
    func checkNotMigratedElsewhere(_ state: ContainerState) throws {
        guard let version = state.migratedElsewhere else { return }
        throw FolioError(
            .schemaMismatch,
            """
            The store at \(configuration.url.path) was migrated to schema \(version) by another process while \
            this container had it open with schema \(schema.version); its models no longer match the records, \
            so it does not save. Open a new container with the current models.
            """)
    }

    /// Why `configurations` cannot make one container, if they cannot: SwiftData spreads several
    /// configurations' models over several stores, and Folio keeps one store per container.
    static func configurationProblem(_ configurations: [ModelConfiguration]) -> String? {
        let distinct = configurations.reduce(into: [ModelConfiguration]()) { kept, configuration in
            if !kept.contains(configuration) { kept.append(configuration) }
        }
        guard distinct.count > 1 else { return nil }
        let names = distinct.map { "'\($0.name)'" }.joined(separator: ", ")
        return
            "A Folio container keeps one store, but \(distinct.count) configurations were given (\(names)); create one ModelContainer per configuration, each for the models of that configuration's schema"
    }

    /// The context bound to the main actor, with autosave on, and with an undo manager when the
    /// configuration's ``ModelConfiguration/isUndoEnabled`` is set.
    @MainActor
    public var mainContext: ModelContext {
        if let context = mainContextStorage { return context }
        let context = ModelContext(self)
        context.autosaveEnabled = true
        if configuration.isUndoEnabled { context.undoManager = UndoManager() }
        mainContextStorage = context
        return context
    }

    /// Deletes every model from the store, in one transaction.
    public func deleteAllData() {
        try? erase()
    }

    /// Deletes every model from the store, in one transaction; observers hear of it as of a save.
    public func erase() throws {
        try eraseRecords()
        // After the lock is released, as a save does: observers may fetch.
        changeHub.publish()
    }

    private func eraseRecords() throws {
        try lock.withLock(refusingReentry: "ModelContainer.erase()") { state in
            let written: JournalTransaction?
            do {
                written = try store.write(author: nil) { transaction in
                    for entity in schema.entities {
                        for record in transaction.records(of: entity.name) {
                            try transaction.delete(entity: record.entity, id: record.id)
                        }
                    }
                }
            } catch {
                throw FolioError(.storage, "The store could not be erased", underlying: error)
            }
            try syncIndex(in: &state, committed: written.map { [$0] } ?? [])
        }
    }

    /// Compacts the store now: rewrites the snapshots, empties the journal and applies the history
    /// retention policy. Stores also compact by themselves, in the background, past
    /// ``ModelConfiguration/compactionThreshold``; this waits for such a compaction first.
    public func compact() throws {
        try lock.withLock(refusingReentry: "ModelContainer.compact()") { state in
            do {
                try store.compact()
            } catch {
                throw FolioError(.storage, "The store could not be compacted", underlying: error)
            }
            try syncIndex(in: &state)
        }
    }

    /// The identifier of the store of the configuration named `name`.
    public func storeIdentifier(forConfigurationNamed name: String) -> String? {
        name == configuration.name ? storeIdentifier : nil
    }

    /// Reads the store's records into the index now, if opening did not: what the first fetch or save
    /// would otherwise do. A server calls it at startup, so that its first request does not wait for it.
    ///
    /// - Throws: ``FolioError`` with ``FolioError/Code/storage`` naming the file and line when the store
    ///   cannot be read, or ``FolioError/Code/schemaMismatch`` naming the entity and property when its
    ///   records do not match the schema. Each later call that needs the records throws it again.
    public func loadRecords() throws {
        try lock.withLock(refusingReentry: "ModelContainer.loadRecords()") { state in try loadRecords(in: &state) }
    }

    /// ``loadRecords()`` for a caller that holds ``lock``.
    func loadRecords(in state: inout ContainerState) throws {
        if state.isIndexLoaded { return }
        do {
            try store.loadRecords()
        } catch let error as StorageError where error.code == .unknownEntity {
            throw FolioError(
                .schemaMismatch, "The store at \(configuration.url.path) holds records of an entity the schema does not know", underlying: error)
        } catch {
            throw FolioError(.storage, "The store at \(configuration.url.path) could not be read", underlying: error)
        }
        // Records another container wrote of subclasses it added to the store's schema are this
        // container's too.
        adoptUnlistedEntities(recordedIn: store.schema)
        state.indexedReload = store.lastReload.number
        let index = currentIndex(in: &state)
        index.load(store.currentRecords)
        if checksLoadedRecords {
            try SchemaCheck.verify(index: index, schema: schema, storeDescription: configuration.url.path)
        }
        state.isIndexLoaded = true
    }

    /// The index as it stands, empty until ``loadRecords()``: first waits for a save's changes still
    /// being applied to it on another thread, if any (see ``ConcurrentIndexApplication``), and builds it
    /// again for a schema that subclasses were added to since.
    func currentIndex(in state: inout ContainerState) -> RecordIndex {
        state.finishIndexing()
        if schemaGeneration.load(ordering: .acquiring) != state.indexedSchemaGeneration { reindexForNewSchema(&state) }
        return state.indexStorage
    }

    /// The index, its records read first if they were not yet (see ``loadRecords()``). Takes ``lock``;
    /// ``index(in:)`` is for its holders.
    var index: RecordIndex {
        get throws {
            try lock.withLock(refusingReentry: "ModelContainer.index") { state in try index(in: &state) }
        }
    }

    /// ``index`` for a caller that holds ``lock``.
    func index(in state: inout ContainerState) throws -> RecordIndex {
        try loadRecords(in: &state)
        return currentIndex(in: &state)
    }

    /// Each entity's number of models, from the store's files while the records are not read yet; `nil`
    /// once they are (the index then answers).
    func recordCountsWithoutLoading(_ state: ContainerState) throws -> [String: Int]? {
        if state.isIndexLoaded { return nil }
        do {
            let counts = try store.recordCounts()
            return store.hasLoadedRecords ? nil : counts
        } catch {
            throw FolioError(.storage, "The store at \(configuration.url.path) could not be read", underlying: error)
        }
    }

    /// Brings the index up to the store's current records: with `committed` (a transaction this
    /// process just wrote) and, when `fromDisk` is set, with what other processes appended since. When
    /// the transactions in between are not all known (another process wrote just before this one), they
    /// come from the retained history; when that no longer holds them, or one of them is a migration,
    /// the index is built again for the current records. Takes ``lock``;
    /// ``syncIndex(in:fromDisk:committed:)`` is for its holders.
    ///
    /// - Throws: ``FolioError/Code/storage`` when the store cannot read what other processes appended;
    ///   the index then still describes the records it described before, and the store is unchanged.
    func syncIndex(fromDisk: Bool = false, committed: [JournalTransaction] = []) throws {
        // Reached from the app's code that a save or fetch runs (a `rollback()` in a value's encoding):
        // that holder brings the index in step itself.
        if lock.isHeldByCurrentThread { return }
        try lock.withLock("ModelContainer.syncIndex") { state in try syncIndex(in: &state, fromDisk: fromDisk, committed: committed) }
    }

    /// ``syncIndex(fromDisk:committed:)`` for a caller that holds ``lock``.
    func syncIndex(in state: inout ContainerState, fromDisk: Bool = false, committed: [JournalTransaction] = []) throws {
        // An index not loaded yet has nothing to bring up to date: loading reads the latest records.
        guard state.isIndexLoaded else { return }
        let index = currentIndex(in: &state)
        var known = committed
        if fromDisk, store.hasExternalChanges() {
            do {
                known += try store.refresh()
            } catch {
                throw FolioError(.storage, "The store at \(configuration.url.path) could not be read", underlying: error)
            }
            adoptUnlistedEntities(recordedIn: store.schema)
        }
        let current = store.currentRecords
        let reload = store.lastReload
        if reload.number != state.indexedReload {
            // Files replaced under the store (a git merge renumbers transactions, a checkout goes back):
            // sequences no longer say what the index lacks.
            state.indexedReload = reload.number
            index.rebuild(from: current)
            noteMigrationElsewhere(if: reload.arrived.contains { !$0.migrations.isEmpty }, in: &state)
            return
        }
        guard current.lastSequence != index.lastSequence else { return }
        var between = Self.transactions(in: known, after: index.lastSequence, through: current.lastSequence)
        if between == nil {
            between = Self.transactions(
                in: (try? store.history(after: index.lastSequence)) ?? [],
                after: index.lastSequence, through: current.lastSequence)
        }
        if let between, between.allSatisfy({ $0.migrations.isEmpty }) {
            index.advance(to: current, applying: between)
            return
        }
        index.rebuild(from: current)
        noteMigrationElsewhere(if: between?.contains(where: { !$0.migrations.isEmpty }) == true, in: &state)
    }

    /// After a migration by another process, this container's models no longer describe the records:
    /// notes the schema it migrated to.
    private func noteMigrationElsewhere(if migrated: Bool, in state: inout ContainerState) {
        guard migrated, let recorded = store.schema, recorded != schemaDescription else { return }
        state.migratedElsewhere = (try? RecordedSchema(parsing: recorded))?.version ?? "another schema"
    }

    /// The transactions of `candidates` after `sequence` up to `last`, if they are all there, in order.
    private static func transactions(
        in candidates: [JournalTransaction], after sequence: UInt64,
        through last: UInt64
    ) -> [JournalTransaction]? {
        // A store whose files went back to an older state (a checkout of old files) has no way forward.
        guard last > sequence else { return nil }
        let wanted = candidates.filter { $0.sequence > sequence && $0.sequence <= last }
        guard UInt64(wanted.count) == last - sequence else { return nil }
        for (offset, transaction) in wanted.enumerated() where transaction.sequence != sequence + UInt64(offset) + 1 { return nil }
        return wanted
    }
}
