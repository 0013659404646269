@_spi(FolioEngine) import FolioStorage

/// The object that tracks models, their unsaved changes, and saves them to its container's store.
///
/// Use a context from one thread (or actor) at a time. Each context holds at most one instance per
/// stored record: fetching the same record twice returns the same object. Several contexts of one
/// container, and containers in other processes on the same store, see each other's saved changes
/// on their next fetch.
public final class ModelContext {
    /// The container whose store this context reads and writes.
    public let container: ModelContainer
    /// Whether the context saves by itself after changes. `true` for ``ModelContainer/mainContext``,
    /// `false` for contexts you create, as in SwiftData. Autosave runs on the main queue.
    public var autosaveEnabled = false
    /// The author recorded with each transaction this context saves, for persistent history.
    public var author: String?
    /// The undo manager that records the context's changes; nil (the default) records none.
    ///
    /// With a manager set, every insert, delete and change of a persisted property (attributes and
    /// relationships) registers its undo, and undoing registers the redo. Changes are grouped by event:
    /// on platforms without a run loop an event ends at ``save()``, at ``processPendingChanges()`` and
    /// when the manager undoes or redoes (see ``UndoManager``). Undoing a saved change makes an
    /// unsaved one, which the next save writes; a model whose saved delete is undone comes back as an
    /// insert with a new identifier. ``rollback()`` empties the manager's stacks.
    ///
    /// ``ModelContainer/mainContext`` has one when the configuration's
    /// ``ModelConfiguration/isUndoEnabled`` is set.
    public var undoManager: UndoManager?

    /// Live instances of stored records, by record number. The table holds them strongly, and a sweep
    /// drops those nobody else holds (see ``register(_:recordNumber:)``): weak references would give
    /// every model a side table, and make every retain and release of a model take the slow path.
    var registered = ModelRegistry()
    /// Unsaved models in insertion order, and changed and deleted ones.
    var inserted: [ObjectIdentifier: any PersistentModel] = [:]
    var insertionOrder: [ObjectIdentifier] = []
    var changed: [ObjectIdentifier: any PersistentModel] = [:]
    var deleted: [ObjectIdentifier: any PersistentModel] = [:]
    var deletionOrder: [ObjectIdentifier] = []
    /// Stored records deleted by predicate, without models (``delete(model:where:includeSubclasses:)``).
    var deletedRecords = RecordDeletions()
    /// Set while the context updates inverse relationships, so that those updates are not mirrored back.
    var isMaintainingInverses = false
    /// The values of relationships about to change, read before the change, by model and property.
    var relationshipValuesBeforeChange: [ObjectIdentifier: [String: [AnyObject]]] = [:]
    /// Set while the context performs the steps of an operation whose undo is registered as a whole.
    var isUndoRegistrationSuspended = false
    /// The deletes not saved yet whose undo is registered, by deleted model (and by each model their
    /// delete rules cascade to), so that a save's cascades join the undo of the delete that caused them.
    var deletionUndos: [ObjectIdentifier: DeletionUndo] = [:]
    private var autosaveScheduled = false
    /// Where autosave runs: the queue the context is used on. The main queue, unless a
    /// ``DefaultSerialModelExecutor`` owns the context, whose queue runs its model actor's jobs.
    var autosaveQueue = DispatchQueue.main
    private var lastEntityLookedUp: Schema.Entity?
    /// The schema generation (``ModelContainer/schemaGeneration``) ``lastEntityLookedUp`` belongs to:
    /// an entity of an older schema lacks the subclasses added since.
    private var lookedUpSchemaGeneration = 0
    /// The record numbers of registered models that stand in for records of a recorded-only entity
    /// (``Schema/Entity/isRecordedOnly``) as instances of a class it inherits from.
    var standInRecordNumbers: Set<Int64> = []
    /// The index that this context's code holding the container's lock read last
    /// (``index(in:)``), for the model lookups that code reaches through the app's code; nil outside
    /// such a hold, and while a save's changes are applied to the index on another thread.
    var heldIndex: RecordIndex?
    /// The facts of the model type asked last (see ``facts(of:)``).
    private var lastFacts: (type: ObjectIdentifier, facts: EntityFacts)?

    /// Creates a context for a container.
    public init(_ container: ModelContainer) {
        self.container = container
    }

