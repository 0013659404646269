/// The identity of a stored model: its entity name and an identifier unique within its store.
///
/// Identifiers are stable across processes and restarts: they are stored in the journal and the
/// snapshots, and the same record always has the same identifier. Before a model's first save its
/// identifier is temporary (``isTemporary``); the save replaces it with a permanent one, as in SwiftData.
///
/// Identifiers order by store, then entity name, then number; temporary ones after permanent ones. The
/// ``description`` reads `Recipe(12)`, or `Recipe(temporary 3)`.
public struct PersistentIdentifier: Hashable, Comparable, Codable, Sendable, CustomStringConvertible {
    /// The identifier's value inside its store.
    public struct ID: Hashable, Comparable, Codable, Sendable {
        /// The store-wide record number of a saved model.
        public let recordNumber: Int64?
        /// The process-local number of a model that has not been saved yet.
        public let temporaryNumber: UInt64?

        init(recordNumber: Int64) {
            self.recordNumber = recordNumber
            self.temporaryNumber = nil
        }

        init(temporaryNumber: UInt64) {
            self.recordNumber = nil
            self.temporaryNumber = temporaryNumber
        }

        public static func < (lhs: ID, rhs: ID) -> Bool {
            switch (lhs.recordNumber, rhs.recordNumber) {
            case let (left?, right?): return left < right
            case (.some, nil): return true
            case (nil, .some): return false
            case (nil, nil): return (lhs.temporaryNumber ?? 0) < (rhs.temporaryNumber ?? 0)
            }
        }
    }

    /// The name of the model's entity (its class name).
    public let entityName: String
    /// The identifier of the store the model lives in, or nil for a model that was never saved.
    public let storeIdentifier: String?
    /// The identifier within the store.
    public let id: ID

    /// Whether the model has not been saved yet.
    public var isTemporary: Bool { id.recordNumber == nil }

    /// The store-wide record number, for a saved model.
    public var recordNumber: Int64? { id.recordNumber }

    init(entityName: String, storeIdentifier: String?, recordNumber: Int64) {
        self.entityName = entityName
        self.storeIdentifier = storeIdentifier
        self.id = ID(recordNumber: recordNumber)
    }

    init(entityName: String, temporaryNumber: UInt64) {
        self.entityName = entityName
        self.storeIdentifier = nil
        self.id = ID(temporaryNumber: temporaryNumber)
    }

    public var description: String {
        if let number = id.recordNumber { return "\(entityName)(\(number))" }
        return "\(entityName)(temporary \(id.temporaryNumber ?? 0))"
    }

    public static func < (lhs: PersistentIdentifier, rhs: PersistentIdentifier) -> Bool {
        let leftStore = lhs.storeIdentifier ?? ""
        let rightStore = rhs.storeIdentifier ?? ""
        if leftStore != rightStore { return leftStore < rightStore }
        if lhs.entityName != rhs.entityName { return lhs.entityName < rhs.entityName }
        return lhs.id < rhs.id
    }
}
