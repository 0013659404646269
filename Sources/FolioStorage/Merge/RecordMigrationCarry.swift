/// The changes of one transaction written with an older schema, rewritten as a migration leaves
/// records: what replaying the migration after them would have done to the records they wrote.
enum RecordMigrationCarry {
    /// A value the migration dropped: a removed member's, or a member of a record of a removed entity.
    /// A delete of a removed entity's record is dropped with member ``deletedMember``.
    struct Drop: Equatable {
        var entity: String
        var id: Int64
        var member: String
        var value: JSONValue
        /// Whether the record went with its entity (rather than only the member).
        var withRecord: Bool
    }

    /// The member name a conflict uses for a delete that a migration dropped with its entity (the
    /// record may live on in a stage's copy): no property can be named so. `lost` is the tombstone.
    static let deletedMember = "#deleted"

    /// Rewrites `transaction`'s records through `migrations`, applied in order as a replay applies them:
    /// members removed, then renamed (all at once), records of a removed entity dropped. Tombstones are
    /// rewritten the same way, without noting what they lose (they keep values for history readers).
    ///
    /// - Returns: the values dropped, by record and member.
    static func carry(_ transaction: inout JournalTransaction, through migrations: [RecordMigration]) -> [Drop] {
        var dropped: [Drop] = []
        for migration in migrations where !migration.isEmpty {
            let entity = migration.entity
            guard transaction.entities.contains(entity) else { continue }
            if migration.removesEntity {
                for record in transaction.inserted + transaction.updated where record.entity == entity {
                    dropped += record.values.dictionary.sorted { $0.key < $1.key }.map {
                        Drop(entity: entity, id: record.id, member: $0.key, value: $0.value, withRecord: true)
                    }
                }
                for record in transaction.deleted where record.entity == entity {
                    dropped.append(Drop(entity: entity, id: record.id, member: deletedMember, value: .object(record.tombstone), withRecord: true))
                }
                transaction.inserted.removeAll { $0.entity == entity }
                transaction.updated.removeAll { $0.entity == entity }
                transaction.deleted.removeAll { $0.entity == entity }
                continue
            }
            let removed = Set(migration.removedMembers), renames = migration.renamedMembers.filter { $0.key != $0.value }
            func rewritten(_ values: [String: JSONValue], id: Int64, noting: Bool) -> [String: JSONValue] {
                var result: [String: JSONValue] = [:]
                var renamed: [String: JSONValue] = [:]
                for (member, value) in values.sorted(by: { $0.key < $1.key }) {
                    if removed.contains(member) {
                        if noting { dropped.append(Drop(entity: entity, id: id, member: member, value: value, withRecord: false)) }
                    } else if let new = renames[member] {
                        // As a replay does: the first old name (in sorted order) renamed onto a name wins.
                        if renamed[new] == nil { renamed[new] = value }
                    } else {
                        result[member] = value
                    }
                }
                return result.merging(renamed) { _, renamed in renamed }
            }
            func rewrite(_ records: inout [StoredRecord]) {
                for index in records.indices where records[index].entity == entity {
                    records[index].values = RecordValues(rewritten(records[index].values.dictionary, id: records[index].id, noting: true))
                }
            }
            rewrite(&transaction.inserted)
            rewrite(&transaction.updated)
            // An update left with no values changes nothing.
            transaction.updated.removeAll { $0.entity == entity && $0.values.isEmpty }
            for index in transaction.deleted.indices where transaction.deleted[index].entity == entity {
                transaction.deleted[index].tombstone = rewritten(
                    transaction.deleted[index].tombstone, id: transaction.deleted[index].id, noting: false)
            }
        }
        return dropped
    }
}

/// Records that two runs of one custom stage inserted, one on each side: a record a later run inserted
/// with the entity and values of one the earlier run inserted is that record (the stage copied the same
/// base record on both sides), and every later change of it by the later run's side applies to the
/// earlier run's record.
struct DuplicateStageInserts {
    /// By side: the identifiers of its run's records that are the earlier run's, mapped to those.
    private var mappings: [Int: [Int64: Int64]] = [:]
    /// The schema of the migrated store, which says which values are references.
    private var schema: MergeSchema?

    /// Takes out of `transaction` (`side`'s later run of the migration `earlier` made) the records
    /// `earlier` inserted too, matching each of `earlier`'s at most once, in identifier order.
    mutating func drop(from transaction: inout JournalTransaction, side: Int, sameAs earlier: JournalTransaction) {
        if schema == nil { schema = earlier.schema.flatMap { MergeSchema($0) } }
        var available = earlier.inserted
        var mapping = mappings[side] ?? [:]
        transaction.inserted.removeAll { record in
            let values = IdentifierRenumbering(mapping: mapping).rewritten(record, schema: schema).values
            guard let match = available.firstIndex(where: { $0.entity == record.entity && $0.values == values }) else { return false }
            mapping[record.id] = available[match].id
            available.remove(at: match)
            return true
        }
        mappings[side] = mapping
    }

    /// Rewrites `side`'s references to, updates of and deletes of the records ``drop(from:side:sameAs:)``
    /// matched, to the earlier run's.
    func rewrite(_ transaction: inout JournalTransaction, side: Int) {
        guard let mapping = mappings[side], !mapping.isEmpty else { return }
        IdentifierRenumbering(mapping: mapping).rewrite(&transaction, schema: schema)
    }
}