    /// The instance of a record, as the context holds it.
    typealias RegisteredModel = ModelRegistry.Entry

    /// Registers the live instance of a record. Models that only the table holds are swept out whenever
    /// the table has doubled since the last sweep, so a long-lived context that loads many records one
    /// batch after another keeps a table the size of what it holds, not of everything it ever loaded.
    func register(_ model: AnyObject, recordNumber number: Int64) {
        if registered.register(model, at: number) { sweepRegistered() }
    }

    /// Makes room to register `count` more models (a fetch's results): sweeps out dead entries first
    /// if that many would reach the sweep threshold, so that no sweep runs among models that are all
    /// alive, then reserves the space.
    func prepareToRegister(_ count: Int) {
        ReadAhead.keep(registered.prepareToRegister(count))
    }

    /// Drops the models that nothing but the table holds. (A model with unsaved changes is also held by
    /// the change lists, so it stays.)
    private func sweepRegistered() {
        ReadAhead.keep(registered.sweep())
    }

    var schema: Schema { container.schema }

    /// The entity of a model's class (see ``entity(ofType:)``).
    func entity(of model: any PersistentModel) -> Schema.Entity? {
        entity(ofType: type(of: model))
    }

    /// The entity whose class is `type`: when the schema lacks it and `type` is a subclass of one of its
    /// classes that the models do not list, it is added to the schema first, as a model of it is
    /// stored (see `Schema+UnlistedEntities.swift`). Nil for a class the schema cannot take, which a
    /// save then refuses (``requireFacts(of:)``).
    func entity(ofType type: any PersistentModel.Type) -> Schema.Entity? {
        let name = type._folioEntityName
        if let entity = entity(named: name), ObjectIdentifier(entity.modelType) == ObjectIdentifier(type) { return entity }
        guard (try? container.addUnlistedSubclass(type)) != nil, let entity = entity(named: name),
            ObjectIdentifier(entity.modelType) == ObjectIdentifier(type)
        else { return nil }
        return entity
    }

    /// The container's schema, with `type` added if it is an unlisted subclass (see ``entity(ofType:)``):
    /// what a fetch of `type` compiles against.
    func schema(knowing type: any PersistentModel.Type) -> Schema {
        _ = entity(ofType: type)
        return schema
    }

    /// What saving and inserting ask of a model's entity for every model, or nil if the model's type is
    /// not in the schema and cannot join it (see ``entity(ofType:)``). Models come in runs of one type:
    /// the facts of the type asked last are kept, and reading them retains nothing (the entity object
    /// is shared by every model of the entity).
    func facts(of model: any PersistentModel) -> EntityFacts? {
        let type = ObjectIdentifier(Swift.type(of: model))
        if let lastFacts, lastFacts.type == type { return lastFacts.facts }
        guard let entity = entity(of: model) else { return nil }
        let facts = EntityFacts(entity)
        lastFacts = (type, facts)
        return facts
    }

    /// The schema's entity called `name`. Records of one entity come in runs (a fetch, a relationship),
    /// so the last one found is kept and checked first.
    func entity(named name: String) -> Schema.Entity? {
        let generation = container.schemaGeneration.load(ordering: .acquiring)
        if let last = lastEntityLookedUp, last.name == name, generation == lookedUpSchemaGeneration { return last }
        let current = container.schemaAndGeneration
        lookedUpSchemaGeneration = current.generation
        lastEntityLookedUp = current.schema.entitiesByName[name]
        return lastEntityLookedUp
    }

    // MARK: Pending changes

    /// Whether the context has inserted, changed or deleted models that are not saved yet.
    public var hasChanges: Bool {
        !inserted.isEmpty || !changed.isEmpty || !deleted.isEmpty || !deletedRecords.isEmpty
    }

    /// The models inserted since the last save, in insertion order.
    public var insertedModelsArray: [any PersistentModel] {
        insertionOrder.compactMap { inserted[$0] }
    }

    /// The stored models changed since the last save.
    public var changedModelsArray: [any PersistentModel] {
        Array(changed.values)
    }

    /// The models deleted since the last save.
    public var deletedModelsArray: [any PersistentModel] {
        deletionOrder.compactMap { deleted[$0] }
    }

