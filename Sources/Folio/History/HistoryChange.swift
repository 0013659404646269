import FolioStorage

/// One change of a history transaction.
public enum HistoryChange: Sendable {
    /// A model was inserted.
    case insert(any HistoryInsert)
    /// A model was updated.
    case update(any HistoryUpdate)
    /// A model was deleted.
    case delete(any HistoryDelete)

    /// The model the change is about.
    public var changedPersistentIdentifier: PersistentIdentifier {
        switch self {
        case .insert(let change): return change.changedPersistentIdentifier
        case .update(let change): return change.changedPersistentIdentifier
        case .delete(let change): return change.changedPersistentIdentifier
        }
    }
}

/// An inserted model.
public protocol HistoryInsert<Model>: Sendable {
    /// The class of the changed model.
    associatedtype Model: PersistentModel
    /// The identifier of the changed model.
    var changedPersistentIdentifier: PersistentIdentifier { get }
    /// The change's position within its transaction, from 1.
    var changeIdentifier: Int { get }
    /// The number of the transaction the change belongs to.
    var transactionIdentifier: UInt64 { get }
}

/// An updated model: which attributes changed. Folio's ``DefaultHistoryUpdate`` also carries the new values.
public protocol HistoryUpdate<Model>: Sendable {
    /// The class of the changed model.
    associatedtype Model: PersistentModel
    /// The identifier of the changed model.
    var changedPersistentIdentifier: PersistentIdentifier { get }
    /// The change's position within its transaction, from 1.
    var changeIdentifier: Int { get }
    /// The number of the transaction the change belongs to.
    var transactionIdentifier: UInt64 { get }
    /// Key paths of the attributes the update changed.
    var updatedAttributes: [any PartialKeyPath<Model> & Sendable] { get }
}

/// A deleted model, with the values its `.preserveValueOnDeletion` attributes had.
public protocol HistoryDelete<Model>: Sendable {
    /// The class of the changed model.
    associatedtype Model: PersistentModel
    /// The identifier of the changed model.
    var changedPersistentIdentifier: PersistentIdentifier { get }
    /// The change's position within its transaction, from 1.
    var changeIdentifier: Int { get }
    /// The number of the transaction the change belongs to.
    var transactionIdentifier: UInt64 { get }
    /// The deleted model's `.preserveValueOnDeletion` values.
    var tombstone: HistoryTombstone<Model> { get }
}

/// Stored values of one model as a history change recorded them, readable by key path.
///
/// Folio's journal keeps the values of every change, so history can give them out, which SwiftData's
/// cannot: an insert carries all values, an update the changed ones, a delete the preserved ones.
public struct HistoryValues<Model: PersistentModel>: Sendable {
    /// The stored values by property name, in Folio's canonical JSON form.
    public let storedValues: [String: JSONValue]

    /// The value of a property, if the change recorded it; nil for relationships.
    public func value<Value: Decodable>(for keyPath: KeyPath<Model, Value>) -> Value? {
        guard let name = Model._folioKeyPathTable.first(where: { $0.0 == keyPath })?.1,
            let stored = storedValues[name]
        else { return nil }
        if let special = try? ValueDecoder.decodeSpecial(Value.self, from: stored, codingPath: []) { return special }
        return try? ValueDecoder.decode(Value.self, from: stored)
    }

    /// The names of the properties recorded.
    public var propertyNames: [String] { storedValues.keys.sorted() }
}

/// A history change is identified by its model and its transaction: equal and hashed by those.
public protocol HistoryChangeIdentity: Hashable {
    /// The identifier of the changed model.
    var changedPersistentIdentifier: PersistentIdentifier { get }
    /// The number of the transaction the change belongs to.
    var transactionIdentifier: UInt64 { get }
}

extension HistoryChangeIdentity {
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.changedPersistentIdentifier == rhs.changedPersistentIdentifier && lhs.transactionIdentifier == rhs.transactionIdentifier
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(changedPersistentIdentifier)
        hasher.combine(transactionIdentifier)
    }
}

/// An inserted model of type `Model`.
public struct DefaultHistoryInsert<Model: PersistentModel>: HistoryInsert, HistoryChangeIdentity {
    /// The model the change is about.
    public let changedPersistentIdentifier: PersistentIdentifier
    /// The change's number within its transaction, from 1.
    public let changeIdentifier: Int
    /// The transaction's sequence number.
    public let transactionIdentifier: UInt64
    /// All the values the model was inserted with.
    public let values: HistoryValues<Model>
}

/// An updated model of type `Model`.
public struct DefaultHistoryUpdate<Model: PersistentModel>: HistoryUpdate, HistoryChangeIdentity {
    /// The model the change is about.
    public let changedPersistentIdentifier: PersistentIdentifier
    /// The change's number within its transaction, from 1.
    public let changeIdentifier: Int
    /// The transaction's sequence number.
    public let transactionIdentifier: UInt64
    /// The key paths of the attributes that changed.
    public let updatedAttributes: [any PartialKeyPath<Model> & Sendable]
    /// The new values of the changed attributes (Folio only).
    public let changedValues: HistoryValues<Model>
}

/// A deleted model of type `Model`.
public struct DefaultHistoryDelete<Model: PersistentModel>: HistoryDelete, HistoryChangeIdentity {
    /// The model the change is about.
    public let changedPersistentIdentifier: PersistentIdentifier
    /// The change's number within its transaction, from 1.
    public let changeIdentifier: Int
    /// The transaction's sequence number.
    public let transactionIdentifier: UInt64
    /// The values of the model's `.preserveValueOnDeletion` attributes.
    public let tombstone: HistoryTombstone<Model>
}

/// The preserved values of a deleted model, by key path.
public struct HistoryTombstone<Model: PersistentModel>: Sendable, Sequence {
    let values: HistoryValues<Model>

    /// The preserved value of a property, if it was preserved.
    public subscript(keyPath: PartialKeyPath<Model>) -> (any Sendable)? {
        guard let name = Model._folioKeyPathTable.first(where: { $0.0 == keyPath })?.1,
            let stored = values.storedValues[name],
            let metadata = Model.schemaMetadataIncludingInherited.first(where: { $0.name == name }),
            let decodable = metadata.valueType as? any Decodable.Type
        else { return nil }
        guard let decoded = try? ValueDecoder.decode(decodable, from: stored) else { return nil }
        // A freshly decoded value is owned by no one else; `any Sendable` has the layout of `Any`.
        return unsafeBitCast(decoded as Any, to: (any Sendable).self)
    }

    /// The value of a property, typed.
    public func value<Value: Decodable>(for keyPath: KeyPath<Model, Value>) -> Value? {
        values.value(for: keyPath)
    }

    /// The preserved properties and their stored values.
    public func makeIterator() -> Dictionary<String, JSONValue>.Iterator {
        values.storedValues.makeIterator()
    }
}

extension PersistentModel {
    /// The metadata of this class's persisted properties and its superclasses'.
    static var schemaMetadataIncludingInherited: [Schema.PropertyMetadata] {
        var metadata: [Schema.PropertyMetadata] = []
        var current: (any PersistentModel.Type)? = Self.self
        while let type = current {
            metadata = type.schemaMetadata + metadata
            current = type._folioSuperclass
        }
        return metadata
    }
}
