@_spi(FolioEngine) import FolioStorage

/// How a fetch was carried out; tests and tools read it to see whether an index was used.
public struct QueryPlan: CustomStringConvertible, Sendable {
    /// How candidates were found.
    public enum Access: Equatable, Sendable {
        /// Every record of the entities was considered.
        case scan
        /// An index on the property gave the candidates (equality, `||` of equalities, or a range).
        case index(String)
        /// The sorted index on the property was walked in order until the limit was reached.
        case orderedIndex(String)
    }

    /// How candidates were found.
    public internal(set) var access: Access = .scan
    /// Whether the predicate was evaluated over stored records (true) or on models (false).
    public internal(set) var filtersRecords = true
    /// Whether the sort was done over stored records (true) or on models (false).
    public internal(set) var sortsRecords = true

    public var description: String {
        var parts: [String] = []
        switch access {
        case .scan: parts.append("scan")
        case .index(let name): parts.append("index on \(name)")
        case .orderedIndex(let name): parts.append("ordered index on \(name)")
        }
        parts.append(filtersRecords ? "filter records" : "filter models")
        parts.append(sortsRecords ? "sort records" : "sort models")
        return parts.joined(separator: ", ")
    }
}

/// A record or unsaved model a fetch found: a record number, or (negative) an unsaved model's number.
typealias RowID = Int64

/// Plans and runs fetches over the container's index, with the context's unsaved changes overlaid.
struct QueryPlanner<T: PersistentModel> {
    let context: ModelContext
    let descriptor: FetchDescriptor<T>
    private(set) var plan = QueryPlan()

    init(context: ModelContext, descriptor: FetchDescriptor<T>) {
        self.context = context
        self.descriptor = descriptor
    }

