import FolioStorage

/// One entity's records laid out by column for scans: the identifiers in one array and, for each numeric
/// or date field a scan asked for, its values as `Double`s in the same order.
///
/// A scan that compares fields with constants (`$0.price >= low && $0.price <= high`) then runs over
/// contiguous numbers instead of looking each record up and evaluating the predicate tree on it. Tables
/// are made on first use and dropped whenever the entity's records change, so they cost nothing for
/// stores that are only written, and a scan after a change pays one pass to rebuild what it uses.
final class ColumnTable {
    /// The identifiers, in the table's row order.
    let ids: [Int64]
    /// The records' values, in the same order (for the rest of a predicate and for fields not laid out).
    let values: [RecordValues]
    /// The stored defaults of the entity's attributes, which records without a value for one read.
    let defaults: [String: JSONValue]
    private var columns: [String: [Double]?] = [:]

    init(ids: [Int64], values: [RecordValues], defaults: [String: JSONValue]) {
        self.ids = ids
        self.values = values
        self.defaults = defaults
    }

    /// The values of `field` as numbers in row order (a record without one reads its stored default),
    /// or nil when some record's value is not a number that a `Double` holds exactly (null, missing
    /// without a default, text, an integer beyond 2^53): scans then take the general path, which has the
    /// exact semantics for those. NaN and the infinities of a floating-point field are numbers here, and
    /// compare as Swift compares them.
    func numbers(_ field: String, _ conversion: FieldConversion) -> [Double]? {
        if let known = columns[field] { return known }
        let made = Self.makeColumn(values, field, conversion, missing: defaults[field])
        columns[field] = .some(made)
        return made
    }

    private static func makeColumn(
        _ values: [RecordValues], _ field: String, _ conversion: FieldConversion,
        missing: JSONValue?
    ) -> [Double]? {
        var column: [Double] = []
        column.reserveCapacity(values.count)
        for record in values {
            guard let number = number(record[field] ?? missing, conversion) else { return nil }
            column.append(number)
        }
        return column
    }

    /// A stored value as a column holds it, or nil when it is not a number a `Double` holds exactly.
    static func number(_ stored: JSONValue?, _ conversion: FieldConversion) -> Double? {
        switch QueryValue(stored: stored, conversion: conversion) {
        case .double(let number): return number
        case .date(let seconds): return seconds
        case .int(let number): return number.magnitude <= 1 << 53 ? Double(number) : nil
        default: return nil
        }
    }
}

/// A conjunct of a predicate that a column can answer: a field of the record compared with a number.
struct ColumnCondition {
    enum Test {
        case less, lessOrEqual, greater, greaterOrEqual, equal, notEqual
    }

    var field: String
    var conversion: FieldConversion
    var test: Test
    var constant: Double

    /// The condition `node` states, if it is `field <op> constant` or `constant <op> field` on a plain
    /// number or date field, with a constant of the same kind.
    init?(_ node: QueryNode) {
        let lhs: QueryNode, rhs: QueryNode, test: Test
        switch node {
        case .equal(let a, let b): (lhs, rhs, test) = (a, b, .equal)
        case .notEqual(let a, let b): (lhs, rhs, test) = (a, b, .notEqual)
        case .compare(let a, let op, let b):
            switch op {
            case .less: (lhs, rhs, test) = (a, b, .less)
            case .lessOrEqual: (lhs, rhs, test) = (a, b, .lessOrEqual)
            case .greater: (lhs, rhs, test) = (a, b, .greater)
            case .greaterOrEqual: (lhs, rhs, test) = (a, b, .greaterOrEqual)
            }
        default: return nil
        }
        if case .field(.variable(0), let name, let conversion) = lhs, case .constant(let value) = rhs,
            let number = Self.number(value, for: conversion)
        {
            self.init(field: name, conversion: conversion, test: test, constant: number)
        } else if case .constant(let value) = lhs, case .field(.variable(0), let name, let conversion) = rhs,
            let number = Self.number(value, for: conversion)
        {
            // `constant < field` is `field > constant`.
            let mirrored: Test
            switch test {
            case .less: mirrored = .greater
            case .lessOrEqual: mirrored = .greaterOrEqual
            case .greater: mirrored = .less
            case .greaterOrEqual: mirrored = .lessOrEqual
            case .equal, .notEqual: mirrored = test
            }
            self.init(field: name, conversion: conversion, test: mirrored, constant: number)
        } else {
            return nil
        }
    }