    /// Registers a model (and the unsaved models it refers to) to be inserted at the next save.
    ///
    /// Until the save, the model has a temporary ``PersistentModel/persistentModelID``. Inserting a
    /// model whose `.unique` or `#Unique` values match a stored model updates that model at the save
    /// instead (an upsert), as in SwiftData.
    public func insert<T: PersistentModel>(_ model: T) {
        insertModel(model)
    }

    func insertModel(_ model: any PersistentModel) {
        let backing = model.persistentBackingData
        let key = ObjectIdentifier(model)
        // One load of the weak reference for both questions: each load retains the context.
        let current = backing.context
        if current === self {
            if deleted[key] != nil {
                deleted[key] = nil
                deletionOrder.removeAll { $0 == key }
                backing.isDeleted = false
                // Changes made before the delete are saved after all.
                if !backing.changedProperties.isEmpty { changed[key] = model }
                if undoManager != nil { registerUndoOfInsert(model) }
            }
            return
        }
        guard current == nil, backing.storedRecordNumber == nil else { return }
        backing.context = self
        backing.isInserted = true
        // A model deleted before its first save (discarded) may be inserted again.
        backing.isDeleted = false
        if undoManager != nil { registerUndoOfInsert(model) }
        inserted[key] = model
        insertionOrder.append(key)
        // Insert the related graph and make both sides of each relationship agree (a model without
        // relationships, as in most bulk imports, has nothing to look at).
        if facts(of: model)?.hasRelationships == true {
            for related in relatedModels(of: model) {
                insertModel(related.model)
            }
            reconcileInverses(of: model)
        }
        scheduleAutosave()
    }

    /// Marks a model to be deleted from the store at the next save. An unsaved model is simply discarded.
    public func delete<T: PersistentModel>(_ model: T) {
        deleteModel(model)
    }

    func deleteModel(_ model: any PersistentModel) {
        let backing = model.persistentBackingData
        let key = ObjectIdentifier(model)
        guard backing.context === self else { return }
        if inserted[key] != nil {
            inserted[key] = nil
            insertionOrder.removeAll { $0 == key }
            backing.isInserted = false
            backing.isDeleted = true
            backing.context = nil
            if undoManager != nil { registerUndoOfDiscard(model) }
            return
        }
        guard deleted[key] == nil else { return }
        backing.isDeleted = true
        deleted[key] = model
        deletionOrder.append(key)
        changed[key] = nil
        if undoManager != nil { registerUndoOfDelete(model) }
        scheduleAutosave()
    }

    /// Discards unsaved inserts and deletes, restores changed models to their stored values, and
    /// empties the undo manager's stacks (``undoManager``), as SwiftData documents.
    public func rollback() {
        undoManager?.folioRemoveAllActions()
        deletionUndos = [:]
        for model in inserted.values {
            let backing = model.persistentBackingData
            backing.isInserted = false
            backing.context = nil
            backing.changedProperties = []
        }
        inserted = [:]
        insertionOrder = []
        let restore = Array(changed.values) + Array(deleted.values)
        changed = [:]
        deleted = [:]
        deletionOrder = []
        deletedRecords.removeAll()
        // A store that cannot be read now leaves the index at the records it describes, which the
        // models are restored from; the next fetch or save reports the problem.
        try? container.syncIndex()
        for model in restore {
            let backing = model.persistentBackingData
            backing.isDeleted = false
            backing.changedProperties = []
            if let number = backing.storedRecordNumber {
                try? reload(model, recordNumber: number)
            }
        }
    }

    /// Runs `block`, then saves.
    public func transaction(block: () throws -> Void) throws {
        try block()
        try save()
    }

    /// Ends the undo manager's current event: the changes registered since the last event are undone
    /// together (see ``undoManager``). Folio records changes as they happen; there is nothing else to
    /// process. On Apple platforms the run loop ends events, and this does nothing.
    public func processPendingChanges() {
        endUndoEvent()
    }

    // MARK: Identity

    /// The registered model with this identifier, or nil if this context holds no such instance.
    public func registeredModel<T: PersistentModel>(for persistentModelID: PersistentIdentifier) -> T? {
        guard isOfThisStore(persistentModelID) else { return nil }
        if let number = persistentModelID.recordNumber {
            return registered[number]?.model as? T
        }
        return inserted.values.first { $0.persistentModelID == persistentModelID } as? T
    }

