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

    /// Equality with Swift's meaning for the value's type.
    static func equal(_ lhs: QueryValue, _ rhs: QueryValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case let (.bool(a), .bool(b)): return a == b
        case let (.int(a), .int(b)): return a == b
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
            if let a = lhs.numeric, let b = rhs.numeric { return a == b }
            return false
        }
    }

    /// Ordering with Swift's meaning: nil if the values cannot be ordered.
    static func less(_ lhs: QueryValue, _ rhs: QueryValue, strings: StringOrdering) -> Bool? {
        switch (lhs, rhs) {
        case let (.string(a), .string(b)): return strings.less(a, b)
        case let (.date(a), .date(b)): return a < b
        case let (.bool(a), .bool(b)): return !a && b
        case let (.int(a), .int(b)): return a < b
        default:
            if let a = lhs.numeric, let b = rhs.numeric { return a < b }
            return nil
        }
    }
}

/// How a stored field's value reads in a query.
indirect enum FieldConversion: Hashable {
    case plain
    case date
    case toOne
    case toMany
    case array(FieldConversion)

    var conversion: FieldConversion { self }

    /// The conversion for values of `type`.
    static func of(_ type: any Any.Type) -> FieldConversion {
        if type == Date.self || type == Date?.self { return .date }
        switch ValueKind.of(type) {
        case .toOne: return .toOne
        case .toMany: return .toMany
        case .attribute: break
        }
        if type == [Date].self { return .array(.date) }
        return .plain
    }
}

/// How strings are ordered when sorting and comparing: as Foundation's `SortDescriptor` orders them on
/// this platform.
struct StringOrdering {
    static let standard = StringOrdering()
    func less(_ a: String, _ b: String) -> Bool { a < b }
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