    private init(field: String, conversion: FieldConversion, test: Test, constant: Double) {
        self.field = field
        self.conversion = conversion
        self.test = test
        self.constant = constant
    }

    /// The constant as a number comparable with the field's column, or nil when the kinds differ (a
    /// date compared with a number is an error the general path reports).
    private static func number(_ value: QueryValue, for conversion: FieldConversion) -> Double? {
        switch (conversion, value) {
        case (.date, .date(let seconds)): return seconds
        case (.floating, .double(let number)) where !number.isNaN: return number
        case (.plain, .int(let number)) where number.magnitude <= 1 << 53: return Double(number)
        default: return nil
        }
    }

    /// Whether a number passes the test.
    @inline(__always)
    func holds(_ value: Double) -> Bool {
        switch test {
        case .less: return value < constant
        case .lessOrEqual: return value <= constant
        case .greater: return value > constant
        case .greaterOrEqual: return value >= constant
        case .equal: return value == constant
        case .notEqual: return value != constant
        }
    }

    /// Tests conditions on one record's values at a time, finding each condition's field by its slot in
    /// the record's layout: an entity's records share a few layouts, so the names are searched once per
    /// layout, not once per record.
    struct RecordTest {
        let conditions: [ColumnCondition]
        /// The layout the slots were found in (kept alive, so that it cannot be another at the same address).
        private var layout: RecordLayout?
        private var slots: [Int?] = []

        init(_ conditions: [ColumnCondition]) { self.conditions = conditions }

        /// Whether all the conditions hold for `values`, taken in order as `&&` does; nil when a value
        /// they read is not a number (the general evaluator then decides, with its exact semantics).
        mutating func allHold(in values: RecordValues) -> Bool? {
            if values.layout !== layout {
                layout = values.layout
                slots = conditions.map { values.layout.slot(of: $0.field) }
            }
            for (position, condition) in conditions.enumerated() {
                let stored = slots[position].map { values.values.value(atSlot: $0) }
                guard let number = ColumnTable.number(stored, condition.conversion) else { return nil }
                if !condition.holds(number) { return false }
            }
            return true
        }
    }

    /// The rows where every condition holds for its column, in row order.
    ///
    /// One pass tests each row against the conditions in turn, stopping at the first that fails, so a
    /// scan keeps only the rows that pass them all, never a larger list of the rows that pass the first.
    /// (A list of most rows, made per query, would cost more in fresh memory than the comparisons.) All columns have the same length, the table's row count.
    static func rows(passingAll conditions: [(condition: ColumnCondition, column: [Double])]) -> [Int] {
        let rowCount = conditions.map(\.column.count).min() ?? 0
        let tests = conditions.map(\.condition)
        var result: [Int] = []
        withColumnPointers(conditions.map(\.column)) { columns in
            nextRow: for row in 0..<rowCount {
                for position in tests.indices where !tests[position].holds(columns[position][row]) { continue nextRow }
                result.append(row)
            }
        }
        return result
    }

    /// Calls `body` with a pointer to each column's numbers, valid for the call.
    private static func withColumnPointers<Result>(
        _ columns: [[Double]],
        _ body: ([UnsafeBufferPointer<Double>]) -> Result
    ) -> Result {
        func nest(_ index: Int, _ pointers: [UnsafeBufferPointer<Double>]) -> Result {
            guard index < columns.count else { return body(pointers) }
            return columns[index].withUnsafeBufferPointer { nest(index + 1, pointers + [$0]) }
        }
        return nest(0, [])
    }
}
