import FolioStorage

/// A stored value in the form the index compares and hashes: dates as instants, everything else as
/// its stored JSON.
///
/// Ordering follows Swift's: numbers numerically, strings with `String`'s `<`, `false` before `true`,
/// dates chronologically. `nil` sorts before every value, as Foundation's `SortDescriptor` places it.
enum QueryKey: Hashable, Comparable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case date(Double)
    case other(JSONValue)

    /// How a field's stored values become keys.
    enum Conversion: Hashable {
        case plain
        case date
    }

    init(_ value: JSONValue?, _ conversion: Conversion) {
        guard let value else { self = .null; return }
        switch value {
        case .null: self = .null
        case .bool(let bool): self = .bool(bool)
        case .int(let int): self = conversion == .date ? .date(Double(int)) : .int(int)
        case .double(let double): self = conversion == .date ? .date(double) : .double(double)
        case .string(let string):
            if conversion == .date, let date = CanonicalDate.parse(string) {
                self = .date(date.timeIntervalSinceReferenceDate)
            } else {
                self = .string(string)
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
        case let (.double(a), .double(b)): return a < b
        case let (.int(a), .double(b)): return Double(a) < b
        case let (.double(a), .int(b)): return a < Double(b)
        case let (.string(a), .string(b)): return a < b
        case let (.date(a), .date(b)): return a < b
        case let (.other(a), .other(b)): return JSONValue.canonicallyPrecedes(a, b)
        default: return lhs.rank < rhs.rank
        }
    }

    static func == (lhs: QueryKey, rhs: QueryKey) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case let (.bool(a), .bool(b)): return a == b
        case let (.int(a), .int(b)): return a == b
        case let (.double(a), .double(b)): return a == b
        case let (.int(a), .double(b)): return Double(a) == b
        case let (.double(a), .int(b)): return a == Double(b)
        case let (.string(a), .string(b)): return a == b
        case let (.date(a), .date(b)): return a == b
        case let (.other(a), .other(b)): return a == b
        default: return false
        }
    }

    func hash(into hasher: inout Hasher) {
        switch self {
        case .null: hasher.combine(0)
        case .bool(let bool): hasher.combine(bool)
        case .int(let int): hasher.combine(Double(int))
        case .double(let double): hasher.combine(double)
        case .string(let string): hasher.combine(string)
        case .date(let date): hasher.combine(date)
        case .other(let value): hasher.combine(value)
        }
    }
}