    /// The rows that match, sorted and windowed.
    mutating func run() throws -> [RowID] {
        let schema = context.schema
        guard let entity = schema.entitiesByName[T._folioEntityName] else {
            throw FolioError(.invalidFetchDescriptor, "\(T.self) is not in the container's schema; add it to the ModelContainer")
        }
        let entities = Set(entity.selfAndDescendants.map(\.name))

        let index = try context.container.index
        let overlay = descriptor.includePendingChanges ? PendingOverlay(context: context, entities: entities) : PendingOverlay()
        let lookup: (Int64) -> (entity: String, values: RecordValues)? = overlay.isEmpty
            ? { id in index.records[id].map { ($0.entity, $0.values) } }
            : { id in
                if let row = overlay.rows[id] { return row }
                return index.records[id].map { ($0.entity, $0.values) }
            }
        let evaluator = QueryEvaluator(record: lookup)

        // Translate what can be evaluated over records.
        var translation = TranslationContext(schema: schema)
        var filter: QueryNode?
        if let predicate = descriptor.predicate {
            if let translatable = predicate.expression as? any QueryTranslatable {
                filter = try? translatable.translate(&translation)
            }
            plan.filtersRecords = filter != nil
        }
        let sortKeys = try translateSort()
        plan.sortsRecords = descriptor.sortBy.isEmpty || sortKeys != nil
        // A translated predicate or sort only names stored properties that are not `.codable` (the
        // translator refuses the rest), so only untranslated ones need the check that nothing reaches
        // inside an opaque value; it reflects over the expression tree, which costs more than a fetch.
        if let predicate = descriptor.predicate, filter == nil {
            try OpaqueAttributeCheck.check(predicateExpression: predicate.expression, schema: schema)
        }
        if sortKeys == nil {
            for sort in descriptor.sortBy {
                if let keyPath = sort.keyPath { try OpaqueAttributeCheck.check(sortKeyPath: keyPath, schema: schema) }
            }
        }

        // Top-k from a sorted index: one sort key with an index, everything else on records.
        if let sortKeys, sortKeys.count == 1, let limit = descriptor.fetchLimit, descriptor.predicate == nil || filter != nil,
           overlay.isEmpty, let walked = try topK(sortKeys[0], entities: entities, filter: filter, evaluator: evaluator,
                                                   limit: limit + (descriptor.fetchOffset ?? 0)) {
            plan.access = .orderedIndex(sortKeys[0].name)
            return window(walked)
        }

        // Candidates.
        var candidates: [RowID]
        /// The values of `candidates`, when a scan had them at hand (sorting then needs no lookups).
        var candidateValues: [RecordValues]? = nil
        /// The column table and rows of `candidates`, when a column scan found them.
        var columnRows: (table: ColumnTable, rows: [Int])? = nil
        var filtered = false
        if let filter, let fromIndex = indexCandidates(filter, entities: entities) {
            candidates = fromIndex.ids  // in increasing order
            plan.access = .index(fromIndex.field)
            if fromIndex.isExact && overlay.isEmpty {
                // The lookup answered the whole predicate: evaluating it again would only repeat it.
                filtered = true
            }
        } else if let filter, overlay.isEmpty, entities.count == 1, let only = entities.first,
                  let scan = try columnScan(filter, entity: only, evaluator: evaluator, inIdentifierOrder: sortKeys?.isEmpty ?? true) {
            // A scan whose predicate starts with comparisons of numbers or dates: run them over columns.
            // Sorting by keys works on the rows themselves and names the identifiers of the rows it
            // keeps; only other orders need every row's identifier now.
            let sortsRows = sortKeys.map { !$0.isEmpty } ?? false
            candidates = sortsRows ? [] : scan.rows.map { scan.table.ids[$0] }
            columnRows = (scan.table, scan.rows)
            filtered = true
        } else if let filter, overlay.isEmpty {
            // A scan: test the records in the index's own table, in its order, without a lookup each.
            var matches: [(id: RowID, values: RecordValues)] = []
            var slots: [QueryValue] = []
            try index.forEachRecord(of: entities) { id, entity, values in
                if try passes(filter, evaluator, id: id, entity: entity, values: values, &slots) { matches.append((id, values)) }
            }
            matches.sort { $0.id < $1.id }
            candidates = matches.map(\.id)
            candidateValues = matches.map(\.values)
            filtered = true
        } else {
            candidates = index.identifiers(of: entities)
        }
        if !overlay.isEmpty {
            candidates.removeAll { overlay.deleted.contains($0) }
            let present = Set(candidates)
            candidates += overlay.changedIDs.filter { !present.contains($0) && entities.contains(overlay.rows[$0]?.entity ?? "") }
            candidates += overlay.insertedIDs.filter { entities.contains(overlay.rows[$0]?.entity ?? "") }
        }

        // Filter.
        if filtered {
        } else if let filter {
            var slots: [QueryValue] = []
            candidates = try candidates.filter { id in
                guard let row = lookup(id) else { return false }
                return try passes(filter, evaluator, id: id, entity: row.entity, values: row.values, &slots)
            }
            candidates.sort()
        } else if let predicate = descriptor.predicate {
            candidates.sort()
            candidates = try candidates.filter { id in
                guard let model = context.row(id) as? T else { return false }
                return try predicate.evaluate(model)
            }
        } else {
            candidates.sort()
        }

        // Sort.
        if let sortKeys {
            if !sortKeys.isEmpty {
                let forward = sortKeys.map(\.forward)
                let wanted = descriptor.fetchLimit.map { $0 + max(0, descriptor.fetchOffset ?? 0) }
                let columns = columnRows.map { table, _ in
                    sortKeys.map { key in
                        key.conversion == .date || key.conversion == .plain ? table.numbers(key.name, key.conversion) : nil
                    }
                }
                if let (table, rows) = columnRows, let columns = columns?.compactMap({ $0 }), columns.count == sortKeys.count {
                    // Every sort key is a column: compare numbers in place (no per-row key arrays).
                    let ids = table.ids
                    if columns.count == 1, let column = columns.first, let ascending = forward.first {
                        candidates = Self.first(wanted, of: rows) { a, b in
                            let x = column[a], y = column[b]
                            if x == y { return ids[a] < ids[b] }
                            return ascending ? x < y : y < x
                        }.map { ids[$0] }
                    } else {
                        candidates = Self.first(wanted, of: rows) { a, b in
                            for position in columns.indices {
                                let x = columns[position][a], y = columns[position][b]
                                if x == y { continue }
                                return forward[position] ? x < y : y < x
                            }
                            return ids[a] < ids[b]
                        }.map { ids[$0] }
                    }
                } else {
                    let keyed: [(id: RowID, keys: [QueryValue])]
                    if let (table, rows) = columnRows {
                        keyed = rows.map { row in
                            (table.ids[row], sortKeys.map { key in QueryValue(stored: table.values[row][key.name], conversion: key.conversion) })
                        }
                    } else if let candidateValues {
                        keyed = zip(candidates, candidateValues).map { id, values in
                            (id, sortKeys.map { key in QueryValue(stored: values[key.name], conversion: key.conversion) })
                        }
                    } else {
                        keyed = candidates.map { id in
                            (id, sortKeys.map { key in QueryValue(stored: lookup(id)?.values[key.name], conversion: key.conversion) })
                        }
                    }
                    func precedes(_ lhs: (id: RowID, keys: [QueryValue]), _ rhs: (id: RowID, keys: [QueryValue])) -> Bool {
                        for position in 0..<forward.count {
                            let a = lhs.keys[position]
                            let b = rhs.keys[position]
                            if QueryValue.equal(a, b) { continue }
                            let ascending = SortKey.ascending(a, b)
                            return forward[position] ? ascending : !ascending
                        }
                        return lhs.id < rhs.id
                    }
                    candidates = Self.first(wanted, of: keyed, by: precedes).map(\.id)
                }
            }
        } else {
            let models = candidates.compactMap { id in (context.row(id) as? T).map { (id, $0) } }
            let sorted = models.sorted { lhs, rhs in
                for sort in descriptor.sortBy {
                    switch sort.compare(lhs.1, rhs.1) {
                    case .orderedAscending: return true
                    case .orderedDescending: return false
                    case .orderedSame: continue
                    }
                }
                return lhs.0 < rhs.0
            }
            candidates = sorted.map(\.0)
        }
        return window(candidates)
    }

