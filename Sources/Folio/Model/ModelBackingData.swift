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

    let registrar = ObservationRegistrar()
    private var recordNumber: Int64?
    private var temporaryNumber: UInt64?
    var storeIdentifier: String?

    /// The context that manages the model. Contexts hold their models strongly; models point back weakly.
    weak var context: ModelContext?
    /// Names of the persisted properties changed since the last save or load.
    var changedProperties: Set<String> = []
    var isDeleted = false
    var isInserted = false
    /// Stored values of relationships that have not been resolved into models yet, by property name.
    var unresolvedRelationships: [String: JSONValue] = [:]
    /// The index version of the record the model was last loaded from.
    var loadedVersion: UInt64 = 0

    /// Creates the state of a new, unsaved model.
    public init() {}

    var hasChanges: Bool {
        isInserted || isDeleted || !changedProperties.isEmpty
    }

    func persistentModelID(entityName: String) -> PersistentIdentifier {
        if let recordNumber {
            return PersistentIdentifier(entityName: entityName, storeIdentifier: storeIdentifier, recordNumber: recordNumber)
        }
        if temporaryNumber == nil {
            temporaryNumber = ModelBackingData.temporaryNumbers.add(1, ordering: .relaxed).newValue
        }
        return PersistentIdentifier(entityName: entityName, temporaryNumber: temporaryNumber ?? 0)
    }

    /// The store-wide record number, once the model has been saved or loaded.
    var storedRecordNumber: Int64? { recordNumber }

    func forgetRecordNumber() {
        recordNumber = nil
    }

    func assignRecordNumber(_ number: Int64, storeIdentifier: String?) {
        recordNumber = number
        self.storeIdentifier = storeIdentifier
    }

    /// Reports a read of `keyPath` to Observation. Generated accessors call this.
    public func access<Model: PersistentModel, Value>(_ model: Model, keyPath: KeyPath<Model, Value>) {
        registrar.access(model, keyPath: keyPath)
    }

    /// Performs a change of `keyPath`, reporting it to Observation and recording it for the model's
    /// context. Generated accessors call this.
    public func withMutation<Model: PersistentModel, Value, Result>(
        _ model: Model, keyPath: KeyPath<Model, Value>, property: String, _ mutation: () throws -> Result
    ) rethrows -> Result {
        context?.modelWillChange(model, property: property)
        let result = try registrar.withMutation(of: model, keyPath: keyPath, mutation)
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
}
