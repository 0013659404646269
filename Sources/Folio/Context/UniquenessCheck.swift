@_spi(FolioEngine) import FolioStorage

/// Checks that records changed in place (an update by predicate) leave no two records of an entity
/// family with the values of one `.unique` attribute or `#Unique` constraint.
///
/// Unlike an insert, which takes the place of the record it matches (an upsert), an update that makes
/// two records equal has no record to merge into: it is refused.
struct UniquenessCheck {
    private let updates: [SaveRecords.Update]
    /// The attributes the update sets.
    private let names: Set<String>
    private let entity: Schema.Entity
    private let index: RecordIndex

    init(updates: [SaveRecords.Update], names: Set<String>, entity: Schema.Entity, index: RecordIndex) {
        self.updates = updates
        self.names = names
        self.entity = entity
        self.index = index
    }

    /// - Throws: ``FolioError/Code/uniquenessViolation`` naming two records that would share values.
    /// - Complexity: O(*n*) for the *n* records of each entity whose constraints include a set attribute;
    ///   O(1) when there is none.
    func run() throws {
        let touched = constraintsTouched()
        guard !touched.isEmpty else { return }
        var changes: [Int64: RecordValues] = [:]
        changes.reserveCapacity(updates.count)
        for update in updates { changes[update.id] = update.values }
        for (owner, constraint) in touched {
            let family = Set(owner.selfAndDescendants.map(\.name))
            let fields = constraint.map { ($0, FieldTypes.conversion(of: owner, $0)) }
            var seen: [[QueryKey]: Int64] = [:]
            try index.records.forEachInNumberOrder(of: family) { id, entityName, values in
                let stored = StoredRow(entity: entityName, values: values, defaults: index.storedDefaults)
                let changed = changes[id]
                let key = fields.map { name, conversion in QueryKey(changed?[name] ?? stored[name], conversion) }
                if let other = seen.updateValue(id, forKey: key) {
                    throw violation(constraint, owner: owner, records: (other, id), values: fields.map { changed?[$0.0] ?? stored[$0.0] })
                }
            }
        }
    }

    /// The constraints of the entity, its ancestors and its descendants that include an attribute the
    /// update sets, each with the entity that declares it (whose family it covers).
    private func constraintsTouched() -> [(owner: Schema.Entity, constraint: [String])] {
        var root = entity
        while let parent = root.superentity { root = parent }
        var found: [(owner: Schema.Entity, constraint: [String])] = []
        for member in root.selfAndDescendants {
            let inherited = member.superentity?.uniquenessConstraints ?? []
            for constraint in member.uniquenessConstraints where !inherited.contains(constraint) {
                if constraint.contains(where: names.contains) { found.append((member, constraint)) }
            }
        }
        return found
    }

    private func violation(_ constraint: [String], owner: Schema.Entity, records: (Int64, Int64), values: [JSONValue?]) -> FolioError {
        let shown = values.map { $0.map { "\($0)" } ?? "nil" }.joined(separator: ", ")
        let what = constraint.count == 1 ? "the .unique attribute \(constraint[0])" : "the #Unique constraint (\(constraint.joined(separator: ", ")))"
        return FolioError(
            .uniquenessViolation,
            "The update would give \(owner.name) records \(records.0) and \(records.1) the same value of \(what): \(shown); nothing was written")
    }
}
