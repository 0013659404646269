import Foundation
import FolioStorage

/// A value met while evaluating a translated predicate over stored records.
enum QueryValue {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    /// An instant, as seconds since 2001-01-01T00:00:00Z.
    case date(Double)
    /// A value with no closer form (a composite, an array of values, a `Decimal`, a `UUID`): its
    /// canonical stored JSON, compared by equality only.
    case json(JSONValue)
    /// A record, by its identifier.
    case record(Int64)
    /// Several records (a to-many relationship).
    case records([Int64])
    /// An array of values (a stored array of plain values).
    case array([QueryValue])

    var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// Converts a stored value of a field whose values read as `conversion`.
    init(stored: JSONValue?, conversion: FieldConversion) {
        guard let stored, !stored.isNull else { self = .null; return }
        switch conversion {
        case .date:
            switch stored {
            case .string(let text): self = CanonicalDate.parse(text).map { .date($0.timeIntervalSinceReferenceDate) } ?? .json(stored)
            case .int(let value): self = .date(Double(value))
            case .double(let value): self = .date(value)
            default: self = .json(stored)
            }
        case .floating:
            self = Self.floating(stored).map(QueryValue.double) ?? QueryValue(json: stored)
        case .toOne:
            self = stored.intValue.map(QueryValue.record) ?? .null
        case .toMany:
            self = .records(stored.arrayValue?.compactMap(\.intValue) ?? [])
        case .plain:
            self = QueryValue(json: stored)
        case .array(let element):
            if case .array(let elements) = stored {
                self = .array(elements.map { QueryValue(stored: $0, conversion: element.conversion) })
            } else {
                self = .json(stored)
            }
        }
    }

    /// A stored floating-point value as the `Double` the model reads: a number, or one of the strings
    /// JSON writes in place of a number it has no form for (`"NaN"`, `"Infinity"`, `"-Infinity"`).
    static func floating(_ stored: JSONValue) -> Double? {
        switch stored {
        case .double(let value): return value
        case .int(let value): return Double(value)
        case .string("NaN"): return .nan
        case .string("Infinity"): return .infinity
        case .string("-Infinity"): return -.infinity
        default: return nil
        }
    }

    init(json: JSONValue) {
        switch json {
        case .null: self = .null
        case .bool(let value): self = .bool(value)
        case .int(let value): self = .int(value)
        case .double(let value): self = .double(value)
        case .string(let value): self = .string(value)
        case .array, .object: self = .json(json)
        }
    }

    var numeric: Double? {
        switch self {
        case .int(let value): return Double(value)
        case .double(let value): return value
        default: return nil
        }
    }

