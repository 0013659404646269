import Synchronization
import FolioStorage

/// Encodes `Encodable` values into ``JSONValue``s in Folio's canonical stored form.
///
/// Values take the form their own `Codable` gives them, except for the types with a canonical text
/// form: `Date` (ISO 8601, see ``CanonicalDate``), `Data` (Base64), `URL` (its absolute string), `UUID`
/// (upper-case string) and `Decimal` (its decimal string). Non-finite floating-point numbers become
/// the strings `"NaN"`, `"Infinity"` and `"-Infinity"`. The elements of a `Set`, and the pairs of a
/// dictionary whose keys encode as a list, are sorted, so that the same value always gives the same bytes.
enum ValueEncoder {
    static func encode<T: Encodable>(_ value: T, codingPath: [any CodingKey] = []) throws -> JSONValue {
        switch strategy(for: type(of: value)) {
        case .special(let encode):
            if let special = encode(value) { return special }
        case .unorderedElements:
            if let set = value as? any _UnorderedElements {
                return .array(try set._encodedElements(codingPath: codingPath).sorted(by: JSONValue.canonicallyPrecedes))
            }
        case .unorderedPairs, .plain:
            break
        }
        let encoder = TreeEncoder(codingPath: codingPath)
        try value.encode(to: encoder)
        let result = encoder.node.finalized()
        if case .array(let flat) = result, value is any _UnorderedPairs {
            return .array(sortedPairs(flat))
        }
        return result
    }

    /// The canonical form of values whose `Codable` form is not canonical or not readable; nil for other
    /// values.
    static func encodeSpecial(_ value: Any, codingPath: [any CodingKey]) throws -> JSONValue? {
        switch strategy(for: type(of: value)) {
        case .special(let encode):
            return encode(value)
        case .unorderedElements:
            guard let set = value as? any _UnorderedElements else { return nil }
            return .array(try set._encodedElements(codingPath: codingPath).sorted(by: JSONValue.canonicallyPrecedes))
        case .unorderedPairs, .plain:
            return nil
        }
    }

    /// How values of one type are encoded: worked out once per type (from a table of the types with a
    /// canonical form, and conformance checks), not with casts for every value.
    enum Strategy {
        case special(@Sendable (Any) -> JSONValue?)
        case unorderedElements
        case unorderedPairs
        case plain
    }

    private static let strategies = TypeTable<Strategy>()

    static func strategy(for type: any Any.Type) -> Strategy {
        strategies.value(for: type) {
            if let encode = specialEncoders[ObjectIdentifier(type)] { return .special(encode) }
            if type is any _UnorderedElements.Type { return .unorderedElements }
            if type is any _UnorderedPairs.Type { return .unorderedPairs }
            return .plain
        }
    }

    /// The encoders of the types with a canonical form, by type.
    private static let specialEncoders: [ObjectIdentifier: @Sendable (Any) -> JSONValue?] = {
        var table: [ObjectIdentifier: @Sendable (Any) -> JSONValue?] = [:]
        func add<T>(_ type: T.Type, _ encode: @escaping @Sendable (T) -> JSONValue) {
            table[ObjectIdentifier(type)] = { value in (value as? T).map(encode) }
        }
        add(String.self) { .string($0) }
        add(Bool.self) { .bool($0) }
        add(Int.self) { .int(Int64($0)) }
        add(Double.self) { encodeDouble($0) }
        add(Date.self) { CanonicalDate.encode($0) }
        add(UUID.self) { .string($0.uuidString) }
        add(URL.self) { .string($0.absoluteString) }
        add(Data.self) { .string($0.base64EncodedString()) }
        add(Decimal.self) { .string($0.description) }
        add(Float.self) { encodeDouble(Double($0)) }
        add(Int64.self) { .int($0) }
        add(Int32.self) { .int(Int64($0)) }
        add(Int16.self) { .int(Int64($0)) }
        add(Int8.self) { .int(Int64($0)) }
        add(UInt64.self) { $0 <= UInt64(Int64.max) ? .int(Int64($0)) : .string(String($0)) }
        add(UInt.self) { UInt64($0) <= UInt64(Int64.max) ? .int(Int64($0)) : .string(String($0)) }
        add(UInt32.self) { .int(Int64($0)) }
        add(UInt16.self) { .int(Int64($0)) }
        add(UInt8.self) { .int(Int64($0)) }
        return table
    }()

    static func encodeDouble(_ value: Double) -> JSONValue {
        if value.isNaN { return .string("NaN") }
        if value.isInfinite { return .string(value > 0 ? "Infinity" : "-Infinity") }
        return .double(value)
    }

