import Foundation
import Synchronization
import FolioStorage

/// The per-instance state `@Model` gives every model: its identity, its context, its unsaved changes,
/// and the Observation registrar its properties report to.
///
/// You rarely use this type directly; a model's ``PersistentModel/persistentModelID``,
/// ``PersistentModel/modelContext``, ``PersistentModel/hasChanges`` and ``PersistentModel/isDeleted``
/// read it.
public final class ModelBackingData {
    private static let temporaryNumbers = Atomic<UInt64>(0)

    /// The model's number: its store-wide record number once saved or loaded (positive), or before
    /// that, once asked for its identifier, its temporary number negated; 0 until either. One field,
    /// not two optionals, keeps every model's backing data a size class smaller.
    private var number: Int64 = 0
    /// The store of ``number``, once it is a record number; shared by every model of a container.
    private var storeIdentity: StoreIdentity?

    /// The context that manages the model. Contexts hold their models strongly; models point back weakly.
    weak var context: ModelContext?
    /// Names of the persisted properties changed since the last save or load.
    var changedProperties: Set<String> {
        get { extras?.changedProperties ?? [] }
        set {
            if extras == nil, newValue.isEmpty { return }
            madeExtras().changedProperties = newValue
        }
    }
    /// Whether any persisted property was set since the model was made or last loaded completely;
    /// until then, every property's value is the one in ``faultValues``.
    var hasSetProperties = false
    var isDeleted = false
    var isInserted = false
    /// Whether a model instance has this backing data (see ``_claim(for:)``).
    var isClaimed = false
    /// Stored values of relationships that have not been resolved into models yet, by property name.
    var unresolvedRelationships: [String: JSONValue] {
        get { extras?.unresolvedRelationships ?? [:] }
        set {
            if extras == nil, newValue.isEmpty { return }
            madeExtras().unresolvedRelationships = newValue
        }
    }
    /// The index version of the record the model was last loaded from.
    var loadedVersion: UInt64 = 0
    /// The stored values of the record a fetched model was made from, from which its properties are
    /// decoded one by one when first read (until then the model is a *fault*, as in SwiftData). Nil for
    /// a model created by its own initializers or loaded completely.
    /// Only properties never set since are read from it: a set property is loaded.
    @usableFromInline var faultValues: RecordValues?
    /// Why the last property that failed to load from ``faultValues`` could not be (the record holds a
    /// value that does not decode as the property's type); the property then reads as its default.
    var loadError: FolioError? {
        get { extras?.loadError }
        set {
            if extras == nil, newValue == nil { return }
            madeExtras().loadError = newValue
        }
    }
    /// What a model needs once it is read, changed or related: made then, so that a model a large fetch
    /// makes and nobody touches carries one empty pointer instead of these four fields.
    private var extras: Extras?
    private final class Extras {
        var changedProperties: Set<String> = []
        var unresolvedRelationships: [String: JSONValue] = [:]
        var loadError: FolioError?
        /// The Observation registrar, made on the first read of a property: a model nobody reads
        /// cannot be observed.
        var registrar: ObservationRegistrar?
    }

    private func madeExtras() -> Extras {
        if let extras { return extras }
        let made = Extras()
        extras = made
        return made
    }

    /// Creates the state of a new, unsaved model. Models get theirs from their initializers (generated
    /// code calls ``_forNewInstance()``) or from a context (``_ClaimedBackingData``).
    init() {}

    /// Creates the state of a model made for a stored record: record `number` of `store`, as the
    /// transaction `loadedVersion` wrote it, whose properties are read from `faultValues`.
    init(recordNumber number: Int64, store: StoreIdentity, faultValues: RecordValues, loadedVersion: UInt64) {
        self.number = number
        self.storeIdentity = store
        self.faultValues = faultValues
        self.loadedVersion = loadedVersion
    }

    var hasChanges: Bool {
        isInserted || isDeleted || !changedProperties.isEmpty
    }

    func persistentModelID(entityName: String) -> PersistentIdentifier {
        if number > 0 {
            return PersistentIdentifier(entityName: entityName, storeIdentifier: storeIdentifier, recordNumber: number)
        }
        if number == 0 {
            number = -Int64(truncatingIfNeeded: ModelBackingData.temporaryNumbers.add(1, ordering: .relaxed).newValue)
        }
        return PersistentIdentifier(entityName: entityName, temporaryNumber: UInt64(truncatingIfNeeded: -number))
    }

    /// The store-wide record number, once the model has been saved or loaded.
    var storedRecordNumber: Int64? { number > 0 ? number : nil }

