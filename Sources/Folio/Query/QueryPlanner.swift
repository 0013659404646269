/// A record or unsaved model a fetch found: a record number, or (negative) an unsaved model's number.
typealias RowID = Int64

/// The order of rows in a fetch without a sort, and of rows a sort leaves tied: stored records by
/// number, which is the order they were inserted in, then unsaved inserted models in the order they
/// were inserted, which is where their records go when they are saved.
enum RowOrder {
    /// Whether row `a` comes before row `b`.
    @inline(__always)
    static func precedes(_ a: RowID, _ b: RowID) -> Bool {
        key(a) < key(b)
    }

    /// Sorts rows into their order; plain number order when no row is an unsaved model.
    static func sort(_ rows: inout [RowID]) {
        if rows.contains(where: { $0 < 0 }) { rows.sort(by: precedes) } else { rows.sort() }
    }

    /// Record numbers are never negative; an unsaved model's row is its negated temporary number, which
    /// grows with each model made.
    @inline(__always)
    private static func key(_ row: RowID) -> UInt64 {
        row >= 0 ? UInt64(row) : (1 << 63) | row.magnitude
    }
}

/// A compiled query with the access path chosen for it: what ``QueryExecutor`` runs.
struct PhysicalPlan {
    var query: LogicalQuery
    var access: AccessPath
    /// Whether the context's unsaved changes touch the query's entities, so that the executor overlays
    /// them on the stored records (paths that read only the index's own tables are then not chosen).
    var overlaysPendingChanges: Bool

    /// The plan as ``ModelContext/queryPlan(for:)`` reports it.
    var reported: QueryPlan {
        var plan = QueryPlan()
        plan.access = access.reported
        plan.filtersRecords = !query.filtersModels
        plan.sortsRecords = query.sortKeys != nil
        return plan
    }
}

/// Chooses an access path for a ``LogicalQuery`` from the container's index: which indexes exist and
/// how many records their keys hold. It reads no record and evaluates nothing.
enum QueryPlanner {
    static func plan(_ query: LogicalQuery, index: RecordIndex, hasPendingChanges: Bool) -> PhysicalPlan {
        PhysicalPlan(
            query: query, access: access(for: query, index: index, hasPendingChanges: hasPendingChanges),
            overlaysPendingChanges: hasPendingChanges)
    }

    private static func access(for query: LogicalQuery, index: RecordIndex, hasPendingChanges: Bool) -> AccessPath {
        // Top-k from a sorted index: one sort key with an index, everything else on records.
        if let sortKeys = query.sortKeys, sortKeys.count == 1, let wanted = query.wanted, !query.filtersModels,
            !hasPendingChanges, query.entities.allSatisfy({ index.isIndexed($0, sortKeys[0].name) })
        {
            return .orderedWalk(sortKeys[0], limit: wanted)
        }
        guard let filter = query.filter else { return .allIdentifiers }
        if let chosen = indexProbe(filter, entities: query.entities, index: index) {
            return .index(field: chosen.field, probe: chosen.probe, isExact: chosen.isExact)
        }
        guard !hasPendingChanges else { return .allIdentifiers }
        if query.entities.count == 1, let only = query.entities.first, let first = filter.conjuncts.first,
            ColumnCondition(first) != nil
        {
            return .columnScan(entity: only)
        }
        return .recordScan
    }

    /// The index probe for the top-level conjunct with the fewest candidates, if any conjunct has one.
    /// `isExact` holds when the filter is that one conjunct and the probe is one equality or `IN` list of
    /// plain values, so that evaluating the filter again on each candidate would only repeat the lookup.
    private static func indexProbe(
        _ filter: QueryNode, entities: Set<String>,
        index: RecordIndex
    ) -> (field: String, probe: IndexProbe, isExact: Bool)? {
        var best: (field: String, probe: IndexProbe, isExact: Bool, count: Int)?
        let all = filter.conjuncts
        for conjunct in all {
            guard let found = probe(conjunct, entities: entities, index: index) else { continue }
            if found.count < (best?.count ?? Int.max) {
                best = (found.field, found.probe, found.isExact && all.count == 1, found.count)
            }
        }
        return best.map { ($0.field, $0.probe, $0.isExact) }
    }