    /// The first `wanted` elements in the order `precedes` gives (all of them, sorted, when `wanted` is
    /// nil or not much smaller): a top-k selection, O(n log k), when a limit makes it worthwhile.
    private static func first<Element>(_ wanted: Int?, of elements: [Element], by precedes: (Element, Element) -> Bool) -> [Element] {
        guard let wanted, wanted < elements.count / 4 else { return elements.sorted(by: precedes) }
        var top: [Element] = []
        top.reserveCapacity(wanted + 1)
        for element in elements {
            // Indexing, not `top.last`: `last` is not specialized here.
            if top.count == wanted, wanted > 0, !precedes(element, top[wanted - 1]) { continue }
            var low = 0
            var high = top.count
            while low < high {
                let middle = (low + high) / 2
                if precedes(top[middle], element) { low = middle + 1 } else { high = middle }
            }
            top.insert(element, at: low)
            if top.count > wanted { top.removeLast() }
        }
        return top
    }

    /// Runs the leading conjuncts of `filter` that compare a number or date field with a constant over
    /// the entity's columns, and the rest on the records that pass them; nil if the first conjunct is not
    /// such a comparison or its field is not all numbers. Conjuncts are taken in their order, so a
    /// condition is only ever evaluated where the ones before it hold, as `&&` does.
    private func columnScan(_ filter: QueryNode, entity: String, evaluator: QueryEvaluator,
                            inIdentifierOrder: Bool) throws -> (table: ColumnTable, rows: [Int])? {
        let table = try context.container.index.columnTable(for: entity)
        let all = conjuncts(filter)
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
    private func passes(_ filter: QueryNode, _ evaluator: QueryEvaluator, id: Int64, entity: String, values: RecordValues,
                        _ slots: inout [QueryValue]) throws -> Bool {
        do {
            return try evaluator.truth(filter, id: id, entity: entity, values: values, &slots)
        } catch let error as QueryEvaluationError {
            throw FolioError(.invalidFetchDescriptor, "The predicate could not be evaluated: \(error)")
        }
    }

    private func window(_ rows: [RowID]) -> [RowID] {
        let offset = max(0, descriptor.fetchOffset ?? 0)
        guard offset < rows.count else { return [] }
        if offset == 0, descriptor.fetchLimit.map({ $0 < 0 || $0 >= rows.count }) ?? true {
            return rows  // the whole list: no copy of a list as long as the entity
        }
        var result = Array(rows[offset...])
        if let limit = descriptor.fetchLimit, limit >= 0, result.count > limit {
            result.removeLast(result.count - limit)
        }
        return result
    }

    /// A sort descriptor as a stored field, or nil when some descriptor cannot be done over records.
    struct SortKey {
        var name: String
        var conversion: FieldConversion
        var forward: Bool

        /// Foundation's order: nil first, then values in ascending order.
        static func ascending(_ a: QueryValue, _ b: QueryValue) -> Bool {
            if a.isNull { return !b.isNull }
            if b.isNull { return false }
            return QueryValue.less(a, b, strings: .standard) ?? false
        }
    }

    private func translateSort() throws -> [SortKey]? {
        var keys: [SortKey] = []
        var translation = TranslationContext(schema: context.schema)
        for sort in descriptor.sortBy {
            guard let keyPath = sort.keyPath, let (name, conversion) = try? translation.field(of: T.self, keyPath: keyPath) else {
                return nil
            }
            if conversion == .toOne || conversion == .toMany { return nil }
            keys.append(SortKey(name: name, conversion: conversion, forward: sort.order == .forward))
        }
        return keys
    }

    /// Walks a sorted index in order, keeping rows of the entities that pass the filter, until `limit`.
    private func topK(_ key: SortKey, entities: Set<String>, filter: QueryNode?, evaluator: QueryEvaluator,
                      limit: Int) throws -> [RowID]? {
        let index = try context.container.index
        var lists: [[(key: QueryKey, id: Int64)]] = []
        for entity in entities {
            guard let entries = index.sortedEntries(entity, key.name) else { return nil }
            lists.append(entries)
        }
        // Merge the entities' indexes; with one entity this is the index itself.
        var merged = lists.count == 1 ? lists[0] : lists.flatMap { $0 }
        if lists.count > 1 { merged.sort { $0.key < $1.key || ($0.key == $1.key && $0.id < $1.id) } }
        var result: [RowID] = []
        var slots: [QueryValue] = []
        // A filter made only of comparisons of numbers or dates with constants is tested on the stored
        // numbers directly; the evaluator decides wherever a value is not a number.
        var numericConditions: [ColumnCondition]? = nil
        if let filter {
            let parts = conjuncts(filter)
            let conditions = parts.compactMap(ColumnCondition.init)
            if conditions.count == parts.count { numericConditions = conditions }
        }
        func consider(_ id: Int64) throws -> Bool {
            if let filter {
                guard let row = index.records[id] else { return false }
                if let numericConditions, let holds = ColumnCondition.allHold(numericConditions, in: row.values) {
                    guard holds else { return false }
                } else if !(try passes(filter, evaluator, id: id, entity: row.entity, values: row.values, &slots)) {
                    return false
                }
            }
            result.append(id)
            return result.count >= limit
        }
        if key.forward {
            var position = 0
            while position < merged.count {
                // Rows with equal keys come out in record order.
                if try consider(merged[position].id) { break }
                position += 1
            }
        } else {
            var end = merged.count
            while end > 0 {
                var start = end - 1
                while start > 0 && merged[start - 1].key == merged[end - 1].key { start -= 1 }
                var done = false
                for position in start..<end where try consider(merged[position].id) {
                    done = true
                    break
                }
                if done { break }
                end = start
            }
        }
        return result
    }

    /// Candidates from an index for a top-level conjunct: equality, `||` of equalities on one field,
    /// or a range. Picks the smallest set found.
    /// - Returns: the candidates in increasing order, the indexed field, and whether they are exactly the
    ///   records the whole predicate selects (it is one equality or `IN` list of plain values on a hash
    ///   index), so that evaluating it again on each of them would only repeat the lookup.
    private func indexCandidates(_ node: QueryNode, entities: Set<String>) -> (ids: [Int64], field: String, isExact: Bool)? {
        var best: (ids: [Int64], field: String, isExact: Bool)?
        let all = conjuncts(node)
        for conjunct in all {
            guard let found = candidates(for: conjunct, entities: entities) else { continue }
            if found.ids.count < (best?.ids.count ?? Int.max) { best = (found.ids, found.field, found.isExact && all.count == 1) }
        }
        return best
    }

    private func conjuncts(_ node: QueryNode) -> [QueryNode] {
        if case .and(let lhs, let rhs) = node { return conjuncts(lhs) + conjuncts(rhs) }
        return [node]
    }

    /// The candidates of one conjunct, in increasing order (each index keeps a key's identifiers in order,
    /// so an equality needs no sort).
    private func candidates(for node: QueryNode, entities: Set<String>) -> (ids: [Int64], field: String, isExact: Bool)? {
        let index = context.container.recordIndex  // loaded by run()
        switch node {
        case .equal(let lhs, let rhs):
            guard let (name, conversion, value) = fieldAndConstant(lhs, rhs) else { return nil }
            var ids: [Int64] = []
            for entity in entities {
                guard let found = index.lookup(entity, name, equalTo: QueryPlanner.key(value, conversion)) else { return nil }
                ids = ids.isEmpty ? Array(found) : .mergingSorted(ids, found)
            }
            return (ids, name, value.isPlainKey && conversion != .toOne)
        case .sequenceContains(.constant(let list), .field(.variable(0), let name, let conversion)) where conversion != .toMany:
            // `names.contains($0.destination)`: an IN list.
            let values: [QueryValue]
            switch list {
            case .array(let elements): values = elements
            case .json(.array(let elements)): values = elements.map { QueryValue(stored: $0, conversion: conversion) }
            default: return nil
            }
            var ids: [Int64] = []
            for entity in entities {
                for value in values {
                    guard let found = index.lookup(entity, name, equalTo: QueryPlanner.key(value, conversion)) else { return nil }
                    ids.append(contentsOf: found)
                }
            }
            // Each list is in order; together they need sorting, and a value listed twice repeats its records.
            ids.sort()
            var distinct: [Int64] = []
            distinct.reserveCapacity(ids.count)
            for id in ids where id != distinct.last { distinct.append(id) }
            return (distinct, name, values.allSatisfy(\.isPlainKey) && conversion != .toOne)
        case .or(let lhs, let rhs):
            guard let left = candidates(for: lhs, entities: entities), let right = candidates(for: rhs, entities: entities),
                  left.field == right.field else { return nil }
            return (.mergingSorted(left.ids, right.ids), left.field, left.isExact && right.isExact)
        case .compare(let lhs, let op, let rhs):
            var operation = op
            var pair = fieldAndConstant(lhs, rhs)
            if pair == nil, let flipped = fieldAndConstant(rhs, lhs) {
                pair = flipped
                switch op {
                case .less: operation = .greater
                case .lessOrEqual: operation = .greaterOrEqual
                case .greater: operation = .less
                case .greaterOrEqual: operation = .lessOrEqual
                }
            } else if case .field = rhs {
                return nil
            }
            guard let (name, conversion, value) = pair, !value.isNull else { return nil }
            let bound = QueryPlanner.key(value, conversion)
            var ids: [Int64] = []
            for entity in entities {
                guard let entries = index.sortedEntries(entity, name) else { return nil }
                // Binary search for the first entry not below the bound.
                func firstIndex(_ belongs: (QueryKey) -> Bool) -> Int {
                    var low = 0
                    var high = entries.count
                    while low < high {
                        let middle = (low + high) / 2
                        if belongs(entries[middle].key) { high = middle } else { low = middle + 1 }
                    }
                    return low
                }
                let range: Range<Int>
                switch operation {
                case .less: range = firstIndex { $0 == .null ? false : true } ..< firstIndex { !($0 < bound) }
                case .lessOrEqual: range = firstIndex { $0 == .null ? false : true } ..< firstIndex { bound < $0 }
                case .greater: range = firstIndex { bound < $0 } ..< entries.count
                case .greaterOrEqual: range = firstIndex { !($0 < bound) } ..< entries.count
                }
                if range.lowerBound < range.upperBound {
                    for position in range { ids.append(entries[position].id) }
                }
            }
            // Entries are in key order; each record has one, so sorting leaves no repeats.
            ids.sort()
            return (ids, name, false)
        default:
            return nil
        }
    }

    private func fieldAndConstant(_ lhs: QueryNode, _ rhs: QueryNode) -> (String, FieldConversion, QueryValue)? {
        if case .field(.variable(0), let name, let conversion) = lhs, case .constant(let value) = rhs {
            if conversion == .toMany { return nil }
            return (name, conversion, value)
        }
        if case .field(.variable(0), let name, let conversion) = rhs, case .constant(let value) = lhs {
            if conversion == .toMany { return nil }
            return (name, conversion, value)
        }
        return nil
    }

    /// The index key of a constant.
    static func key(_ value: QueryValue, _ conversion: FieldConversion) -> QueryKey {
        switch value {
        case .null: return .null
        case .bool(let bool): return .bool(bool)
        case .int(let int): return .int(int)
        case .double(let double): return .double(double)
        case .string(let string): return .string(string)
        case .date(let date): return .date(date)
        case .record(let id): return .int(id)
        case .json(let json): return .other(json)
        case .records, .array: return .other(.null)
        }
    }
}

/// The context's unsaved changes, as rows the planner can read alongside stored records.
struct PendingOverlay {
    var rows: [Int64: (entity: String, values: RecordValues)] = [:]
    var insertedIDs: [Int64] = []
    var changedIDs: [Int64] = []
    var deleted: Set<Int64> = []

