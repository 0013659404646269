@_spi(FolioEngine) import FolioStorage

/// Finds, for each model a save inserts, the stored record with the same unique values, if any (the
/// record the insert updates instead: SwiftData's upsert).
///
/// It reads only the models' values, read from them on the saving thread beforehand, and the
/// container's index, which nothing changes while the save holds the container's lock, so a large save
/// splits the models into runs checked on separate threads.
// Unchecked: its plans hold the index's FieldIndexes (not Sendable), which its runs only read, under the container's lock.
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

    private let records: [RecordValues?]
    private let plans: [Plan]
    private let planOfModel: [Int?]
    private let index: RecordIndex

    /// - Parameters:
    ///   - records: for each model, its stored values, or at least those its constraints compare (nil
    ///     for a model without constraints).
    ///   - planOfModel: for each model, the position of its entity's plan in `plans` (nil: no constraint).
    init(records: [RecordValues?], plans: [Plan], planOfModel: [Int?], index: RecordIndex) {
        self.records = records
        self.plans = plans
        self.planOfModel = planOfModel
        self.index = index
    }

    /// For each model, the number of the stored record it matches, or nil.
    func matches(threads: Int = ParallelRuns.processorCount) throws -> [Int64?] {
        let runs = try ParallelRuns.runs(count: records.count, threads: threads) { matches(in: $0) }
        return runs.count == 1 ? runs[0] : Array(runs.joined())
    }

    /// The matches of the models at `positions`, in order.
    ///
    /// The loops go plan by plan and constraint by constraint over the run's models, not model by
    /// model, so that what every thread shares (the plans, field names and indexes) is retained once
    /// per run instead of once per model: retaining the same object on two cores at once moves its
    /// cache line between them each time.
    private func matches(in positions: Range<Int>) -> [Int64?] {
        var found = [Int64?](repeating: nil, count: positions.count)
        for (planPosition, members) in membersByPlan(positions) {
            let plan = plans[planPosition]
            for constraint in plan.constraints {
                guard let first = constraint.fields.first else { continue }
                // The members no earlier constraint matched.
                let open = members.indices.filter { found[members[$0] - positions.lowerBound] == nil }
                if open.isEmpty { break }
                let keys = open.map { QueryKey(records[members[$0]]?[first.name], first.conversion) }
                var candidates = [[Int64]](repeating: [], count: open.count)
                for (entity, fieldIndex) in constraint.firstFieldIndexes {
                    if let fieldIndex {
                        for k in open.indices {
                            let ids = fieldIndex.lookup(keys[k])
                            if !ids.isEmpty { candidates[k].append(contentsOf: ids) }
                        }
                    } else {
                        // No index on the first field: one pass over the entity's records for the run.
                        var wanted: [QueryKey: [Int]] = [:]
                        for k in open.indices { wanted[keys[k], default: []].append(k) }
                        for id in index.idsByEntity[entity] ?? [] {
                            guard let entry = index.records[id],
                                let ks = wanted[
                                    QueryKey(
                                        StoredRow(entity: entry.entity, values: entry.values, defaults: index.storedDefaults)[first.name],
                                        first.conversion)]
                            else { continue }
                            for k in ks { candidates[k].append(id) }
                        }
                    }
                }
                // The common case, new values: no candidates, nothing to compare.
                for k in open.indices where !candidates[k].isEmpty {
                    let member = open[k]
                    let match = candidates[k].sorted().first { id in
                        guard let record = index.records[id] else { return false }
                        // A stored record written before a field existed reads the field's default.
                        let stored = StoredRow(entity: record.entity, values: record.values, defaults: index.storedDefaults)
                        return constraint.fields.allSatisfy { field in
                            QueryKey(stored[field.name], field.conversion)
                                == QueryKey(records[members[member]]?[field.name], field.conversion)
                        }
                    }
                    if let match { found[members[member] - positions.lowerBound] = match }
                }
            }
        }
        return found
    }

    /// The positions in `positions` of models with a constraint, grouped by their plan (in order of
    /// first appearance; a save's models are mostly of one entity).
    private func membersByPlan(_ positions: Range<Int>) -> [(plan: Int, members: [Int])] {
        var groups: [(plan: Int, members: [Int])] = []
        for position in positions {
            guard let plan = planOfModel[position] else { continue }
            if let last = groups.indices.last, groups[last].plan == plan {
                groups[last].members.append(position)
            } else if let group = groups.firstIndex(where: { $0.plan == plan }) {
                groups[group].members.append(position)
            } else {
                groups.append((plan, [position]))
            }
        }
        return groups
    }
}
