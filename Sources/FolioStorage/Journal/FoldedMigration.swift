/// A schema migration that a compaction folded into the snapshots, as its compaction mark names it.
///
/// Git's merge driver sees one file at a time: once a clone that migrated compacts, its journal no
/// longer shows the migration line, and the other clone's transactions, written with the old schema,
/// could not be carried through it. The mark keeps what the driver needs (member `foldedMigrations`):
/// each migration line's `id`, `seq`, `migrate` and the checksum of its `schema`, for the migration
/// lines the store's retained history and the previous mark name, the newest ``limit``.
public struct FoldedMigration: Hashable, Sendable {
    /// The migration line's transaction identifier.
    public var transactionID: String
    /// Its sequence number, as the store that folded it numbered it.
    public var sequence: UInt64
    /// What it did to the records.
    public var migrations: [RecordMigration]
    /// The checksum its new schema records (`schema.checksum`), if it records one.
    public var schemaChecksum: String?

    /// The most a mark names: the newest, by sequence.
    static let limit = 16

    /// Creates the record of a folded migration line.
    public init(transactionID: String, sequence: UInt64, migrations: [RecordMigration], schemaChecksum: String?) {
        self.transactionID = transactionID
        self.sequence = sequence
        self.migrations = migrations
        self.schemaChecksum = schemaChecksum
    }

    /// The record of `transaction`, a migration line (nil for any other line).
    init?(_ transaction: JournalTransaction) {
        guard !transaction.writtenMigrations.isEmpty else { return nil }
        self.init(
            transactionID: transaction.transactionID, sequence: transaction.sequence, migrations: transaction.writtenMigrations,
            schemaChecksum: Self.checksum(of: transaction.schema))
    }

    /// The checksum member of a schema description, if it has one.
    static func checksum(of schema: JSONValue?) -> String? {
        guard case .object(let root)? = schema, case .string(let checksum)? = root["checksum"] else { return nil }
        return checksum
    }

    /// The migrations a compaction's mark names: those `earlier` (the previous mark's) names and the
    /// migration lines of `transactions`, each once, the newest ``limit`` by sequence.
    static func list(earlier: [FoldedMigration], transactions: [JournalTransaction]) -> [FoldedMigration] {
        var byID: [String: FoldedMigration] = [:]
        for migration in earlier + transactions.compactMap(FoldedMigration.init) { byID[migration.transactionID] = migration }
        let sorted = byID.values.sorted { ($0.sequence, $0.transactionID) < ($1.sequence, $1.transactionID) }
        return Array(sorted.suffix(limit))
    }

    func jsonValue() -> JSONValue {
        var members: [String: JSONValue] = [
            "id": .string(transactionID), "seq": .int(Int64(clamping: sequence)), "migrate": .array(migrations.map { $0.jsonValue() }),
        ]
        if let schemaChecksum { members["schema"] = .string(schemaChecksum) }
        return .object(members)
    }

    init(jsonValue value: JSONValue) throws {
        let shape = "{\"id\":…,\"migrate\":[…],\"schema\":checksum,\"seq\":N} (\"schema\" optional)"
        func bad() -> StorageError { StorageError(.malformedLine, "not a journal transaction: each of \"foldedMigrations\" must be \(shape)") }
        guard case .object(let members) = value, case .string(let id)? = members["id"], !id.isEmpty,
            case .int(let sequence)? = members["seq"], SequenceLimits.isValid(sequence),
            case .array(let elements)? = members["migrate"], !elements.isEmpty,
            members.keys.allSatisfy(["id", "seq", "migrate", "schema"].contains)
        else { throw bad() }
        var checksum: String? = nil
        if let schema = members["schema"] {
            guard case .string(let string) = schema, !string.isEmpty else { throw bad() }
            checksum = string
        }
        self.init(
            transactionID: id, sequence: UInt64(sequence), migrations: try elements.map { try RecordMigration(jsonValue: $0) },
            schemaChecksum: checksum)
    }
}
