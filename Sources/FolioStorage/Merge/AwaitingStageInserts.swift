/// The inserts of a side that did not run a migration which only a custom stage's code can carry into
/// the new schema, kept on their merged lines for the next open with the plan (``AwaitingStage``).
///
/// A record needs the stage when a migration its writer never ran removes its entity (a stage may copy
/// it under a new name), or removes a member the record holds that the migration's new schema still
/// declares (a stage converted the property's type). Its values are still listed as conflicts; the
/// record is kept as its writer last saved it: the same side's later updates of it are applied to the
/// kept copy, and its later delete takes it out.
struct AwaitingStageInserts {
    /// The records kept, by the position of the line that inserted them.
    private(set) var byPosition: [Int: AwaitingStage] = [:]
    /// For each side, the position each of its kept records is kept at, by identifier.
    private var kept: [[Int64: Int]] = [[:], [:]]

    /// Notes `transaction`, written by `side` at `position` before the merge carries it (in its writer's
    /// shape), which `migrations` (those its writer never ran, with their new schemas) will carry.
    ///
    /// - Parameters:
    ///   - from: the checksum of the schema its writer had; without one nothing is kept.
    ///   - to: the checksum of the first migration's schema.
    mutating func note(
        _ transaction: JournalTransaction, at position: Int, side: Int, migrations: [(migrations: [RecordMigration], schema: JSONValue?)],
        from: String?, to: String?
    ) {
        for record in transaction.updated {
            guard let at = kept[side][record.id], var awaiting = byPosition[at],
                let index = awaiting.inserted.firstIndex(where: { $0.id == record.id })
            else { continue }
            awaiting.inserted[index].values = awaiting.inserted[index].values.merging(record.values)
            byPosition[at] = awaiting
        }
        for record in transaction.deleted {
            guard let at = kept[side].removeValue(forKey: record.id) else { continue }
            byPosition[at]?.inserted.removeAll { $0.id == record.id }
            if byPosition[at]?.inserted.isEmpty == true { byPosition[at] = nil }
        }
        guard let from, let to, !migrations.isEmpty else { return }
        let needing = transaction.inserted.filter { Self.needsStage($0, migrations) }
        guard !needing.isEmpty else { return }
        var awaiting = byPosition[position] ?? AwaitingStage(fromChecksum: from, toChecksum: to, inserted: [])
        awaiting.inserted += needing
        awaiting.inserted.sort { $0.id < $1.id }
        byPosition[position] = awaiting
        for record in needing { kept[side][record.id] = position }
    }

    /// Whether only a custom stage carries `record` through `migrations`.
    static func needsStage(_ record: StoredRecord, _ migrations: [(migrations: [RecordMigration], schema: JSONValue?)]) -> Bool {
        for (recordMigrations, schema) in migrations {
            for migration in recordMigrations where migration.entity == record.entity {
                if migration.removesEntity { return true }
                let declared = declaredProperties(of: record.entity, in: schema)
                if migration.removedMembers.contains(where: { record.values[$0] != nil && declared.contains($0) }) { return true }
            }
        }
        return false
    }

    /// The property names a schema description declares for `entity` (empty when it records none).
    private static func declaredProperties(of entity: String, in schema: JSONValue?) -> Set<String> {
        guard case .object(let root)? = schema, case .object(let entities)? = root["entities"], case .object(let members)? = entities[entity],
            case .object(let properties)? = members["properties"]
        else { return [] }
        return Set(properties.keys)
    }
}
