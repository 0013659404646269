extension JournalThreeWayMerge {
    /// A side's transaction in merge order.
    typealias SidedTransaction = (side: Int, transaction: JournalTransaction)

    /// The member name a conflict uses for a record that became another: no property can be named so.
    static let uniqueMergeMember = "#unique"

    /// Makes one record of two that the sides inserted with equal values of a uniqueness constraint
    /// (`.unique`, `#Unique`), as SwiftData's upsert would on one device: the later insert becomes an
    /// update of the earlier record, and every later reference to, update of and delete of the later
    /// record is one of the earlier record.
    ///
    /// Recorded as conflicts on the later insert's line: each value of the earlier record that the
    /// later insert replaced, and the identifier that no longer exists (member ``uniqueMergeMember``,
    /// `kept` the identifier that remains). A constraint with a missing or null value never collides.
    /// Only the values the records were inserted with are compared, and only records of one entity merge.
    static func mergeUniqueInserts(_ merged: inout [SidedTransaction], schema: MergeSchema, conflicts: inout [Int: [MergeConflict]]) {
        var holders: [String: (id: Int64, side: Int, entity: String)] = [:]
        var into: [Int64: Int64] = [:]
        let writer = CanonicalJSONWriter()
        var constraints: [String: [(owner: String, members: [String])]] = [:]
        for (side, transaction) in merged {
            for record in transaction.inserted where into[record.id] == nil {
                let groups = constraints[record.entity] ?? schema.uniqueness(of: record.entity)
                constraints[record.entity] = groups
                for (owner, members) in groups {
                    let values = members.map { record.values[$0] ?? .null }
                    guard !values.contains(where: \.isNull), let text = try? writer.string(.array(values)) else { continue }
                    let key = "\(owner)\u{0}\(members.joined(separator: ","))\u{0}\(text)"
                    guard let holder = holders[key] else {
                        holders[key] = (record.id, side, record.entity)
                        continue
                    }
                    // Records of two entities (a subentity's and its superentity's) cannot be one record:
                    // that collision is left for `folio verify` to report.
                    if holder.side != side && holder.id != record.id && holder.entity == record.entity {
                        into[record.id] = into[holder.id] ?? holder.id
                        break
                    }
                }
            }
        }
        guard !into.isEmpty else { return }

        // The current values of each surviving record, and the transaction that wrote each.
        var current: [Int64: (entity: String, values: [String: JSONValue], writers: [String: String])] = [:]
        let survivors = Set(into.values)
        let renumbering = IdentifierRenumbering(mapping: into)
        for position in merged.indices {
            var transaction = merged[position].transaction
            var turned: [StoredRecord] = []
            transaction.inserted.removeAll { record in
                guard let survivor = into[record.id] else { return false }
                let existing = current[survivor] ?? (record.entity, [:], [:])
                var changes: [String: JSONValue] = [:]
                for (member, value) in record.values.dictionary where existing.values[member] != value {
                    changes[member] = value
                    if let old = existing.values[member] {
                        conflicts[position, default: []].append(
                            MergeConflict(
                                entity: existing.entity, id: survivor, member: member, kept: value, lost: old,
                                lostTransaction: existing.writers[member] ?? transaction.transactionID))
                    }
                }
                conflicts[position, default: []].append(
                    MergeConflict(
                        entity: record.entity, id: record.id, member: uniqueMergeMember, kept: .int(survivor), lost: .int(record.id),
                        lostTransaction: transaction.transactionID))
                turned.append(StoredRecord(entity: existing.entity, id: survivor, values: RecordValues(changes)))
                return true
            }
            transaction.updated += turned
            renumbering.rewrite(&transaction, schema: schema)
            for record in transaction.inserted where survivors.contains(record.id) {
                current[record.id] = (record.entity, record.values.dictionary, record.values.dictionary.mapValues { _ in transaction.transactionID })
            }
            for record in transaction.updated where current[record.id] != nil {
                for (member, value) in record.values.dictionary {
                    current[record.id]?.values[member] = value
                    current[record.id]?.writers[member] = transaction.transactionID
                }
            }
            merged[position].transaction = transaction
        }
    }
}
