import FolioStorage

/// Fast paths for the value types most properties have, chosen by comparing metatypes instead of by
/// dynamic casts, which are slow.
///
/// The fast paths are inlinable: the code the model macros generate calls them from the app's module,
/// where they are specialized for each property's type, so the metatype comparisons disappear and no
/// generic metadata is looked up at run time.
@usableFromInline
enum PrimitiveCoding {
    /// Reads a value of a type known (by a metatype comparison) to be `Target`.
    @inlinable @inline(__always)
    static func reinterpret<Source, Target>(_ value: Source, as target: Target.Type) -> Target {
        withUnsafePointer(to: value) { $0.withMemoryRebound(to: Target.self, capacity: 1) { $0.pointee } }
    }

    /// The stored form of a common value type, or nil for other types.
    @inlinable @inline(__always)
    static func encode<Value>(_ value: Value) -> JSONValue? {
        let type = Value.self
        if type == String.self { return .string(reinterpret(value, as: String.self)) }
        if type == Int.self { return .int(Int64(reinterpret(value, as: Int.self))) }
        if type == Double.self { return encodeDouble(reinterpret(value, as: Double.self)) }
        if type == Bool.self { return .bool(reinterpret(value, as: Bool.self)) }
        if type == Date.self { return encodeDate(reinterpret(value, as: Date.self)) }
        if type == String?.self { return reinterpret(value, as: String?.self).map(JSONValue.string) ?? .null }
        if type == Int?.self { return reinterpret(value, as: Int?.self).map { .int(Int64($0)) } ?? .null }
        if type == Double?.self { return reinterpret(value, as: Double?.self).map(encodeDouble) ?? .null }
        if type == Bool?.self { return reinterpret(value, as: Bool?.self).map(JSONValue.bool) ?? .null }
        if type == Date?.self { return reinterpret(value, as: Date?.self).map(encodeDate) ?? .null }
        if type == UUID.self { return .string(reinterpret(value, as: UUID.self).uuidString) }
        return nil
    }

    @usableFromInline
    static func encodeDouble(_ value: Double) -> JSONValue { ValueEncoder.encodeDouble(value) }

    @usableFromInline
    static func encodeDate(_ date: Date) -> JSONValue { CanonicalDate.encode(date) }

    @usableFromInline
    static func decodeDate(_ stored: JSONValue) -> Date? { CanonicalDate.decode(stored) }

    /// A common value type read from its stored form: nil for other types, or a stored value of another kind.
    @inlinable @inline(__always)
    static func decode<Value>(_ stored: JSONValue, as type: Value.Type) -> Value?? {
        func wrap<T>(_ value: T) -> Value? { reinterpret(value, as: Value.self) }
        if type == String.self {
            guard case .string(let text) = stored else { return .some(nil) }
            return wrap(text)
        }
        if type == Int.self {
            guard case .int(let number) = stored, let exact = Int(exactly: number) else { return .some(nil) }
            return wrap(exact)
        }
        if type == Double.self {
            switch stored {
            case .double(let number): return wrap(number)
            case .int(let number): return wrap(Double(number))
            default: return .some(nil)
            }
        }
        if type == Bool.self {
            guard case .bool(let flag) = stored else { return .some(nil) }
            return wrap(flag)
        }
        if type == Date.self {
            guard let date = decodeDate(stored) else { return .some(nil) }
            return wrap(date)
        }
        return nil
    }
}
