extension JournalThreeWayMerge {
    /// Keeps the merged transactions' relationships whole, using the schema's relationships and inverses:
    ///
    /// - A to-many relationship both sides changed is merged as a set, not taken from the later write:
    ///   a member only one side's list holds stays unless the other side's last write of the member's
    ///   inverse no longer refers back (it removed the member), and when both sides wrote that inverse,
    ///   the later write decides. A list without an inverse keeps every member of both lists.
    /// - A reference to a record the merge deletes (the other side deleted it) is dropped: a to-one
    ///   becomes null, a to-many loses the identifier. Each drop is recorded as a conflict whose lost
    ///   value is the reference. The record that referred is kept, whatever the delete rule.
    ///
    /// Only the relationship values the merged transactions write are changed, on the line of their
    /// last write.
    static func mergeRelationships(
        _ transactions: inout [JournalTransaction], sides: [Int], schema: MergeSchema, conflicts: inout [Int: [MergeConflict]]
    ) {
        struct Key: Hashable, Comparable {
            var id: Int64
            var member: String
            static func < (a: Key, b: Key) -> Bool { (a.id, a.member) < (b.id, b.member) }
        }
        var deleted = Set<Int64>()
        var entityOf: [Int64: String] = [:]
        // Each side's last write of each relationship, and the last write of all.
        var last: [[Key: (position: Int, value: JSONValue)]] = [[:], [:]]
        var lastOfAll: [Key: (position: Int, value: JSONValue)] = [:]
        // Records come in runs of one entity: its relationships are looked up once per entity.
        var relationshipNames: [String: [String]] = [:]
        func note(_ record: StoredRecord, at position: Int) {
            let names = relationshipNames[record.entity] ?? schema.relationships(of: record.entity)
            relationshipNames[record.entity] = names
            guard !names.isEmpty else { return }
            entityOf[record.id] = record.entity
            for name in names {
                guard let value = record.values[name] else { continue }
                let key = Key(id: record.id, member: name)
                last[sides[position]][key] = (position, value)
                lastOfAll[key] = (position, value)
            }
        }
        for (position, transaction) in transactions.enumerated() {
            for record in transaction.deleted { deleted.insert(record.id) }
            for record in transaction.inserted { note(record, at: position) }
            for record in transaction.updated { note(record, at: position) }
        }
        func refers(_ value: JSONValue?, to target: Int64) -> Bool {
            switch value {
            case .int(let id)?: return id == target
            case .array(let items)?: return items.contains(.int(target))
            default: return false
            }
        }
        /// Whether `member`, in only one side's list of `owner`'s relationship, stays in the merged list.
        func keeps(_ member: Int64, of owner: Int64, inverse: String?, listedBy side: Int) -> Bool {
            guard let inverse else { return true }
            let key = Key(id: member, member: inverse)
            guard let without = last[1 - side][key], !refers(without.value, to: owner) else { return true }
            guard last[side][key] != nil else { return false }
            return refers(lastOfAll[key]?.value, to: owner)
        }

        var setMerged = Set<Key>()
        // The values to write, by position and record: applied in one pass over each transaction.
        var fixes: [Int: [Int64: [String: JSONValue]]] = [:]
        for key in lastOfAll.keys.sorted() where !deleted.contains(key.id) {
            guard let write = lastOfAll[key], let entity = entityOf[key.id],
                let relationship = schema.relationship(key.member, of: entity)
            else { continue }
            var value = write.value
            if relationship.isToMany {
                guard var members = value.arrayValue?.compactMap(\.intValue), members.count == value.arrayValue?.count else { continue }
                if let ours = last[0][key]?.value.arrayValue?.compactMap(\.intValue),
                    let theirs = last[1][key]?.value.arrayValue?.compactMap(\.intValue), ours != theirs
                {
                    let oursSet = Set(ours), theirsSet = Set(theirs)
                    var union = members
                    for list in [ours, theirs] { for member in list where !union.contains(member) { union.append(member) } }
                    members = union.filter { member in
                        if oursSet.contains(member) && theirsSet.contains(member) { return true }
                        return keeps(member, of: key.id, inverse: relationship.inverse, listedBy: oursSet.contains(member) ? 0 : 1)
                    }
                    setMerged.insert(key)
                }
                var seen = Set<Int64>()
                let kept = members.filter { !deleted.contains($0) && seen.insert($0).inserted }
                value = .array(kept.map { .int($0) })
                // A deleted member is a lost reference when a side added it (its inverse, written, refers
                // back; or there is no inverse to tell); one the list held before is not.
                let owner = key.id
                let added = members.filter(deleted.contains).contains { member in
                    guard let inverse = relationship.inverse else { return true }
                    let inverseKey = Key(id: member, member: inverse)
                    return (0...1).contains { refers(last[$0][inverseKey]?.value, to: owner) }
                }
                if added {
                    conflicts[write.position, default: []].append(
                        MergeConflict(
                            entity: entity, id: key.id, member: key.member, kept: value, lost: write.value,
                            lostTransaction: transactions[write.position].transactionID))
                }
            } else if case .int(let target) = value, deleted.contains(target) {
                value = .null
                conflicts[write.position, default: []].append(
                    MergeConflict(
                        entity: entity, id: key.id, member: key.member, kept: value, lost: write.value,
                        lostTransaction: transactions[write.position].transactionID))
            }
            if value != write.value { fixes[write.position, default: [:]][key.id, default: [:]][key.member] = value }
        }
        // Nothing of either list is lost to a later write: the set merge replaces that conflict.
        if !setMerged.isEmpty {
            for position in conflicts.keys {
                conflicts[position]?.removeAll { setMerged.contains(Key(id: $0.id, member: $0.member)) }
            }
        }
        for (position, records) in fixes {
            func fix(_ record: inout StoredRecord) {
                for (member, value) in records[record.id] ?? [:] { record.values[member] = value }
            }
            for index in transactions[position].inserted.indices { fix(&transactions[position].inserted[index]) }
            for index in transactions[position].updated.indices { fix(&transactions[position].updated[index]) }
        }
    }
}
