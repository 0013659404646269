@_spi(FolioEngine) import FolioStorage

/// Runs a ``PhysicalPlan`` over the container's index, with the context's unsaved changes overlaid:
/// finds the candidates its access path names, filters, sorts and windows them.
///
/// Unsaved rows and models are found by identifier in the ``PendingOverlay``, never by a search of the
/// context's lists. Models are made only where the plan filters or sorts on models.
struct QueryExecutor {
    let plan: PhysicalPlan
    let context: ModelContext
    let index: RecordIndex
    let overlay: PendingOverlay
    /// How the pending changes were read, for tests.
    let statistics = Statistics()

    /// Counts of the work done on pending changes.
    final class Statistics {
        /// Rows whose unsaved model was found in the overlay by identifier.
        var pendingModelLookups = 0
    }

    var query: LogicalQuery { plan.query }

    /// Must be made with the container's lock held and its index loaded, and run before it is released.
    ///
    /// - Throws: ``FolioError/Code/modelCoding`` when an unsaved model the plan overlays cannot be encoded.
    init(plan: PhysicalPlan, context: ModelContext, index: RecordIndex) throws {
        self.plan = plan
        self.context = context
        self.index = index
        overlay =
            plan.overlaysPendingChanges
            ? try PendingOverlay(context: context, entities: plan.query.entities, records: index.records) : PendingOverlay()
    }

    /// The rows that match, sorted and windowed.
    func run() throws -> [RowID] {
        let index = index
        let overlay = overlay
        let lookup: (Int64) -> (entity: String, values: RecordValues)? =
            overlay.isEmpty
            ? { id in index.records[id].map { ($0.entity, $0.values) } }
            : { id in
                if let row = overlay.rows[id] { return row }
                return index.records[id].map { ($0.entity, $0.values) }
            }
        let evaluator = QueryEvaluator(record: lookup, defaults: index.storedDefaults)
        let filter = query.filter

        var candidates: [RowID]
        /// The values of `candidates`, when a scan had them at hand (sorting then needs no lookups).
        var candidateValues: [RecordValues]? = nil
        /// The column table and rows of `candidates`, when a column scan found them.
        var columnRows: (table: ColumnTable, rows: [Int])? = nil
        var filtered = false
        switch plan.access {
        case .orderedWalk(let key, let limit):
            return window(try orderedWalk(key, filter: filter, evaluator: evaluator, limit: limit))
        case .index(_, let probe, let isExact):
            candidates = probeIndex(probe, field: indexedField)  // in increasing order
            // A lookup that answered the whole predicate: evaluating it again would only repeat it.
            filtered = isExact && overlay.isEmpty
        case .columnScan(let entity):
            if let filter,
                let scan = try columnScan(
                    filter, entity: entity, evaluator: evaluator,
                    inIdentifierOrder: query.sortKeys?.isEmpty ?? true)
            {
                // Sorting by keys works on the rows themselves and names the identifiers of the rows it
                // keeps; only other orders need every row's identifier now.
                let sortsRows = query.sortKeys.map { !$0.isEmpty } ?? false
                candidates = sortsRows ? [] : scan.rows.map { scan.table.ids[$0] }
                columnRows = (scan.table, scan.rows)
            } else {
                (candidates, candidateValues) = try recordScan(filter, evaluator: evaluator)
            }
            filtered = true
        case .recordScan:
            (candidates, candidateValues) = try recordScan(filter, evaluator: evaluator)
            filtered = true
        case .allIdentifiers:
            candidates = index.identifiers(of: query.entities)
        }
        if !overlay.isEmpty {
            candidates.removeAll { overlay.deleted.contains($0) }
            let present = Set(candidates)
            candidates += overlay.changedIDs.filter { !present.contains($0) && query.entities.contains(overlay.rows[$0]?.entity ?? "") }
            candidates += overlay.insertedIDs.filter { query.entities.contains(overlay.rows[$0]?.entity ?? "") }
        }

        // Filter.
        if filtered {
        } else if let filter {
            var slots: [QueryValue] = []
            candidates = try candidates.filter { id in
                guard let row = lookup(id) else { return false }
                return try passes(filter, evaluator, id: id, entity: row.entity, values: row.values, &slots)
            }
            RowOrder.sort(&candidates)
        } else if query.hasPredicate {
            RowOrder.sort(&candidates)
            candidates = try candidates.filter { id in
                guard let model = model(id) else { return false }
                return try query.evaluateOnModel(model)
            }
        } else {
            RowOrder.sort(&candidates)
        }

        // Sort.
        if let sortKeys = query.sortKeys {
            if !sortKeys.isEmpty {
                candidates = sortOnRecords(candidates, by: sortKeys, values: candidateValues, columnRows: columnRows, lookup: lookup)
            }
        } else {
            let models = candidates.compactMap { id in model(id).flatMap { query.isFetchedType($0) ? (id, $0) : nil } }
            let compare = query.compareModels
            let sorted = models.sorted { lhs, rhs in
                switch compare(lhs.1, rhs.1) {
                case .orderedAscending: return true
                case .orderedDescending: return false
                case .orderedSame: return RowOrder.precedes(lhs.0, rhs.0)
                }
            }
            candidates = sorted.map(\.0)
        }
        return window(candidates)
    }

