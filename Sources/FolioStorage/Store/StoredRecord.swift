/// One record as the storage engine keeps it: an entity name, a store-wide identifier and its values.
///
/// Identifiers are unique across the whole store (one counter per store, not per entity) and never
/// reused, so a relationship can be stored as a plain identifier and resolved with
/// ``Store/record(id:)`` whatever the entity (a subclass entity included).
public struct StoredRecord: Hashable, Sendable {
    /// The entity (model type) name. Also the snapshot file name, so it is limited to
    /// ASCII letters, digits, `_`, `-` and `.` (see ``Store/isValidEntityName(_:)``).
    public var entity: String
    /// The store-wide identifier.
    public var id: Int64
    /// The values by property name. In an updated record: only the changed values.
    public var values: RecordValues

    /// Creates a record.
    public init(entity: String, id: Int64, values: consuming RecordValues) {
        self.entity = entity
        self.id = id
        self.values = values
    }

    /// Creates a record from a dictionary of values.
    @_disfavoredOverload
    public init(entity: String, id: Int64, values: [String: JSONValue]) {
        self.entity = entity
        self.id = id
        self.values = RecordValues(values)
    }
}

/// A deleted record in a committed transaction.
public struct DeletedRecord: Hashable, Sendable {
    /// The entity of the deleted record.
    public var entity: String
    /// Its identifier (never reused).
    public var id: Int64
    /// Values preserved for history readers (SwiftData's `preserveValueOnDeletion`); often empty.
    public var tombstone: [String: JSONValue]

    /// Creates a deleted-record entry.
    public init(entity: String, id: Int64, tombstone: [String: JSONValue] = [:]) {
        self.entity = entity
        self.id = id
        self.tombstone = tombstone
    }
}

/// Limits on identifiers, so that no counter arithmetic can overflow, whatever a file says.
/// The range of sequence numbers: 1…2^62-1, so that every sequence and its successor fit in `Int64`.
enum SequenceLimits {
    /// The largest sequence number a transaction may have.
    static let maximum = UInt64(Int64.max >> 1)
    /// Whether a sequence number read from a file (0 for "none yet" where `allowsZero`) is in range.
    static func isValid(_ sequence: Int64, allowsZero: Bool = false) -> Bool {
        sequence >= (allowsZero ? 0 : 1) && UInt64(sequence) <= maximum
    }
}

enum IdentifierLimits {
    /// The largest identifier a record may have (2^62 - 1).
    static let maximum: Int64 = Int64.max >> 1
    static func isValid(_ id: Int64) -> Bool { id >= 1 && id <= maximum }
    static func isValidCounter(_ next: Int64) -> Bool { next >= 1 && next <= maximum + 1 }
}
