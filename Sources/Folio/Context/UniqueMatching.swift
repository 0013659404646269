@_spi(FolioEngine) import FolioStorage

/// Finds, for each model a save inserts, the stored record with the same unique values, if any (the
/// record the insert updates instead: SwiftData's upsert).
///
/// It only reads the models and the container's index, which nothing changes while the save holds the
/// container's lock, so a large save splits the models into runs checked on separate threads, as
/// ``InsertEncoding`` does.
final class UniqueMatching: @unchecked Sendable {
    /// One uniqueness constraint of an entity, as checking it needs it.
    struct Constraint {
        var fields: [(name: String, conversion: QueryKey.Conversion)]
        /// For each entity of the family, the index on the first field (nil: scan its records).
        var firstFieldIndexes: [(entity: String, index: FieldIndex?)]
    }

    /// What checking one entity's constraints needs, worked out once per save.
    struct Plan {
        var names: Set<String>
        var constraints: [Constraint]
    }

    private let models: [any PersistentModel]
    private let encoded: [RecordValues?]
    private let plans: [Plan]
    private let planOfModel: [Int?]
    private let index: RecordIndex

    /// - Parameters:
    ///   - encoded: for each model, its stored values if they were encoded already.
    ///   - planOfModel: for each model, the position of its entity's plan in `plans` (nil: no constraint).
    init(models: [any PersistentModel], encoded: [RecordValues?], plans: [Plan], planOfModel: [Int?], index: RecordIndex) {
        self.models = models
        self.encoded = encoded
        self.plans = plans
        self.planOfModel = planOfModel
        self.index = index
    }

    /// For each model, the number of the stored record it matches, or nil.
    func matches(threads: Int = ParallelRuns.processorCount) throws -> [Int64?] {
        try ParallelRuns.map(count: models.count, threads: threads) { try match($0) }
    }

    /// The record number of a related model that has one (-1 otherwise: a new model matches nothing).
    private static func storedRecordNumber(_ object: AnyObject) -> Int64 {
        (object as? any PersistentModel)?.persistentBackingData.storedRecordNumber ?? -1
    }

    private func match(_ position: Int) throws -> Int64? {
        guard let planPosition = planOfModel[position] else { return nil }
        let plan = plans[planPosition]
        let known = encoded[position]
        // Only a model not encoded yet (one with relationships) is read here; most are not touched.
        let properties = known == nil
            ? try ModelRecordCoding.encodedProperties(models[position], only: plan.names, recordNumber: Self.storedRecordNumber)
            : nil
        func value(_ name: String) -> JSONValue? {
            if let known { return known[name] }
            return properties.flatMap { properties in properties.names.firstIndex(of: name).map { properties.values[$0] } }
        }
        for constraint in plan.constraints {
            guard let first = constraint.fields.first else { continue }
            let key = QueryKey(value(first.name), first.conversion)
            var candidates: [Int64] = []
            for (name, fieldIndex) in constraint.firstFieldIndexes {
                if let fieldIndex {
                    let found = fieldIndex.lookup(key)
                    if !found.isEmpty { candidates.append(contentsOf: found) }
                } else {
                    for id in index.idsByEntity[name] ?? []
                    where QueryKey(index.records[id]?.values[first.name], first.conversion) == key {
                        candidates.append(id)
                    }
                }
            }
            // The common case, a new value: nothing to compare.
            if candidates.isEmpty { continue }
            let match = candidates.sorted().first { id in
                guard let record = index.records[id] else { return false }
                return constraint.fields.allSatisfy { field in
                    QueryKey(record.values[field.name], field.conversion) == QueryKey(value(field.name), field.conversion)
                }
            }
            if let match { return match }
        }
        return nil
    }
}
