import Foundation
import FolioStorage

/// A stored value in the form the index compares and hashes: dates as instants, floating-point numbers
/// as `Double`s (NaN and the infinities included), everything else as its stored JSON.
///
/// The order is total and agrees with `==`, as a sorted index needs: numbers exactly (an integer and a
/// double as numbers, `-0.0` with `0.0`, NaN after every other number and equal to itself, so that a
/// record indexed under NaN can be found again to be removed), strings in ``StringOrder``, `false`
/// before `true`, dates chronologically. `nil` sorts before every value, as Foundation's
/// `SortDescriptor` places it. A lookup of NaN must not rely on this equality: the planner answers
/// `== .nan` with nothing, as Swift does.
enum QueryKey: Hashable, Comparable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(KeyText)
    case date(Double)
    case other(JSONValue)

    /// How a field's stored values become keys.
    enum Conversion: Hashable {
        case plain
        case date
        /// A `Double` or `Float` field (see ``QueryValue/floating(_:)``).
        case floating
    }

    init(_ value: JSONValue?, _ conversion: Conversion) {
        guard let value else { self = .null; return }
        switch value {
        case .null: self = .null
        case .bool(let bool): self = .bool(bool)
        case .int(let int):
            switch conversion {
            case .date: self = .date(Double(int))
            case .floating: self = .double(Double(int))
            case .plain: self = .int(int)
            }
        case .double(let double): self = conversion == .date ? .date(double) : .double(double)
        case .string(let string):
            if conversion == .date, let date = CanonicalDate.parse(string) {
                self = .date(date.timeIntervalSinceReferenceDate)
            } else if conversion == .floating, let number = QueryValue.floating(value) {
                self = .double(number)
            } else {
                self = .string(KeyText(string))
            }
        default: self = .other(value)
        }
    }

    private var rank: Int {
        switch self {
        case .null: return 0
        case .bool: return 1
        case .int, .double: return 2
        case .date: return 3
        case .string: return 4
        case .other: return 5
        }
    }

    static func < (lhs: QueryKey, rhs: QueryKey) -> Bool {
        switch (lhs, rhs) {
        case let (.bool(a), .bool(b)): return !a && b
        case let (.int(a), .int(b)): return a < b
        case let (.double(a), .double(b)), let (.date(a), .date(b)): return NumberOrder.sortsBefore(a, b)
        case let (.int(a), .double(b)): return NumberOrder.compare(a, b).map { $0 == .orderedAscending } ?? true
        case let (.double(a), .int(b)): return NumberOrder.compare(a, b).map { $0 == .orderedAscending } ?? false
        case let (.string(a), .string(b)): return KeyText.precedes(a, b)
        case let (.other(a), .other(b)): return JSONValue.canonicallyPrecedes(a, b)
        default: return lhs.rank < rhs.rank
        }
    }

    static func == (lhs: QueryKey, rhs: QueryKey) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case let (.bool(a), .bool(b)): return a == b
        case let (.int(a), .int(b)): return a == b
        case let (.double(a), .double(b)), let (.date(a), .date(b)): return NumberOrder.sortTogether(a, b)
        case let (.int(a), .double(b)): return NumberOrder.compare(a, b) == .orderedSame
        case let (.double(a), .int(b)): return NumberOrder.compare(b, a) == .orderedSame
        case let (.string(a), .string(b)): return a == b
        case let (.other(a), .other(b)): return a == b
        default: return false
        }
    }

    /// Equal keys hash alike: an integer as the double it equals when there is one, every NaN alike,
    /// strings by canonical equivalence (as `String` hashes).
    func hash(into hasher: inout Hasher) {
        switch self {
        case .null: hasher.combine(0)
        case .bool(let bool): hasher.combine(bool)
        case .int(let int):
            if let exact = Double(exactly: int) { hasher.combine(exact) } else { hasher.combine(int) }
        case .double(let double): Self.hashNumber(double, into: &hasher)
        case .string(let string): hasher.combine(string)
        case .date(let date): Self.hashNumber(date, into: &hasher)
        case .other(let value): hasher.combine(value)
        }
    }

    private static func hashNumber(_ number: Double, into hasher: inout Hasher) {
        if number.isNaN { hasher.combine(Double.nan.bitPattern) } else { hasher.combine(number) }
    }

    /// Whether the key is NaN, which `==` finds nothing equal to.
    var isNaN: Bool {
        if case .double(let number) = self { return number.isNaN }
        return false
    }
}

/// A string as an index key: the string, and whether it is all ASCII, found once when the key is made.
/// Two ASCII strings compare with Swift's own `<`, a comparison of their bytes, which is
/// ``StringOrder`` for them; any other pair in ``StringOrder``. Equality and hashing are the string's.
struct KeyText: Hashable, ExpressibleByStringLiteral {
    let value: String
    let isASCII: Bool

    init(_ value: String) {
        self.value = value
        isASCII = value.isASCII
    }

    init(stringLiteral value: String) {
        self.init(value)
    }

    static func == (lhs: KeyText, rhs: KeyText) -> Bool {
        lhs.value == rhs.value
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(value)
    }

    /// Whether `lhs` comes before `rhs` in ``StringOrder``.
    @inline(__always)
    static func precedes(_ lhs: KeyText, _ rhs: KeyText) -> Bool {
        lhs.isASCII && rhs.isASCII ? lhs.value < rhs.value : StringOrder.areInIncreasingOrder(lhs.value, rhs.value)
    }
}