    /// The model with this identifier: the registered instance, or one loaded from the store.
    ///
    /// SwiftData returns a placeholder for an identifier it does not know; Folio loads the record, and
    /// when the store has no such record it returns a new, unsaved instance of the entity with no
    /// values loaded: its properties read as their declared defaults, or as empty
    /// values (see `_ModelField.value(of:property:)`). An entity with a property that has neither (say
    /// an enum with raw values 1–3 and no default) cannot stand in like that: for it, and for an entity
    /// the schema does not know, the placeholder is an instance of another class, so that
    /// `model(for:) as? Entity` gives nil. So does an identifier of another container's store, even
    /// when this store has a record with the same number.
    public func model(for persistentModelID: PersistentIdentifier) -> any PersistentModel {
        // An identifier of another store names none of this one's records, whatever its number.
        guard isOfThisStore(persistentModelID) else { return PlaceholderModel() }
        if let number = persistentModelID.recordNumber, let model = model(forRecordNumber: number) {
            return model
        }
        if let model = inserted.values.first(where: { $0.persistentModelID == persistentModelID }) {
            return model
        }
        if let type = schema.entitiesByName[persistentModelID.entityName]?.modelType, PlaceholderValue.canStandIn(type),
            let placeholder = try? type.init(_claimed: _ClaimedBackingData(new: ModelBackingData()))
        {
            return placeholder
        }
        return PlaceholderModel()
    }

    /// Whether `identifier` can name a model of this context's store: a temporary one, or one whose
    /// store is this container's.
    func isOfThisStore(_ identifier: PersistentIdentifier) -> Bool {
        identifier.storeIdentifier.map { $0 == container.storeIdentifier } ?? true
    }

    /// The instance of a stored record: the registered one, or a new one loaded from the index.
    ///
    /// Relationship getters call it from the app's code and also from code that runs under the
    /// container's lock (decoding a required relationship, delete rules during a save): there the
    /// caller's hold of the lock covers the lookup, which reads the index that holder read last
    /// (``heldIndex``); a lookup on this thread that no hold of this context covers finds nothing.
    func model(forRecordNumber number: Int64) -> (any PersistentModel)? {
        if container.lock.isHeldByCurrentThread {
            guard let index = heldIndex else { return nil }
            return try? loadedModel(forRecordNumber: number, loadingValues: false, in: index.records, index: index)
        }
        return try? loadedModel(forRecordNumber: number)
    }

    /// The instance of a stored record, or an error saying why its record cannot be loaded.
    ///
    /// A model made here is a fault: its properties are decoded from the record when first read. With
    /// `loadingValues`, every property is decoded now, so that a record that cannot be decoded fails
    /// here, with a typed error.
    func loadedModel(forRecordNumber number: Int64, loadingValues: Bool = false) throws -> (any PersistentModel)? {
        // The index is shared with contexts on other threads, whose saves change it.
        try withContainerLock(refusingReentry: "ModelContext's model lookup") { state in
            let index = try self.index(in: &state)
            return try loadedModel(forRecordNumber: number, loadingValues: loadingValues, in: index.records, index: index)
        }
    }

    /// ``loadedModel(forRecordNumber:loadingValues:)`` for a caller that holds the container's lock and
    /// has read `index` from it, and its `records`, which a caller that loads many reads once.
    func loadedModel(
        forRecordNumber number: Int64, loadingValues: Bool, in records: StoreRecords,
        index: RecordIndex
    ) throws -> (any PersistentModel)? {
        if let model = registered[number]?.model as? any PersistentModel, !isOutgrownStandIn(model, number, in: records) {
            let backing = model.persistentBackingData
            guard !backing.hasChanges else { return model }
            if let version = records[number]?.version, version > backing.loadedVersion {
                try reload(model, recordNumber: number, in: index)
            } else if loadingValues, backing.faultValues != nil {
                try reload(model, recordNumber: number, in: index)
            }
            return model
        }
        guard let record = records[number] else { return nil }
        return try materialize(
            number, entity: record.entity, values: record.values, version: record.version,
            loadingValues: loadingValues)
    }