    var isEmpty: Bool { rows.isEmpty && deleted.isEmpty }

    init() {}

    init(context: ModelContext, entities: Set<String>) {
        guard context.hasChanges else { return }
        let number: (AnyObject) throws -> Int64 = { object in
            guard let model = object as? any PersistentModel else { return 0 }
            return PendingOverlay.rowID(of: model)
        }
        for model in context.deletedModelsArray {
            if let id = model.persistentBackingData.storedRecordNumber { deleted.insert(id) }
        }
        for model in context.insertedModelsArray where entities.contains(type(of: model)._folioEntityName) {
            guard let values = try? ModelRecordCoding.encode(model, recordNumber: number) else { continue }
            let id = PendingOverlay.rowID(of: model)
            rows[id] = (type(of: model)._folioEntityName, values)
            insertedIDs.append(id)
        }
        for model in context.changedModelsArray where entities.contains(type(of: model)._folioEntityName) {
            let backing = model.persistentBackingData
            guard let id = backing.storedRecordNumber, let stored = context.container.recordIndex.records[id],
                  let changes = try? ModelRecordCoding.encode(model, onlyProperties: backing.changedProperties, recordNumber: number) else {
                continue
            }
            rows[id] = (stored.entity, stored.values.merging(changes))
            changedIDs.append(id)
        }
    }

    /// A saved model's record number, or the negated temporary number of an unsaved one.
    static func rowID(of model: any PersistentModel) -> Int64 {
        let id = model.persistentModelID
        return id.recordNumber ?? -Int64(truncatingIfNeeded: id.id.temporaryNumber ?? 0)
    }
}
