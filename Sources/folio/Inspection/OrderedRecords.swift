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
    /// those records are sorted; the values of every record of `base` are read.
    ///
    /// - Complexity: O(*n* + *w* log *w*) comparisons on average for *n* records and a window of *w*
    ///   positions (``OrderSelection/sort(_:in:by:)``).
    static func window(
        of base: [StoredRecord], among candidates: [Int]? = nil, by keys: [RecordQuery.SortKey], positions: Range<Int>,
        isDate: (String) -> Bool
    ) -> [StoredRecord] {
        var order = candidates ?? Array(base.indices)
        let window = Swift.max(0, Swift.min(positions.lowerBound, order.count))..<Swift.max(0, Swift.min(positions.upperBound, order.count))
        guard !window.isEmpty else { return [] }
        OrderSelection.sort(window, in: &order, by: precedes(in: base, by: keys, isDate: isDate))
        return order[window].map { base[$0] }
    }

    /// Whether the record at one position of `base` comes before the one at another when sorted by
    /// `keys`, then by identifier (the position in `base`): a strict total order.
    private static func precedes(in base: [StoredRecord], by keys: [RecordQuery.SortKey], isDate: (String) -> Bool) -> (Int, Int) -> Bool {
        // A chain of closures, each holding its column: indexing an array of columns at every
        // comparison would copy a column's arrays' references.
        var compare: (Int, Int) -> ComparisonResult = { a, b in a < b ? .orderedAscending : (a > b ? .orderedDescending : .orderedSame) }
        for key in keys.reversed() {
            let (column, next, isDescending) = (SortColumn(of: base, field: key.field, isDate: isDate(key.field)), compare, key.descending)
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