    /// Whether `model`, registered for record `number`, stood in for a record of a recorded-only entity
    /// whose class the schema has since been given (a context inserted or fetched a model of it): it
    /// is then dropped from the registry, so that the record is made anew as its own class. A stand-in
    /// with unsaved changes stays, so that they are saved.
    private func isOutgrownStandIn(_ model: any PersistentModel, _ number: Int64, in records: StoreRecords) -> Bool {
        guard !standInRecordNumbers.isEmpty, standInRecordNumbers.contains(number) else { return false }
        guard let entityName = records[number]?.entity, let entity = entity(named: entityName), !entity.isRecordedOnly else {
            return false
        }
        if ObjectIdentifier(type(of: model)) == ObjectIdentifier(entity.modelType) {
            // Made as its own class already (the stand-in was swept out of the registry since).
            standInRecordNumbers.remove(number)
            return false
        }
        guard !model.persistentBackingData.hasChanges else { return false }
        standInRecordNumbers.remove(number)
        registered[number] = nil
        return true
    }

    /// Creates and registers the instance of a stored record, written by the transaction `version`: a
    /// fault, whose properties are decoded from `values` when first read, unless `loadingValues` or its
    /// entity asks for every property now.
    func materialize(
        _ number: Int64, entity entityName: String, values: RecordValues, version: UInt64,
        loadingValues: Bool = false
    ) throws -> (any PersistentModel)? {
        guard let entity = entity(named: entityName) else { return nil }
        // The values are set before the instance is made: its `let` properties are read from them.
        let backing = ModelBackingData(
            recordNumber: number, store: container.storeIdentity,
            faultValues: try readExternalValues(values, entity: entity), loadedVersion: version)
        let model: any PersistentModel
        do {
            model = try ModelBackingData.makeModel(entity.modelType, backingData: backing)
        } catch {
            throw FolioError(.modelCoding, "\(entity.name) record \(number) could not be loaded", underlying: error)
        }
        // Registered before decoding, so that required relationships that lead back here find this
        // instance instead of creating another.
        backing.context = self
        register(model, recordNumber: number)
        if entity.isRecordedOnly { standInRecordNumbers.insert(number) }
        do {
            if loadingValues || entity.loadsCompletelyWhenFetched, let values = backing.faultValues {
                try decode(model, fromReadValues: values, entity: entity, number: number)
            }
        } catch {
            registered[number] = nil
            backing.context = nil
            throw error
        }
        return model
    }

    /// A model of values a record had, for a record that has since been deleted: marked deleted, not
    /// registered, its relationships resolved through this context. A fault over those values, like a
    /// fetched model; nil for an entity the schema does not know, or one that must load completely and
    /// whose values do not load.
    func detachedModel(entity entityName: String, recordNumber number: Int64, values: RecordValues) -> (any PersistentModel)? {
        guard let entity = schema.entitiesByName[entityName] else { return nil }
        let backing = ModelBackingData()
        backing.assignRecordNumber(number, store: container.storeIdentity)
        backing.faultValues = values
        guard let model = try? ModelBackingData.makeModel(entity.modelType, backingData: backing) else { return nil }
        backing.context = self
        backing.isDeleted = true
        if entity.loadsCompletelyWhenFetched {
            guard (try? decode(model, from: values, entity: entity, number: number)) != nil else { return nil }
        }
        return model
    }

    /// Loads a model's stored values again.
    func reload(_ model: any PersistentModel, recordNumber number: Int64) throws {
        try withContainerLock(refusingReentry: "ModelContext's model reload") { state in
            try reload(model, recordNumber: number, in: try index(in: &state))
        }
    }

    /// ``reload(_:recordNumber:)`` for a caller that holds the container's lock and read `index` from it.
    func reload(_ model: any PersistentModel, recordNumber number: Int64, in index: RecordIndex) throws {
        guard let record = index.records[number], let entity = entity(of: model) else { return }
        model.persistentBackingData.loadedVersion = index.version(of: number) ?? 0
        try decode(model, from: record.values, entity: entity, number: number)
    }

    private func decode(_ model: any PersistentModel, from values: RecordValues, entity: Schema.Entity, number: Int64) throws {
        try decode(model, fromReadValues: try readExternalValues(values, entity: entity), entity: entity, number: number)
    }

