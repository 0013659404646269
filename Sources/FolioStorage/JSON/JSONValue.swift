/// A JSON value as Folio stores it: the currency between models and the storage engine.
///
/// Folio keeps numbers in two exact forms. Integers that fit in 64 bits are ``int(_:)``;
/// everything else numeric is ``double(_:)``. The canonical writer prints an integer without
/// a fraction (`3`) and a double with one (`3.0`), so a value read back keeps its case.
///
/// Objects are dictionaries; the canonical writer always sorts their keys, so the same value
/// always gives the same bytes.
public enum JSONValue: Hashable, Sendable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A whole number that fits in a signed 64-bit integer.
    case int(Int64)
    /// Any other number. Non-finite doubles cannot be written as JSON numbers; see the file-format
    /// documentation for how the model layer represents them.
    case double(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object. Keys are unique; the canonical writer emits them sorted by their UTF-8 bytes.
    case object([String: JSONValue])
}

extension JSONValue {
    /// Whether this value is `null`.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The string, if this value is a string.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The integer, if this value is an integer.
    public var intValue: Int64? {
        if case .int(let value) = self { return value }
        return nil
    }

    /// The number as a `Double`, if this value is an integer or a double.
    public var doubleValue: Double? {
        switch self {
        case .int(let value): return Double(value)
        case .double(let value): return value
        default: return nil
        }
    }

    /// The Boolean, if this value is a Boolean.
    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The elements, if this value is an array.
    public var arrayValue: [JSONValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    /// The members, if this value is an object.
    public var objectValue: [String: JSONValue]? {
        if case .object(let value) = self { return value }
        return nil
    }
}