    /// The probe that answers one conjunct on an index, with how many records it gives (for a union, at
    /// most that many); nil when the conjunct is not an equality, `IN` list, range or `||` of those on
    /// one indexed field of every entity.
    private static func probe(
        _ node: QueryNode, entities: Set<String>,
        index: RecordIndex
    ) -> (field: String, probe: IndexProbe, isExact: Bool, count: Int)? {
        switch node {
        case .equal(let lhs, let rhs):
            guard let (name, conversion, value) = fieldAndConstant(lhs, rhs) else { return nil }
            let key = QueryKey(constant: value)
            // NaN equals nothing, although the index keeps NaN keys together.
            let keys = key.isNaN ? [] : [key]
            guard let count = keyCount(keys, name, entities, index) else { return nil }
            return (name, .keys(keys), value.isPlainKey && conversion != .toOne, count)
        case .sequenceContains(.constant(let list), .field(.variable(0), let name, let conversion)) where conversion != .toMany:
            // `names.contains($0.destination)`: an IN list.
            let values: [QueryValue]
            switch list {
            case .array(let elements): values = elements
            case .json(.array(let elements)): values = elements.map { QueryValue(stored: $0, conversion: conversion) }
            default: return nil
            }
            let keys = values.map(QueryKey.init(constant:)).filter { !$0.isNaN }
            guard let count = keyCount(keys, name, entities, index) else { return nil }
            return (name, .keys(keys), values.allSatisfy(\.isPlainKey) && conversion != .toOne, count)
        case .or(let lhs, let rhs):
            guard let left = probe(lhs, entities: entities, index: index), let right = probe(rhs, entities: entities, index: index),
                left.field == right.field
            else { return nil }
            return (left.field, .union(left.probe, right.probe), left.isExact && right.isExact, left.count + right.count)
        case .compare(let lhs, let op, let rhs):
            guard let (name, operation, bound) = rangeCondition(lhs, op, rhs) else { return nil }
            // Every comparison with NaN is false.
            if bound.isNaN { return (name, .keys([]), false, 0) }
            // Swift's `<` is not the index's order for a string that is not canonical: any record may
            // compare with it differently, so only a scan finds them all.
            if case .string(let text) = bound, !StringOrder.isCanonical(text.value) { return nil }
            var count = 0
            for entity in entities {
                guard let fieldIndex = index.fieldIndex(entity, name) else { return nil }
                count += fieldIndex.sortedEntries().positions(operation, bound).count + fieldIndex.candidatesOutOfOrder(for: bound).count
            }
            return (name, .range(operation, bound), false, count)
        default:
            return nil
        }
    }

    /// How many records of the entities have one of `keys` (each distinct key counted once), or nil when
    /// some entity has no index on the field.
    private static func keyCount(_ keys: [QueryKey], _ field: String, _ entities: Set<String>, _ index: RecordIndex) -> Int? {
        let distinct = Set(keys)
        var count = 0
        for entity in entities {
            guard let fieldIndex = index.fieldIndex(entity, field) else { return nil }
            for key in distinct { count += fieldIndex.lookup(key).count }
        }
        return count
    }

    /// A comparison of a field with a constant as `field <op> bound`, or nil when it is not one (or the
    /// constant is nil, which no range holds).
    private static func rangeCondition(
        _ lhs: QueryNode, _ op: QueryNode.ComparisonOperator,
        _ rhs: QueryNode
    ) -> (String, QueryNode.ComparisonOperator, QueryKey)? {
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
        guard let (name, _, value) = pair, !value.isNull else { return nil }
        return (name, operation, QueryKey(constant: value))
    }

    private static func fieldAndConstant(_ lhs: QueryNode, _ rhs: QueryNode) -> (String, FieldConversion, QueryValue)? {
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
}

extension QueryNode {
    /// The top-level conjuncts, left to right (the node itself when it is not an `&&`).
    var conjuncts: [QueryNode] {
        if case .and(let lhs, let rhs) = self { return lhs.conjuncts + rhs.conjuncts }
        return [self]
    }
}

extension QueryKey {
    /// The index key of a constant.
    init(constant value: QueryValue) {
        switch value {
        case .null: self = .null
        case .bool(let bool): self = .bool(bool)
        case .int(let int): self = .int(int)
        case .double(let double): self = .double(double)
        case .string(let string): self = .string(KeyText(string))
        case .date(let date): self = .date(date)
        case .record(let id): self = .int(id)
        case .json(let json): self = .other(json)
        case .records, .array: self = .other(.null)
        }
    }
}

extension SortedPairs {
    /// The positions of the entries, sorted by key, whose key compares with `bound` as `operation` says;
    /// nil keys, which sort first, are never in a range.
    func positions(_ operation: QueryNode.ComparisonOperator, _ bound: QueryKey) -> Range<Int> {
        func firstIndex(_ belongs: (QueryKey) -> Bool) -> Int {
            var low = 0
            var high = count
            while low < high {
                let middle = (low + high) / 2
                if belongs(key(at: middle)) { high = middle } else { low = middle + 1 }
            }
            return low
        }
        let range: (Int, Int)
        switch operation {
        case .less: range = (firstIndex { $0 != .null }, firstIndex { !($0 < bound) })
        case .lessOrEqual: range = (firstIndex { $0 != .null }, firstIndex { bound < $0 })
        case .greater: range = (firstIndex { bound < $0 }, count)
        case .greaterOrEqual: range = (firstIndex { !($0 < bound) }, count)
        }
        return range.0 < range.1 ? range.0..<range.1 : 0..<0
    }
}