    /// The identifier of the store the model's record is in, once it has one.
    var storeIdentifier: String? { storeIdentity?.identifier }

    func assignRecordNumber(_ number: Int64, store: StoreIdentity) {
        self.number = number
        self.storeIdentity = store
    }

    /// Makes the model unsaved again, with a new temporary identifier when next asked: for a model
    /// whose saved delete is undone, which the store cannot give its old record number back.
    func forgetRecordNumber() {
        number = 0
        storeIdentity = nil
        loadedVersion = 0
    }

    /// Reports a read of `keyPath` to Observation. Generated accessors call this.
    public func access<Model: PersistentModel, Value>(_ model: Model, keyPath: KeyPath<Model, Value>) {
        let extras = madeExtras()
        if extras.registrar == nil { extras.registrar = ObservationRegistrar() }
        extras.registrar?.access(model, keyPath: keyPath)
    }

    /// Performs a change of `keyPath`, reporting it to Observation and recording it for the model's
    /// context. Generated accessors call this.
    public func withMutation<Model: PersistentModel, Value, Result>(
        _ model: Model, keyPath: KeyPath<Model, Value>, property: String, _ mutation: () throws -> Result
    ) rethrows -> Result {
        // One load of the weak reference: each load retains the context.
        let context = self.context
        if let context {
            context.modelWillChange(model, property: property)
            if let undoManager = context.undoManager {
                context.registerUndoOfChange(of: model, keyPath: keyPath, with: undoManager)
            }
        }
        hasSetProperties = true
        // Without a registrar no property was ever read, so no observer can be tracking this model.
        let result: Result
        if let registrar = extras?.registrar {
            result = try registrar.withMutation(of: model, keyPath: keyPath, mutation)
        } else {
            result = try mutation()
        }
        unresolvedRelationships[property] = nil
        // A model that no context manages has no unsaved changes: inserting it writes all its values.
        if let context {
            changedProperties.insert(property)
            context.modelDidChange(model, property: property)
        } else if ValueKind.of(Value.self).isRelationship, let adopting = ModelBackingData.managingContext(of: model[keyPath: keyPath]) {
            // Relating an unmanaged model to a managed one inserts it into that model's context, as in SwiftData.
            adopting.insertModel(model)
        }
        return result
    }

    /// The context of the first managed model in a relationship value.
    static func managingContext(of value: Any) -> ModelContext? {
        if let model = value as? any PersistentModel { return model.persistentBackingData.context }
        if let optional = value as? any _OptionalValue, let wrapped = optional._wrappedValue { return managingContext(of: wrapped) }
        if let collection = value as? any _ModelCollection {
            for element in collection._elements {
                if let context = managingContext(of: element) { return context }
            }
        }
        return nil
    }

    /// Loads the persisted properties of `model` that are not loaded yet (its relationships, which are
    /// resolved when first read). Generated accessors call this.
    public static func load<Model: PersistentModel>(_ model: Model) {
        model.persistentBackingData.context?.resolveRelationships(of: model)
    }

    /// The value of one property of a fetched model, decoded from its record on first read; `.unloaded`
    /// when the model has no record values to decode it from, or when the record has no value for a
    /// property that is not optional. A relationship comes back `.unloaded` too, with its stored value
    /// noted for ``load(_:)`` to resolve. Generated accessors call this.
    @inlinable
    public static func loadValue<Model: PersistentModel, Value>(of model: Model, forKey key: String) -> _ModelField<Value> {
        loadValue(of: model, forKey: key) { decoder in try decoder.decodeIfPresent(forKey: key) }
    }

    /// The value of one property with a declared default, decoded from a fetched model's record on
    /// first read; the default when the record has no value for it. Generated accessors call this.
    @inlinable
    public static func loadValue<Model: PersistentModel, Value>(
        of model: Model, forKey key: String, default makeDefault: () -> Value
    ) -> _ModelField<Value> {
        loadValue(of: model, forKey: key) { decoder in try decoder.decode(forKey: key, default: makeDefault) }
    }

    /// Decodes one property from the model's record with `decode`; a value that does not decode is
    /// noted and reads as not loaded.
    @inlinable
    static func loadValue<Model: PersistentModel, Value>(
        of model: Model, forKey key: String, _ decode: (inout ModelRecordDecoder) throws -> _ModelField<Value>
    ) -> _ModelField<Value> {
        let backing = model.persistentBackingData
        guard let values = backing.faultValues else { return .unloaded }
        // The instance's own entity: a subclass's model read through a superclass's property.
        let entityName = type(of: model)._folioEntityName
        var decoder = ModelRecordDecoder(values: values, entityName: entityName, identifier: nil, backingData: backing)
        do {
            return try decode(&decoder)
        } catch {
            backing.noteLoadError(error, property: key, of: entityName)
            return .unloaded
        }
    }