    private static func sortedPairs(_ flat: [JSONValue]) -> [JSONValue] {
        guard flat.count % 2 == 0 else { return flat }
        var pairs: [(JSONValue, JSONValue)] = []
        var index = 0
        while index < flat.count {
            pairs.append((flat[index], flat[index + 1]))
            index += 2
        }
        pairs.sort { JSONValue.canonicallyPrecedes($0.0, $1.0) }
        return pairs.flatMap { [$0.0, $0.1] }
    }
}

/// A set whose elements Folio sorts when it stores them.
protocol _UnorderedElements {
    func _encodedElements(codingPath: [any CodingKey]) throws -> [JSONValue]
}

extension Set: _UnorderedElements where Element: Encodable {
    func _encodedElements(codingPath: [any CodingKey]) throws -> [JSONValue] {
        try map { try ValueEncoder.encode($0, codingPath: codingPath) }
    }
}

/// A dictionary, whose key–value pairs Folio sorts when its keys encode as a list.
protocol _UnorderedPairs {}
extension Dictionary: _UnorderedPairs {}

extension JSONValue {
    /// A total order on values, used to sort set elements and dictionary pairs deterministically:
    /// by kind (null, Boolean, number, string, array, object), then by value.
    static func canonicallyPrecedes(_ lhs: JSONValue, _ rhs: JSONValue) -> Bool {
        func rank(_ value: JSONValue) -> Int {
            switch value {
            case .null: return 0
            case .bool: return 1
            case .int, .double: return 2
            case .string: return 3
            case .array: return 4
            case .object: return 5
            }
        }
        let (left, right) = (rank(lhs), rank(rhs))
        if left != right { return left < right }
        switch (lhs, rhs) {
        case let (.bool(a), .bool(b)): return !a && b
        case let (.int(a), .int(b)): return a < b
        case let (.string(a), .string(b)): return Array(a.utf8).lexicographicallyPrecedes(Array(b.utf8))
        case let (.array(a), .array(b)):
            for (x, y) in zip(a, b) where x != y { return canonicallyPrecedes(x, y) }
            return a.count < b.count
        case let (.object(a), .object(b)):
            let keysA = a.keys.sorted(), keysB = b.keys.sorted()
            if keysA != keysB { return keysA.lexicographicallyPrecedes(keysB) }
            for key in keysA where a[key] != b[key] {
                return canonicallyPrecedes(a[key] ?? .null, b[key] ?? .null)
            }
            return false
        default:
            return (lhs.doubleValue ?? 0) < (rhs.doubleValue ?? 0)
        }
    }
}

/// A node of the value being encoded; containers are filled in place, then turned into a value.
final class EncodingNode {
    /// A member or element: a finished value (what primitives encode to, without a node of their own),
    /// or a node still being filled.
    enum Child {
        case value(JSONValue)
        case node(EncodingNode)

        func finalized() -> JSONValue {
            switch self {
            case .value(let value): return value
            case .node(let node): return node.finalized()
            }
        }
    }

    enum Content {
        case empty
        case value(JSONValue)
        /// Members: finished values, and nested containers still being filled (usually none). Kept
        /// apart, so that an object of finished values needs no second dictionary when it is finalized.
        case object([String: JSONValue], nested: [String: EncodingNode])
        case array([Child])
    }

    var content: Content = .empty

    func finalized() -> JSONValue {
        switch content {
        case .empty: return .object([:])
        case .value(let value): return value
        case .object(let members, let nested):
            if nested.isEmpty { return .object(members) }
            var all = members
            for (key, node) in nested { all[key] = node.finalized() }
            return .object(all)
        case .array(let elements): return .array(elements.map { $0.finalized() })
        }
    }
}

