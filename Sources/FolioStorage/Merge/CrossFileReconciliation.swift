/// The changes that make a store whole again after git merged two compacted copies of it.
///
/// Git merges each snapshot file on its own (``SnapshotMerge``), so what spans files is left as each
/// file's merge made it: a reference to a record the other side deleted, a record both sides moved to
/// different owners and now listed by both, two records the sides inserted with equal unique values.
/// ``ManifestMerge`` marks such a store (``Manifest/needsReconciliation``), and the store computes this
/// reconciliation on its records (snapshots and journal applied) with its schema's relationships:
///
/// 1. Records of one entity with equal values of a uniqueness constraint (`.unique`, `#Unique`) become
///    one, as SwiftData's upsert would: the record with the smaller identifier stays and takes the
///    other's values (a to-many relationship keeps both lists); the other is deleted, and references
///    to it refer to the one that stays. A constraint with a missing or null value never collides.
/// 2. A reference to a record that does not exist is dropped: a to-one becomes null, a to-many list
///    loses the identifier.
/// 3. Inverses are made to agree. A to-many list whose inverse is a to-one holds exactly the records
///    whose to-one refers to its owner: members that refer elsewhere are dropped, missing ones appended.
///    A many-to-many pair lists each other on both sides (what one side lists is added to the other).
///    A one-to-one reference whose target is paired with another record that refers back is cleared.
///
/// Every value dropped or replaced is a ``MergeConflict`` (a record that became another has member
/// ``JournalThreeWayMerge/uniqueMergeMember``), so nothing is lost silently. A value whose shape is not
/// a reference (a hand-edited file) is left for `folio verify` to report.
struct CrossFileReconciliation {
    /// The author of the transaction that commits a reconciliation.
    static let author = "folio merge"

    /// The records changed, each with only the members that change, by identifier.
    private(set) var updates: [Int64: (entity: String, values: [String: JSONValue])] = [:]
    /// The records deleted (those that became another of equal unique values), by identifier.
    private(set) var deletes: [DeletedRecord] = []
    /// The values not kept, in the order the rules found them.
    private(set) var conflicts: [MergeConflict] = []
    /// How many references rule 2 dropped, list entries rule 3 changed and records rule 1 merged.
    private(set) var counts = (danglingReferences: 0, inverseEntries: 0, mergedRecords: 0)

    var isEmpty: Bool { updates.isEmpty && deletes.isEmpty }

    /// Computes the reconciliation of `state` under `schema` (nothing when there is no schema).
    init(state: StoreState, schema: MergeSchema?) {
        guard let schema else { return }
        var work = Work(state: state, schema: schema)
        work.mergeUniqueRecords()
        work.dropDanglingReferences()
        work.reconcileInverses()
        self.conflicts = work.conflicts
        self.counts = work.counts
        for id in work.overlay.keys.sorted() where !work.removed.contains(id) {
            guard let entity = state.entity(ofRecord: id), let values = work.overlay[id] else { continue }
            let changed = values.filter { state.records[id]?.values[$0.key] != $0.value }
            if !changed.isEmpty { updates[id] = (entity, changed) }
        }
        deletes = work.removed.sorted().compactMap { id in state.entity(ofRecord: id).map { DeletedRecord(entity: $0, id: id, tombstone: [:]) } }
    }

    /// The reconciliation as a transaction's changes, in identifier order.
    var updatedRecords: [StoredRecord] {
        updates.keys.sorted().compactMap { id in updates[id].map { StoredRecord(entity: $0.entity, id: id, values: RecordValues($0.values)) } }
    }

    /// A short account of what the reconciliation changes, for warnings.
    var summary: String {
        var parts: [String] = []
        if counts.danglingReferences > 0 { parts.append("\(counts.danglingReferences) reference(s) to records that no longer exist") }
        if counts.inverseEntries > 0 { parts.append("\(counts.inverseEntries) relationship entries whose inverse disagreed") }
        if counts.mergedRecords > 0 { parts.append("\(counts.mergedRecords) record(s) with the unique values of another") }
        return parts.isEmpty ? "nothing to mend" : parts.joined(separator: ", ")
    }
}

