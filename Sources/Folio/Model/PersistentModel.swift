/// A class whose instances Folio stores. Conform with `@Model`; don't implement the requirements by hand.
///
/// As in SwiftData, a model is `Observable`, `Hashable` and `Identifiable`: two references are equal when
/// they are the same instance, and `id` is the model's ``persistentModelID``.
public protocol PersistentModel: AnyObject, Observable, Hashable, Identifiable {
    /// The persisted properties the class declares (a subclass lists only its own).
    static var schemaMetadata: [Schema.PropertyMetadata] { get }

    /// Identity, context and Observation state of this instance.
    var persistentBackingData: ModelBackingData { get }

    /// Creates an instance whose persisted properties are not loaded yet.
    init(backingData: ModelBackingData)

    /// The entity name: the class name.
    static var _folioEntityName: String { get }
    /// The model class this one inherits from, if any.
    static var _folioSuperclass: (any PersistentModel.Type)? { get }
    /// The `#Index` declarations of the class: groups of property names.
    static var _folioIndexes: [[String]] { get }
    /// The `#Unique` declarations of the class: groups of property names.
    static var _folioUniqueConstraints: [[String]] { get }
    /// Writes the persisted properties (the superclass's first) into a record.
    func _folioEncode(to encoder: inout ModelRecordEncoder) throws
    /// Reads the persisted properties (the superclass's first) from a record.
    func _folioDecode(from decoder: inout ModelRecordDecoder) throws
    /// Resolves relationships that are not loaded yet.
    func _folioResolve(_ resolver: inout ModelRelationshipResolver)
    /// Key paths rooted at this class for every persisted property, inherited ones included.
    static var _folioKeyPathTable: [(AnyKeyPath, String)] { get }
}

extension PersistentModel {
    /// The model's stable identifier: its entity name and an identifier unique in its store.
    ///
    /// A model that was never saved has a temporary identifier; saving gives it a permanent one.
    public var persistentModelID: PersistentIdentifier {
        persistentBackingData.persistentModelID(entityName: Self._folioEntityName)
    }

    /// The same as ``persistentModelID``.
    public var id: PersistentIdentifier { persistentModelID }

    /// The context that manages this model, or nil if it was never inserted into one.
    public var modelContext: ModelContext? { persistentBackingData.context }

    /// Whether the model has changes that its context has not saved yet.
    public var hasChanges: Bool { persistentBackingData.hasChanges }

    /// Whether the model was deleted from its context (saved or not yet saved).
    public var isDeleted: Bool { persistentBackingData.isDeleted }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs === rhs }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(self))
    }
}
