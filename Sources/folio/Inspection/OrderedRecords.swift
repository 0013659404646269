import Foundation
import FolioStorage

/// Records of some entities in a query's order, as positions into the records in identifier order.
struct OrderedRecords: RandomAccessCollection, Sendable {
    /// The records, identifiers ascending.
    let base: [StoredRecord]
    /// Positions in ``base``, in the query's order; nil for identifier order.
    let order: [Int]?

    var startIndex: Int { 0 }
    var endIndex: Int { order?.count ?? base.count }
    subscript(position: Int) -> StoredRecord { base[order.map { $0[position] } ?? position] }

    /// The records of `entities` in `store`, identifiers ascending.
    ///
    /// - Complexity: O(*n*), or O(*n* log *n*) when several entities' records interleave.
    static func base(of entities: [String], in store: Store) -> [StoredRecord] {
        var records = entities.flatMap { store.records(of: $0) }
        if !zip(records, records.dropFirst()).allSatisfy({ $0.id < $1.id }) { records.sort { $0.id < $1.id } }
        return records
    }

    /// `base` sorted by `keys`, then by identifier.
    ///
    /// - Complexity: O(*n* log *n*) comparisons of values each read once (``SortColumn``).
    static func sorted(_ base: [StoredRecord], by keys: [RecordQuery.SortKey], isDate: (String) -> Bool) -> OrderedRecords {
        guard !keys.isEmpty else { return OrderedRecords(base: base, order: nil) }
        var order = Array(base.indices)
        order.sort(by: precedes(in: base, by: keys, isDate: isDate))
        return OrderedRecords(base: base, order: order)
    }

    /// The records a sort of `base` by `keys` puts at `positions`, without sorting the rest: a page of a
    /// large table whose order is not made yet. With `candidates` (positions in `base`, ascending), only
    /// those records are sorted.
    ///
    /// The records are narrowed by their first key's values (``SortColumn/orderKeys(of:at:field:isDate:)``,
    /// ``OrderSelection/narrow(_:to:limit:)``) to those that could be in the window; only theirs are
    /// compared, and only their values of the other keys read. If they all hold one value of the first
    /// key, they are selected by the other keys alone.
    ///
    /// - Parameters:
    ///   - firstKeys: the first key's ``SortColumn/orderKeys(of:at:field:isDate:)`` of the candidates
    ///     (or of `base`), when the caller read them already.
    ///   - limit: how few records end the narrowing, to be compared whole.
    /// - Complexity: O(*n*) for *n* records, then O(*m* + *w* log *w*) comparisons on average for the *m*
    ///   records left and a window of *w* positions (``OrderSelection/sort(_:in:by:)``).
    static func window(
        of base: [StoredRecord], among candidates: [Int]? = nil, by keys: [RecordQuery.SortKey], positions: Range<Int>,
        isDate: (String) -> Bool, firstKeys: [UInt64]? = nil, narrowingTo limit: Int = 2_048
    ) -> [StoredRecord] {
        let window = positions.clamped(to: 0..<(candidates?.count ?? base.count))
        guard !window.isEmpty else { return [] }
        guard let first = keys.first else { return window.map { base[candidates?[$0] ?? $0] } }
        var orderKeys = firstKeys ?? SortColumn.orderKeys(of: base, at: candidates, field: first.field, isDate: isDate(first.field))
        if first.descending { orderKeys = orderKeys.map { ~$0 } }
        let (before, left) = OrderSelection.narrow(orderKeys, to: window, limit: limit)
        let inner = (window.lowerBound - before)..<(window.upperBound - before)
        let records = left.map { base[candidates?[$0] ?? $0] }
        let column = SortColumn(of: records, field: first.field, isDate: isDate(first.field))
        let rest = Array(keys.dropFirst())
        if records.indices.allSatisfy({ column.compare($0, 0) == .orderedSame }) {
            return Self.window(of: records, by: rest, positions: inner, isDate: isDate, narrowingTo: limit)
        }
        var order = Array(records.indices)
        let columns = [(column, first.descending)] + rest.map { (SortColumn(of: records, field: $0.field, isDate: isDate($0.field)), $0.descending) }
        OrderSelection.sort(inner, in: &order, by: precedes(by: columns))
        return order[inner].map { records[$0] }
    }

    /// Whether the record at one position of `base` comes before the one at another when sorted by
    /// `keys`, then by identifier (the position in `base`): a strict total order.
    private static func precedes(in base: [StoredRecord], by keys: [RecordQuery.SortKey], isDate: (String) -> Bool) -> (Int, Int) -> Bool {
        precedes(by: keys.map { (SortColumn(of: base, field: $0.field, isDate: isDate($0.field)), $0.descending) })
    }

    /// Whether the value at one position comes before the one at another by `columns` (each
    /// descending or not), then by position: a strict total order.
    private static func precedes(by columns: [(SortColumn, descending: Bool)]) -> (Int, Int) -> Bool {
        // A chain of closures, each holding its column: indexing an array of columns at every
        // comparison would copy a column's arrays' references.
        var compare: (Int, Int) -> ComparisonResult = { a, b in a < b ? .orderedAscending : (a > b ? .orderedDescending : .orderedSame) }
        for (column, isDescending) in columns.reversed() {
            let next = compare
            compare = { a, b in
                let comparison = column.compare(a, b)
                if comparison == .orderedSame { return next(a, b) }
                return isDescending ? (comparison == .orderedAscending ? .orderedDescending : .orderedAscending) : comparison
            }
        }
        return { [compare] a, b in compare(a, b) == .orderedAscending }
    }

    /// The descending order of one field, from its ascending order and values: the runs of equal
    /// values in reverse, each run still in identifier order (the tie-break of both directions).
    ///
    /// - Complexity: O(*n*).
    static func descending(_ ascending: OrderedRecords, values: SortColumn) -> OrderedRecords {
        guard let order = ascending.order else { return ascending }
        var result: [Int] = []
        result.reserveCapacity(order.count)
        var runEnd = order.count
        while runEnd > 0 {
            var runStart = runEnd - 1
            while runStart > 0, values.compare(order[runStart - 1], order[runEnd - 1]) == .orderedSame { runStart -= 1 }
            result.append(contentsOf: order[runStart..<runEnd])
            runEnd = runStart
        }
        return OrderedRecords(base: ascending.base, order: result)
    }
}