    /// The field of the plan's index access.
    private var indexedField: String {
        if case .index(let field, _, _) = plan.access { return field }
        return ""
    }

    /// The model of a row: a stored record's instance, or an unsaved inserted model from the overlay.
    private func model(_ id: RowID) -> (any PersistentModel)? {
        if id >= 0 { return context.model(forRecordNumber: id) }
        statistics.pendingModelLookups += 1
        return overlay.insertedModels[id]
    }

    /// Tests the records in the index's own table, in its order, without a lookup each.
    private func recordScan(_ filter: QueryNode?, evaluator: QueryEvaluator) throws -> ([RowID], [RecordValues]?) {
        guard let filter else { return (index.identifiers(of: query.entities), nil) }
        var matches: [(id: RowID, values: RecordValues)] = []
        var slots: [QueryValue] = []
        try index.forEachRecord(of: query.entities) { id, entity, values in
            if try passes(filter, evaluator, id: id, entity: entity, values: values, &slots) { matches.append((id, values)) }
        }
        matches.sort { $0.id < $1.id }
        return (matches.map(\.id), matches.map(\.values))
    }

    /// Runs the leading conjuncts of `filter` that compare a number or date field with a constant over
    /// the entity's columns, and the rest on the records that pass them; nil if the first conjunct is not
    /// such a comparison or its field is not all numbers. Conjuncts are taken in their order, so a
    /// condition is only ever evaluated where the ones before it hold, as `&&` does.
    private func columnScan(
        _ filter: QueryNode, entity: String, evaluator: QueryEvaluator,
        inIdentifierOrder: Bool
    ) throws -> (table: ColumnTable, rows: [Int])? {
        let table = index.columnTable(for: entity)
        let all = filter.conjuncts
        var conditions: [(condition: ColumnCondition, column: [Double])] = []
        for conjunct in all {
            guard let condition = ColumnCondition(conjunct), let column = table.numbers(condition.field, condition.conversion) else { break }
            conditions.append((condition, column))
        }
        guard !conditions.isEmpty else { return nil }
        var rows = ColumnCondition.rows(passingAll: conditions)
        let rest = all.dropFirst(conditions.count)
        if let head = rest.first {
            let remaining = rest.dropFirst().reduce(head) { QueryNode.and($0, $1) }
            var slots: [QueryValue] = []
            rows = try rows.filter { row in
                try passes(remaining, evaluator, id: table.ids[row], entity: entity, values: table.values[row], &slots)
            }
        }
        if inIdentifierOrder {
            let ids = table.ids
            rows.sort { ids[$0] < ids[$1] }
        }
        return (table, rows)
    }

    /// Whether `filter` holds for a record; an evaluation error fails the fetch as `Predicate.evaluate` would.
    func passes(
        _ filter: QueryNode, _ evaluator: QueryEvaluator, id: Int64, entity: String, values: RecordValues,
        _ slots: inout [QueryValue]
    ) throws -> Bool {
        do {
            return try evaluator.truth(filter, id: id, entity: entity, values: values, &slots)
        } catch let error as QueryEvaluationError {
            throw FolioError(.invalidFetchDescriptor, "The predicate could not be evaluated: \(error)")
        }
    }

    private func window(_ rows: [RowID]) -> [RowID] {
        let offset = max(0, query.fetchOffset ?? 0)
        guard offset < rows.count else { return [] }
        if offset == 0, query.fetchLimit.map({ $0 < 0 || $0 >= rows.count }) ?? true {
            return rows  // the whole list: no copy of a list as long as the entity
        }
        var result = Array(rows[offset...])
        if let limit = query.fetchLimit, limit >= 0, result.count > limit {
            result.removeLast(result.count - limit)
        }
        return result
    }
}