final class TreeEncoder: Encoder {
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }
    let node: EncodingNode

    init(codingPath: [any CodingKey], node: EncodingNode = EncodingNode()) {
        self.codingPath = codingPath
        self.node = node
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if case .object = node.content {} else { node.content = .object([:], nested: [:]) }
        return KeyedEncodingContainer(KeyedContainer<Key>(node: node, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if case .array = node.content {} else { node.content = .array([]) }
        return UnkeyedContainer(node: node, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleValueContainer(node: node, codingPath: codingPath)
    }

    struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let node: EncodingNode
        let codingPath: [any CodingKey]

        private func set(_ child: EncodingNode.Child, _ key: Key) {
            guard case .object(var members, var nested) = node.content else { return }
            node.content = .empty  // release the storage so the dictionaries are mutated in place
            let name = key.stringValue
            switch child {
            case .value(let value):
                members[name] = value
                // Nested containers are rare: most objects never look the name up a second time.
                if !nested.isEmpty { nested[name] = nil }
            case .node(let child):
                nested[name] = child
                if !members.isEmpty { members[name] = nil }
            }
            node.content = .object(members, nested: nested)
        }

        mutating func encodeNil(forKey key: Key) throws { set(.value(.null), key) }
        mutating func encode(_ value: Bool, forKey key: Key) throws { set(.value(.bool(value)), key) }
        mutating func encode(_ value: String, forKey key: Key) throws { set(.value(.string(value)), key) }
        mutating func encode(_ value: Double, forKey key: Key) throws { set(.value(ValueEncoder.encodeDouble(value)), key) }
        mutating func encode(_ value: Float, forKey key: Key) throws { set(.value(ValueEncoder.encodeDouble(Double(value))), key) }
        mutating func encode(_ value: Int, forKey key: Key) throws { set(.value(.int(Int64(value))), key) }
        mutating func encode(_ value: Int64, forKey key: Key) throws { set(.value(.int(value)), key) }
        mutating func encode(_ value: Int32, forKey key: Key) throws { set(.value(.int(Int64(value))), key) }

        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
            set(.value(try ValueEncoder.encode(value, codingPath: codingPath + [key])), key)
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
            -> KeyedEncodingContainer<NestedKey>
        {
            let child = EncodingNode()
            child.content = .object([:], nested: [:])
            set(.node(child), key)
            return KeyedEncodingContainer(KeyedContainer<NestedKey>(node: child, codingPath: codingPath + [key]))
        }

        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            let child = EncodingNode()
            child.content = .array([])
            set(.node(child), key)
            return UnkeyedContainer(node: child, codingPath: codingPath + [key])
        }

        mutating func superEncoder() -> any Encoder {
            let child = EncodingNode()
            if let key = Key(stringValue: "super") { set(.node(child), key) }
            return TreeEncoder(codingPath: codingPath, node: child)
        }

        mutating func superEncoder(forKey key: Key) -> any Encoder {
            let child = EncodingNode()
            set(.node(child), key)
            return TreeEncoder(codingPath: codingPath + [key], node: child)
        }
    }

    struct UnkeyedContainer: UnkeyedEncodingContainer {
        let node: EncodingNode
        let codingPath: [any CodingKey]

        var count: Int {
            if case .array(let elements) = node.content { return elements.count }
            return 0
        }

        private func append(_ child: EncodingNode.Child) {
            guard case .array(var elements) = node.content else { return }
            node.content = .empty
            elements.append(child)
            node.content = .array(elements)
        }

        mutating func encodeNil() throws { append(.value(.null)) }
        mutating func encode(_ value: Bool) throws { append(.value(.bool(value))) }
        mutating func encode(_ value: String) throws { append(.value(.string(value))) }
        mutating func encode(_ value: Double) throws { append(.value(ValueEncoder.encodeDouble(value))) }
        mutating func encode(_ value: Int) throws { append(.value(.int(Int64(value)))) }
        mutating func encode(_ value: Int64) throws { append(.value(.int(value))) }

        mutating func encode<T: Encodable>(_ value: T) throws {
            append(.value(try ValueEncoder.encode(value, codingPath: codingPath + [IndexKey(count)])))
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
            let child = EncodingNode()
            child.content = .object([:], nested: [:])
            let path = codingPath + [IndexKey(count)]
            append(.node(child))
            return KeyedEncodingContainer(KeyedContainer<NestedKey>(node: child, codingPath: path))
        }

        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
            let child = EncodingNode()
            child.content = .array([])
            let path = codingPath + [IndexKey(count)]
            append(.node(child))
            return UnkeyedContainer(node: child, codingPath: path)
        }

        mutating func superEncoder() -> any Encoder {
            let child = EncodingNode()
            append(.node(child))
            return TreeEncoder(codingPath: codingPath, node: child)
        }
    }

    struct SingleValueContainer: SingleValueEncodingContainer {
        let node: EncodingNode
        let codingPath: [any CodingKey]

        mutating func encodeNil() throws { node.content = .value(.null) }
        mutating func encode(_ value: Bool) throws { node.content = .value(.bool(value)) }
        mutating func encode(_ value: String) throws { node.content = .value(.string(value)) }
        mutating func encode(_ value: Double) throws { node.content = .value(ValueEncoder.encodeDouble(value)) }
        mutating func encode(_ value: Int) throws { node.content = .value(.int(Int64(value))) }

        mutating func encode<T: Encodable>(_ value: T) throws {
            node.content = .value(try ValueEncoder.encode(value, codingPath: codingPath))
        }
    }
}

/// A coding key for an array position.
struct IndexKey: CodingKey {
    let intValue: Int?
    let stringValue: String

    init(_ index: Int) {
        self.intValue = index
        self.stringValue = "\(index)"
    }

    init?(stringValue: String) {
        self.stringValue = stringValue
        self.intValue = Int(stringValue)
    }

    init?(intValue: Int) {
        self.init(intValue)
    }
}
