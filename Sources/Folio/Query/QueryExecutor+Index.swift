@_spi(FolioEngine) import FolioStorage

extension QueryExecutor {
    /// The records of the entities an index probe gives, in increasing order, without repeats.
    func probeIndex(_ probe: IndexProbe, field: String) -> [RowID] {
        switch probe {
        case .keys(let keys) where keys.count == 1:
            // Each index keeps a key's identifiers in order, so one key needs no sort.
            var ids: [Int64] = []
            for entity in query.entities {
                guard let found = index.lookup(entity, field, equalTo: keys[0]) else { continue }
                ids = ids.isEmpty ? Array(found) : .mergingSorted(ids, found)
            }
            return ids
        case .keys(let keys):
            var ids: [Int64] = []
            for entity in query.entities {
                for key in keys {
                    guard let found = index.lookup(entity, field, equalTo: key) else { continue }
                    ids.append(contentsOf: found)
                }
            }
            // Each list is in order; together they need sorting, and a value listed twice repeats its records.
            return Self.sortedDistinct(ids)
        case .range(let operation, let bound):
            var ids: [Int64] = []
            var outOfOrder: Set<Int64> = []
            for entity in query.entities {
                guard let fieldIndex = index.fieldIndex(entity, field) else { continue }
                let entries = fieldIndex.sortedEntries()
                ids.append(contentsOf: entries.ids[entries.positions(operation, bound)])
                outOfOrder.formUnion(fieldIndex.candidatesOutOfOrder(for: bound))
            }
            // Entries are in key order; each record has one, so sorting leaves no repeats.
            if !outOfOrder.isEmpty { return Self.sortedDistinct(ids + outOfOrder) }
            ids.sort()
            return ids
        case .union(let lhs, let rhs):
            return .mergingSorted(probeIndex(lhs, field: field), probeIndex(rhs, field: field))
        }
    }

    private static func sortedDistinct(_ unsorted: [Int64]) -> [Int64] {
        let ids = unsorted.sorted()
        var distinct: [Int64] = []
        distinct.reserveCapacity(ids.count)
        for id in ids where id != distinct.last { distinct.append(id) }
        return distinct
    }

    /// Walks the sorted indexes of the entities on `key` in order, keeping rows that pass the filter,
    /// until `limit` of them are found.
    func orderedWalk(_ key: SortKey, filter: QueryNode?, evaluator: QueryEvaluator, limit: Int) throws -> [RowID] {
        var lists: [SortedPairs] = []
        for entity in query.entities {
            guard let entries = index.sortedEntries(entity, key.name) else { continue }
            lists.append(entries)
        }
        // Merge the entities' indexes; with one entity this is the index itself.
        let merged = lists.count == 1 ? lists[0] : SortedPairs(lists.flatMap { $0 }.sorted(by: SortedEntries.precedes))
        var result: [RowID] = []
        var slots: [QueryValue] = []
        // A filter made only of comparisons of numbers or dates with constants is tested on the stored
        // numbers directly; the evaluator decides wherever a value is not a number.
        var numericTest: ColumnCondition.RecordTest? = nil
        if let filter {
            let parts = filter.conjuncts
            let conditions = parts.compactMap(ColumnCondition.init)
            if conditions.count == parts.count { numericTest = ColumnCondition.RecordTest(conditions) }
        }
        // Taken once: reading the index's property for each record copies the table's references.
        let records = index.records
        func consider(_ id: Int64) throws -> Bool {
            if let filter {
                guard let row = records[id] else { return false }
                if numericTest != nil, let holds = numericTest?.allHold(in: row.values) {
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
                if try consider(merged.ids[position]) { break }
                position += 1
            }
        } else {
            var end = merged.count
            while end > 0 {
                var start = end - 1
                let last = merged.key(at: end - 1)
                while start > 0 && merged.key(at: start - 1) == last { start -= 1 }
                var done = false
                for position in start..<end where try consider(merged.ids[position]) {
                    done = true
                    break
                }
                if done { break }
                end = start
            }
        }
        return result
    }
}