    /// ``decode(_:from:entity:number:)`` for values already read by ``readExternalValues(_:entity:)``.
    private func decode(_ model: any PersistentModel, fromReadValues values: RecordValues, entity: Schema.Entity, number: Int64) throws {
        model.persistentBackingData.faultValues = nil
        model.persistentBackingData.hasSetProperties = false
        var decoder = ModelRecordDecoder(
            values: values, entityName: entity.name,
            identifier: model.persistentModelID, backingData: model.persistentBackingData)
        do {
            try model._folioDecode(from: &decoder)
        } catch {
            throw FolioError(.modelCoding, "\(entity.name) record \(number) could not be loaded", underlying: error)
        }
    }

    // MARK: Autosave

    func scheduleAutosave() {
        guard autosaveEnabled, !autosaveScheduled else { return }
        autosaveScheduled = true
        // Autosave runs on the queue the context is used on (the main context's, or its model
        // executor's); the box only carries the reference there.
        let box = UncheckedBox(self)
        autosaveQueue.async {
            guard let context = box.value else { return }
            context.autosaveScheduled = false
            if context.hasChanges { try? context.save() }
        }
    }

    // MARK: Hooks from models

    /// Called by a model's setter before a persisted property changes.
    func modelWillChange<Model: PersistentModel>(_ model: Model, property: String) {
        guard !isMaintainingInverses, let entity = entity(of: model),
            let relationship = entity.relationshipsByName[property], relationship.inverseName != nil
        else { return }
        relationshipValuesBeforeChange[ObjectIdentifier(model), default: [:]][property] =
            currentRelated(of: model, relationship: relationship)
    }

    /// Called by a model's setter after a persisted property changed.
    func modelDidChange<Model: PersistentModel>(_ model: Model, property: String) {
        let key = ObjectIdentifier(model)
        if inserted[key] == nil && deleted[key] == nil {
            changed[key] = model
        }
        if let entity = entity(of: model), let relationship = entity.relationshipsByName[property] {
            let before = relationshipValuesBeforeChange[key]?[property] ?? []
            relationshipValuesBeforeChange[key]?[property] = nil
            let after = removingDuplicates(
                from: model, relationship: relationship,
                related: currentRelated(of: model, relationship: relationship))
            for related in after {
                if let relatedModel = related as? any PersistentModel, relatedModel.persistentBackingData.context == nil {
                    insertModel(relatedModel)
                }
            }
            if !isMaintainingInverses {
                updateInverses(of: model, relationship: relationship, before: before, after: after)
            }
        }
        scheduleAutosave()
    }

    /// Resolves the relationships of `model` that are not loaded yet.
    func resolveRelationships<Model: PersistentModel>(of model: Model) {
        let backing = model.persistentBackingData
        guard !backing.unresolvedRelationships.isEmpty else { return }
        var resolver = ModelRelationshipResolver(unresolved: backing.unresolvedRelationships, context: self)
        model._folioResolve(&resolver)
        for key in resolver.resolvedKeys { backing.unresolvedRelationships[key] = nil }
    }
}

/// Carries a weak reference to a context to the queue it is used on.
// Unchecked: a context is not Sendable; the one carried here is used only on its own autosave queue.
private final class UncheckedBox: @unchecked Sendable {
    weak var value: ModelContext?
    init(_ value: ModelContext) { self.value = value }
}

/// Stands in for a model of an entity the schema does not know, so that `model(for:)` can return something.
@Model
final class PlaceholderModel {
    init() {}
}

/// What the save path asks of an entity for each model (``ModelContext/facts(of:)``).
struct EntityFacts {
    /// Whether the entity has relationships, whose related models an insert inserts too.
    let hasRelationships: Bool
    /// Whether a model's encoded values are stored as they are: no `.ephemeral` attribute to leave out,
    /// no `.externalStorage` one to move into a blob.
    let storesEncodedValues: Bool
    /// Whether the entity has `.unique` attributes or `#Unique` constraints.
    let hasUniquenessConstraints: Bool

    init(_ entity: Schema.Entity) {
        hasRelationships = !entity.relationshipsByName.isEmpty
        storesEncodedValues = entity.ephemeralAttributeNames.isEmpty && entity.externalStorageAttributeNames.isEmpty
        hasUniquenessConstraints = !entity.uniquenessConstraints.isEmpty
    }
}