extension CrossFileReconciliation {
    /// The records as the rules change them: the state, with the changed members on top.
    private struct Work {
        let state: StoreState
        let schema: MergeSchema
        var overlay: [Int64: [String: JSONValue]] = [:]
        var removed = Set<Int64>()
        /// The record each deleted record became.
        var into: [Int64: Int64] = [:]
        var conflicts: [MergeConflict] = []
        var counts = (danglingReferences: 0, inverseEntries: 0, mergedRecords: 0)
        private var relationshipsByEntity: [String: [(name: String, relationship: MergeSchema.Relationship)]] = [:]

        init(state: StoreState, schema: MergeSchema) {
            self.state = state
            self.schema = schema
        }

        func value(_ id: Int64, _ member: String) -> JSONValue? {
            if let changed = overlay[id]?[member] { return changed }
            return state.records[id]?.values[member]
        }

        func exists(_ id: Int64) -> Bool { state.records[id] != nil && !removed.contains(id) }

        mutating func set(_ id: Int64, _ member: String, _ value: JSONValue) {
            overlay[id, default: [:]][member] = value
        }

        mutating func relationships(of entity: String) -> [(name: String, relationship: MergeSchema.Relationship)] {
            if let known = relationshipsByEntity[entity] { return known }
            let found = schema.relationships(of: entity).compactMap { name in schema.relationship(name, of: entity).map { (name, $0) } }
            relationshipsByEntity[entity] = found
            return found
        }

        /// Every live record's identifier and entity, in identifier order.
        func records() -> [(id: Int64, entity: String)] {
            var result: [(id: Int64, entity: String)] = []
            state.forEachRecord { id, entity, _ in if !removed.contains(id) { result.append((id, entity)) } }
            return result
        }

        static func identifiers(_ value: JSONValue?) -> [Int64]? {
            guard case .array(let items)? = value else { return nil }
            let ids = items.compactMap(\.intValue)
            return ids.count == items.count ? ids : nil
        }

        // MARK: 1. Equal unique values

        mutating func mergeUniqueRecords() {
            var holders: [String: (id: Int64, entity: String)] = [:]
            let writer = CanonicalJSONWriter()
            var constraints: [String: [(owner: String, members: [String])]] = [:]
            for (id, entity) in records() {
                let groups = constraints[entity] ?? schema.uniqueness(of: entity)
                constraints[entity] = groups
                for (owner, members) in groups {
                    let values = members.map { value(id, $0) ?? .null }
                    guard !values.contains(where: \.isNull), let text = try? writer.string(.array(values)) else { continue }
                    let key = "\(owner)\u{0}\(members.joined(separator: ","))\u{0}\(text)"
                    guard let holder = holders[key] else {
                        holders[key] = (id, entity)
                        continue
                    }
                    // Records of a subentity and its superentity cannot be one record: `folio verify` reports them.
                    guard holder.entity == entity else { continue }
                    absorb(id, into: into[holder.id] ?? holder.id, entity: entity)
                    break
                }
            }
        }

        /// Makes `survivor` take `loser`'s values, as the later insert of an upsert, and deletes `loser`.
        private mutating func absorb(_ loser: Int64, into survivor: Int64, entity: String) {
            let toMany = Set(relationships(of: entity).filter(\.relationship.isToMany).map(\.name))
            for member in state.records[loser]?.values.keys ?? [] {
                guard let incoming = value(loser, member) else { continue }
                let existing = value(survivor, member)
                if toMany.contains(member), let mine = Self.identifiers(existing), let theirs = Self.identifiers(incoming) {
                    let union = mine + theirs.filter { !mine.contains($0) }
                    if union != mine { set(survivor, member, .array(union.map { .int($0) })) }
                    continue
                }
                guard existing != incoming else { continue }
                set(survivor, member, incoming)
                if let existing {
                    conflicts.append(MergeConflict(entity: entity, id: survivor, member: member, kept: incoming, lost: existing, lostTransaction: ""))
                }
            }
            conflicts.append(
                MergeConflict(
                    entity: entity, id: loser, member: JournalThreeWayMerge.uniqueMergeMember, kept: .int(survivor), lost: .int(loser),
                    lostTransaction: ""))
            into[loser] = survivor
            removed.insert(loser)
            counts.mergedRecords += 1
        }