    @usableFromInline
    func noteLoadError(_ error: any Error, property: String, of entityName: String) {
        let record = storedRecordNumber.map { " record \($0)" } ?? ""
        loadError = FolioError(
            .modelCoding, "\(entityName)\(record) has a value for '\(property)' that cannot be loaded; it reads as its default",
            underlying: error)
    }
}

extension ModelBackingData {
    /// The thread-local slot through which `makeModel(_:backingData:)` hands its backing data to the
    /// instance being initialized.
    private static let pendingKey: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    /// The initial value of a model's `persistentBackingData`; code generated by `@Model` calls it.
    ///
    /// A model created by its own initializers gets new backing data. A model a context creates to load
    /// a record, through `init(_claimed:)`, adopts the backing data it is about to receive, so that
    /// the stored property's initial value is not made only to be replaced.
    public static func _forNewInstance() -> ModelBackingData {
        if let pending = pthread_getspecific(pendingKey) {
            pthread_setspecific(pendingKey, nil)
            return Unmanaged<ModelBackingData>.fromOpaque(pending).takeUnretainedValue()
        }
        let backing = ModelBackingData()
        backing.isClaimed = true
        return backing
    }

    /// A new instance of `type` with `backing` as its backing data.
    /// The backing data's ``faultValues``, if set, are the record the instance's `let` properties
    /// are read from.
    static func makeModel(_ type: any PersistentModel.Type, backingData backing: ModelBackingData) throws -> any PersistentModel {
        pthread_setspecific(pendingKey, Unmanaged.passUnretained(backing).toOpaque())
        defer { pthread_setspecific(pendingKey, nil) }
        return try type.init(_claimed: _ClaimedBackingData(new: backing))
    }
}

/// Backing data taken for one new model instance: what the designated initializer `@Model` generates
/// receives. Only Folio makes one from backing data it has just created, and
/// ``init(claiming:for:)`` checks that no model has the backing data yet, so that no two instances
/// share backing data: an instance sharing another's would have nothing to load its properties from.
public struct _ClaimedBackingData {
    /// The backing data, now taken.
    public let backingData: ModelBackingData

    /// Takes backing data Folio has just made.
    init(new backing: ModelBackingData) {
        backing.isClaimed = true
        backingData = backing
    }

    /// Takes backing data for a new instance of `type`; generated `init(backingData:)` calls it.
    ///
    /// - Throws: ``FolioError/Code/invalidModel`` if a model already has it (another model's
    ///   `persistentBackingData`).
    public init(claiming backing: ModelBackingData, for type: any PersistentModel.Type) throws {
        guard !backing.isClaimed else {
            throw FolioError(
                .invalidModel,
                "\(type).init(backingData:) was given backing data that already belongs to a model (another model's persistentBackingData); that initializer is for Folio's contexts: create models with their own initializers, or fetch them"
            )
        }
        self.init(new: backing)
    }

    /// The value of a `let` property for the instance being made: decoded from the record it is made
    /// for, or, for an instance with no record (a placeholder), its type's empty value. Generated
    /// `init(_claimed:)` calls it.
    ///
    /// - Throws: ``ModelCodingError`` naming the property when the record's value does not decode, or
    ///   when there is no record and the type has no empty value.
    public func _constant<Value>(forKey key: String, of entityName: String) throws -> Value {
        if let values = backingData.faultValues {
            var decoder = ModelRecordDecoder(values: values, entityName: entityName, identifier: nil, backingData: backingData)
            if case .loaded(let value) = try decoder.decodeIfPresent(forKey: key) as _ModelField<Value> { return value }
            if ValueKind.of(Value.self).isRelationship {
                throw ModelCodingError(
                    entityName: entityName, identifier: nil, property: key,
                    reason: "a 'let' cannot hold a relationship; declare it with 'var'")
            }
            throw ModelCodingError(
                entityName: entityName, identifier: nil, property: key,
                reason: "the record has no value for this 'let' property")
        }
        if let empty = PlaceholderValue.make(Value.self) { return empty }
        throw ModelCodingError(
            entityName: entityName, identifier: nil, property: key,
            reason: "there is no record to take this 'let' property from, and \(Value.self) has no empty value")
    }
}
