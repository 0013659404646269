@_spi(FolioEngine) import FolioStorage

extension QueryExecutor {
    /// `candidates` in the order of `sortKeys` (ties in identifier order), only as many as the window
    /// needs. Reads keys from the column table or the values a scan kept when there are any, else from
    /// each row.
    func sortOnRecords(
        _ candidates: [RowID], by descriptorKeys: [SortKey], values candidateValues: [RecordValues]?,
        columnRows: (table: ColumnTable, rows: [Int])?,
        lookup: (Int64) -> (entity: String, values: RecordValues)?
    ) -> [RowID] {
        // Sort keys are fields of the fetched type, whose subentities inherit them with their defaults.
        let sortKeys = descriptorKeys.map { key in
            var key = key
            key.missing = index.storedDefaults.value(of: key.name, inAnyOf: query.entities)
            return key
        }
        let forward = sortKeys.map(\.forward)
        let wanted = query.wanted
        let columns = columnRows.map { table, _ in
            sortKeys.map { key in
                key.conversion == .date || key.conversion == .plain || key.conversion == .floating ? table.numbers(key.name, key.conversion) : nil
            }
        }
        if let (table, rows) = columnRows, let columns = columns?.compactMap({ $0 }), columns.count == sortKeys.count {
            // Every sort key is a column: compare numbers in place (no per-row key arrays).
            let ids = table.ids
            if columns.count == 1, let column = columns.first, let ascending = forward.first {
                return Self.first(wanted, of: rows) { a, b in
                    Self.precedes(column[a], column[b], ascending: ascending) ?? (ids[a] < ids[b])
                }.map { ids[$0] }
            }
            return Self.first(wanted, of: rows) { a, b in
                for position in columns.indices {
                    if let decided = Self.precedes(columns[position][a], columns[position][b], ascending: forward[position]) {
                        return decided
                    }
                }
                return ids[a] < ids[b]
            }.map { ids[$0] }
        }
        let keyed: [(id: RowID, keys: [QueryValue])]
        if let (table, rows) = columnRows {
            keyed = rows.map { row in
                (table.ids[row], sortKeys.map { key in key.value(in: table.values[row]) })
            }
        } else if let candidateValues {
            keyed = zip(candidates, candidateValues).map { id, values in
                (id, sortKeys.map { key in key.value(in: values) })
            }
        } else {
            keyed = candidates.map { id in
                (id, sortKeys.map { key in key.value(in: lookup(id)?.values) })
            }
        }
        func precedes(_ lhs: (id: RowID, keys: [QueryValue]), _ rhs: (id: RowID, keys: [QueryValue])) -> Bool {
            for position in 0..<forward.count {
                let a = lhs.keys[position]
                let b = rhs.keys[position]
                if QueryValue.sortTogether(a, b) { continue }
                let ascending = SortKey.ascending(a, b)
                return forward[position] ? ascending : !ascending
            }
            return RowOrder.precedes(lhs.id, rhs.id)
        }
        return Self.first(wanted, of: keyed, by: precedes).map(\.id)
    }

    /// Whether `x` comes before `y` in the sort's direction, NaN sorting after every other number in
    /// ascending order; nil when they sort together.
    @inline(__always)
    static func precedes(_ x: Double, _ y: Double, ascending: Bool) -> Bool? {
        if x < y { return ascending }
        if y < x { return !ascending }
        if x == y || x.isNaN == y.isNaN { return nil }
        return y.isNaN == ascending
    }

    /// The first `wanted` elements in the order `precedes` gives (all of them, sorted, when `wanted` is
    /// nil or not much smaller): a top-k selection, O(n log k), when a limit makes it worthwhile.
    static func first<Element>(_ wanted: Int?, of elements: [Element], by precedes: (Element, Element) -> Bool) -> [Element] {
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
}