        // MARK: 2. References to records that do not exist

        mutating func dropDanglingReferences() {
            for (id, entity) in records() {
                for (name, relationship) in relationships(of: entity) {
                    guard let current = value(id, name), !current.isNull else { continue }
                    if relationship.isToMany {
                        guard let targets = Self.identifiers(current) else { continue }
                        var kept: [Int64] = []
                        var dropped = 0
                        for target in targets {
                            let resolved = into[target] ?? target
                            if !exists(resolved) { dropped += 1 } else if !kept.contains(resolved) { kept.append(resolved) }
                        }
                        guard kept != targets else { continue }
                        let replacement = JSONValue.array(kept.map { .int($0) })
                        set(id, name, replacement)
                        if dropped > 0 {
                            counts.danglingReferences += dropped
                            conflicts.append(
                                MergeConflict(entity: entity, id: id, member: name, kept: replacement, lost: current, lostTransaction: ""))
                        }
                    } else {
                        guard case .int(let target) = current else { continue }
                        let resolved = into[target] ?? target
                        if !exists(resolved) {
                            set(id, name, .null)
                            counts.danglingReferences += 1
                            conflicts.append(MergeConflict(entity: entity, id: id, member: name, kept: .null, lost: current, lostTransaction: ""))
                        } else if resolved != target {
                            set(id, name, .int(resolved))
                        }
                    }
                }
            }
        }

        // MARK: 3. Inverses

        mutating func reconcileInverses() {
            struct Key: Hashable, Comparable {
                var id: Int64
                var member: String
                static func < (a: Key, b: Key) -> Bool { (a.id, a.member) < (b.id, b.member) }
            }
            var drops: [Key: Set<Int64>] = [:]
            var additions: [Key: [Int64]] = [:]
            var clears = Set<Key>()
            for (owner, entity) in records() {
                for (name, relationship) in relationships(of: entity) {
                    guard let inverse = relationship.inverse, let current = value(owner, name), !current.isNull else { continue }
                    let targets: [Int64]
                    if relationship.isToMany {
                        guard let ids = Self.identifiers(current) else { continue }
                        targets = ids
                    } else {
                        guard case .int(let id) = current else { continue }
                        targets = [id]
                    }
                    for target in targets where exists(target) {
                        guard let targetEntity = state.entity(ofRecord: target),
                            let back = schema.relationship(inverse, of: targetEntity),
                            let reverse = value(target, inverse)
                        else { continue }
                        switch (relationship.isToMany, back.isToMany) {
                        case (true, false):
                            if reverse != .int(owner) { drops[Key(id: owner, member: name), default: []].insert(target) }
                        case (_, true):
                            if let listed = Self.identifiers(reverse), !listed.contains(owner) {
                                additions[Key(id: target, member: inverse), default: []].append(owner)
                            }
                        case (false, false):
                            if case .int(let other) = reverse, other != owner, exists(other), value(other, name) == .int(target) {
                                clears.insert(Key(id: owner, member: name))
                            }
                        }
                    }
                }
            }
            for key in Set(drops.keys).union(additions.keys).sorted() {
                guard let entity = state.entity(ofRecord: key.id), let current = value(key.id, key.member),
                    let listed = Self.identifiers(current)
                else { continue }
                let dropped = drops[key] ?? []
                var kept = listed.filter { !dropped.contains($0) }
                for added in additions[key] ?? [] where !kept.contains(added) { kept.append(added) }
                guard kept != listed else { continue }
                let replacement = JSONValue.array(kept.map { .int($0) })
                set(key.id, key.member, replacement)
                counts.inverseEntries += dropped.count + (kept.count - (listed.count - dropped.count))
                if !dropped.isEmpty {
                    conflicts.append(
                        MergeConflict(entity: entity, id: key.id, member: key.member, kept: replacement, lost: current, lostTransaction: ""))
                }
            }
            for key in clears.sorted() {
                guard let entity = state.entity(ofRecord: key.id), let current = value(key.id, key.member) else { continue }
                set(key.id, key.member, .null)
                counts.inverseEntries += 1
                conflicts.append(MergeConflict(entity: entity, id: key.id, member: key.member, kept: .null, lost: current, lostTransaction: ""))
            }
        }
    }
}