    /// Equality with Swift's meaning for the value's type: strings by canonical equivalence, numbers
    /// exactly (`-0.0 == 0.0`, NaN equal to nothing).
    static func equal(_ lhs: QueryValue, _ rhs: QueryValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case let (.bool(a), .bool(b)): return a == b
        case let (.int(a), .int(b)): return a == b
        case let (.double(a), .double(b)): return a == b
        case let (.int(a), .double(b)): return NumberOrder.compare(a, b) == .orderedSame
        case let (.double(a), .int(b)): return NumberOrder.compare(b, a) == .orderedSame
        case let (.string(a), .string(b)): return a == b
        case let (.date(a), .date(b)): return a == b
        case let (.record(a), .record(b)): return a == b
        case let (.records(a), .records(b)): return Set(a) == Set(b)
        case let (.json(a), .json(b)): return a == b
        case let (.array(a), .array(b)): return a.count == b.count && zip(a, b).allSatisfy { equal($0, $1) }
        case let (.array(a), .json(b)), let (.json(b), .array(a)):
            guard case .array(let elements) = b, elements.count == a.count else { return false }
            return zip(a, elements).allSatisfy { equal($0, QueryValue(json: $1)) }
        default:
            return false
        }
    }

    /// `lhs <op> rhs` with Swift's meaning: `<` of the values' type, and `<=`, `>`, `>=` derived from it
    /// as `Comparable` derives them, except for floating-point numbers, whose own operators make every
    /// comparison with NaN false. Nil when the values cannot be ordered.
    static func compare(_ lhs: QueryValue, _ op: QueryNode.ComparisonOperator, _ rhs: QueryValue) -> Bool? {
        switch (lhs, rhs) {
        case let (.string(a), .string(b)):
            switch op {
            case .less: return a < b
            case .lessOrEqual: return !(b < a)
            case .greater: return b < a
            case .greaterOrEqual: return !(a < b)
            }
        case let (.int(a), .int(b)): return op.holds(a, b)
        case let (.double(a), .double(b)), let (.date(a), .date(b)): return op.holds(a, b)
        case let (.int(a), .double(b)): return NumberOrder.compare(a, b).map(op.holds) ?? false
        case let (.double(a), .int(b)): return NumberOrder.compare(a, b).map(op.holds) ?? false
        default: return nil
        }
    }

    /// Whether `lhs` sorts before `rhs` in an ascending sort: `nil` first, strings in ``StringOrder``,
    /// numbers exactly with NaN last, dates chronologically, `false` before `true`. Values of kinds that
    /// do not compare sort in the order of their kinds.
    static func sortsBefore(_ lhs: QueryValue, _ rhs: QueryValue) -> Bool {
        switch (lhs, rhs) {
        case let (.string(a), .string(b)): return StringOrder.areInIncreasingOrder(a, b)
        case let (.double(a), .double(b)), let (.date(a), .date(b)): return NumberOrder.sortsBefore(a, b)
        case let (.int(a), .int(b)): return a < b
        case let (.int(a), .double(b)): return NumberOrder.compare(a, b).map { $0 == .orderedAscending } ?? true
        case let (.double(a), .int(b)): return NumberOrder.compare(a, b).map { $0 == .orderedAscending } ?? false
        case let (.bool(a), .bool(b)): return !a && b
        default: return lhs.sortRank < rhs.sortRank
        }
    }

    /// Whether `lhs` and `rhs` sort together: ``equal(_:_:)``, and NaN with NaN.
    static func sortTogether(_ lhs: QueryValue, _ rhs: QueryValue) -> Bool {
        if case .double(let a) = lhs, case .double(let b) = rhs { return NumberOrder.sortTogether(a, b) }
        return equal(lhs, rhs)
    }

    private var sortRank: Int {
        switch self {
        case .null: return 0
        case .bool: return 1
        case .int, .double: return 2
        case .date: return 3
        case .string: return 4
        case .record, .records: return 5
        case .array, .json: return 6
        }
    }
}

extension QueryNode.ComparisonOperator {
    /// Whether `a <op> b` by the type's own operators.
    @inline(__always)
    func holds<T: Comparable>(_ a: T, _ b: T) -> Bool {
        switch self {
        case .less: return a < b
        case .lessOrEqual: return a <= b
        case .greater: return a > b
        case .greaterOrEqual: return a >= b
        }
    }

    /// Whether the order of two values satisfies the operator.
    func holds(_ order: ComparisonResult) -> Bool {
        switch self {
        case .less: return order == .orderedAscending
        case .lessOrEqual: return order != .orderedDescending
        case .greater: return order == .orderedDescending
        case .greaterOrEqual: return order != .orderedAscending
        }
    }
}

/// How a stored field's value reads in a query.
indirect enum FieldConversion: Hashable {
    case plain
    case date
    /// A `Double` or `Float`: numbers, and the strings that stand for NaN and the infinities.
    case floating
    case toOne
    case toMany
    case array(FieldConversion)

    var conversion: FieldConversion { self }

    /// The conversion for values of `type`.
    static func of(_ type: any Any.Type) -> FieldConversion {
        if type == Date.self || type == Date?.self { return .date }
        if type == Double.self || type == Double?.self || type == Float.self || type == Float?.self { return .floating }
        switch ValueKind.of(type) {
        case .toOne: return .toOne
        case .toMany: return .toMany
        case .attribute: break
        }
        if type == [Date].self { return .array(.date) }
        return .plain
    }
}

extension QueryValue {
    /// Whether an index lookup of the value finds exactly the records whose field `==` it: true for
    /// the plain values an index key holds as they are.
    var isPlainKey: Bool {
        switch self {
        case .null, .bool, .int, .double, .string, .date: return true
        case .record, .records, .array, .json: return false
        }
    }
}
