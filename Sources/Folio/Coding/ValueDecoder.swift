import FolioStorage

/// Decodes `Decodable` values from ``JSONValue``s in Folio's canonical stored form, the inverse of
/// ``ValueEncoder``. Errors are Swift's `DecodingError`s with the coding path inside the value.
enum ValueDecoder {
    static func decode<T: Decodable>(_ type: T.Type, from value: JSONValue, codingPath: [any CodingKey] = []) throws -> T {
        if let special = try decodeSpecial(type, from: value, codingPath: codingPath) {
            return special
        }
        return try T(from: TreeDecoder(value: value, codingPath: codingPath))
    }

    private static func mismatch(_ type: Any.Type, _ value: JSONValue, _ codingPath: [any CodingKey]) -> DecodingError {
        .typeMismatch(type, .init(codingPath: codingPath, debugDescription: "expected \(type), found \(value.kindDescription)"))
    }

    /// Decodes the types with a canonical form of their own; nil for other types.
    ///
    /// The type is recognised by comparing metatypes (a pointer comparison each), not by casts: a
    /// `Codable` struct, which none of these cases match, would otherwise pay a failed dynamic cast per case.
    static func decodeSpecial<T>(_ type: T.Type, from value: JSONValue, codingPath: [any CodingKey]) throws -> T? {
        func cast<V>(_ result: V) -> T { PrimitiveCoding.reinterpret(result, as: T.self) }
        if type == String.self {
            guard case .string(let string) = value else { throw mismatch(type, value, codingPath) }
            return cast(string)
        }
        if type == Bool.self {
            guard case .bool(let bool) = value else { throw mismatch(type, value, codingPath) }
            return cast(bool)
        }
        if type == Double.self { return cast(try double(value, codingPath)) }
        if type == Int.self { return cast(try integer(Int.self, value, codingPath)) }
        if type == Date.self {
            guard let date = CanonicalDate.decode(value) else {
                throw DecodingError.dataCorrupted(
                    .init(
                        codingPath: codingPath,
                        debugDescription: "expected a date such as \"2026-03-01T09:30:00Z\", found \(value.kindDescription)"))
            }
            return cast(date)
        }
        if type == Float.self { return cast(Float(try double(value, codingPath))) }
        if type == Int64.self { return cast(try integer(Int64.self, value, codingPath)) }
        if type == Int32.self { return cast(try integer(Int32.self, value, codingPath)) }
        if type == Int16.self { return cast(try integer(Int16.self, value, codingPath)) }
        if type == Int8.self { return cast(try integer(Int8.self, value, codingPath)) }
        if type == UInt.self { return cast(try integer(UInt.self, value, codingPath)) }
        if type == UInt64.self { return cast(try integer(UInt64.self, value, codingPath)) }
        if type == UInt32.self { return cast(try integer(UInt32.self, value, codingPath)) }
        if type == UInt16.self { return cast(try integer(UInt16.self, value, codingPath)) }
        if type == UInt8.self { return cast(try integer(UInt8.self, value, codingPath)) }
        if type == UUID.self {
            guard case .string(let text) = value, let uuid = UUID(uuidString: text) else {
                throw DecodingError.dataCorrupted(
                    .init(
                        codingPath: codingPath,
                        debugDescription: "expected a UUID string, found \(value.kindDescription)"))
            }
            return cast(uuid)
        }
        if type == URL.self {
            guard case .string(let text) = value, let url = URL(string: text) else {
                throw DecodingError.dataCorrupted(
                    .init(
                        codingPath: codingPath,
                        debugDescription: "expected a URL string, found \(value.kindDescription)"))
            }
            return cast(url)
        }
        if type == Data.self {
            guard case .string(let text) = value, let data = Data(base64Encoded: text) else {
                throw DecodingError.dataCorrupted(
                    .init(
                        codingPath: codingPath,
                        debugDescription: "expected Base64 text, found \(value.kindDescription)"))
            }
            return cast(data)
        }
        if type == Decimal.self {
            switch value {
            case .string(let text):
                guard let decimal = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) else {
                    throw mismatch(type, value, codingPath)
                }
                return cast(decimal)
            case .int(let int): return cast(Decimal(int))
            case .double(let double): return cast(Decimal(double))
            default: throw mismatch(type, value, codingPath)
            }
        }
        return nil
    }

    static func double(_ value: JSONValue, _ codingPath: [any CodingKey]) throws -> Double {
        switch value {
        case .double(let double): return double
        case .int(let int): return Double(int)
        case .string("NaN"): return .nan
        case .string("Infinity"): return .infinity
        case .string("-Infinity"): return -.infinity
        default: throw mismatch(Double.self, value, codingPath)
        }
    }

    static func integer<I: FixedWidthInteger>(_ type: I.Type, _ value: JSONValue, _ codingPath: [any CodingKey]) throws -> I {
        switch value {
        case .int(let int):
            guard let exact = I(exactly: int) else {
                throw DecodingError.dataCorrupted(.init(codingPath: codingPath, debugDescription: "\(int) does not fit in \(I.self)"))
            }
            return exact
        case .double(let double):
            guard let exact = I(exactly: double) else {
                throw DecodingError.dataCorrupted(.init(codingPath: codingPath, debugDescription: "\(double) is not a whole \(I.self)"))
            }
            return exact
        case .string(let text):
            guard let parsed = I(text) else { throw mismatch(type, value, codingPath) }
            return parsed
        default:
            throw mismatch(type, value, codingPath)
        }
    }
}

extension JSONValue {
    /// A short description of the value's kind, for error messages.
    var kindDescription: String {
        switch self {
        case .null: return "null"
        case .bool(let value): return "the Boolean \(value)"
        case .int(let value): return "the number \(value)"
        case .double(let value): return "the number \(value)"
        case .string(let value): return "the string \"\(value.count > 40 ? String(value.prefix(40)) + "…" : value)\""
        case .array(let value): return "an array of \(value.count)"
        case .object: return "an object"
        }
    }
}

struct TreeDecoder: Decoder {
    let value: JSONValue
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let members) = value else {
            throw DecodingError.typeMismatch(
                [String: Any].self,
                .init(
                    codingPath: codingPath,
                    debugDescription: "expected an object, found \(value.kindDescription)"))
        }
        return KeyedDecodingContainer(KeyedContainer<Key>(members: members, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let elements) = value else {
            throw DecodingError.typeMismatch(
                [Any].self,
                .init(
                    codingPath: codingPath,
                    debugDescription: "expected an array, found \(value.kindDescription)"))
        }
        return UnkeyedContainer(elements: elements, codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        SingleValueContainer(value: value, codingPath: codingPath)
    }

    struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let members: [String: JSONValue]
        let codingPath: [any CodingKey]

        var allKeys: [Key] { members.keys.sorted().compactMap { Key(stringValue: $0) } }

        func contains(_ key: Key) -> Bool { members[key.stringValue] != nil }

        private func member(_ key: Key) throws -> JSONValue {
            guard let value = members[key.stringValue] else {
                throw DecodingError.keyNotFound(
                    key,
                    .init(
                        codingPath: codingPath,
                        debugDescription: "no value for '\(key.stringValue)'"))
            }
            return value
        }

        func decodeNil(forKey key: Key) throws -> Bool {
            (try member(key)).isNull
        }

        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            try ValueDecoder.decode(type, from: try member(key), codingPath: codingPath + [key])
        }

        // The common types, without the generic path (and without making a coding path unless an error
        // needs one).
        func decode(_ type: String.Type, forKey key: Key) throws -> String {
            if case .string(let string) = try member(key) { return string }
            return try decode(type, forKeyGenerically: key)
        }

        func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
            if case .bool(let bool) = try member(key) { return bool }
            return try decode(type, forKeyGenerically: key)
        }

        func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
            if case .double(let double) = try member(key) { return double }
            return try decode(type, forKeyGenerically: key)
        }

        func decode(_ type: Int.Type, forKey key: Key) throws -> Int {
            if case .int(let int) = try member(key), let exact = Int(exactly: int) { return exact }
            return try decode(type, forKeyGenerically: key)
        }

        private func decode<T: Decodable>(_ type: T.Type, forKeyGenerically key: Key) throws -> T {
            try ValueDecoder.decode(type, from: try member(key), codingPath: codingPath + [key])
        }

        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
            -> KeyedDecodingContainer<NestedKey>
        {
            try TreeDecoder(value: try member(key), codingPath: codingPath + [key]).container(keyedBy: type)
        }

        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            try TreeDecoder(value: try member(key), codingPath: codingPath + [key]).unkeyedContainer()
        }

        func superDecoder() throws -> any Decoder {
            TreeDecoder(value: members["super"] ?? .null, codingPath: codingPath)
        }

        func superDecoder(forKey key: Key) throws -> any Decoder {
            TreeDecoder(value: members[key.stringValue] ?? .null, codingPath: codingPath + [key])
        }
    }

    struct UnkeyedContainer: UnkeyedDecodingContainer {
        let elements: [JSONValue]
        let codingPath: [any CodingKey]
        var currentIndex = 0

        var count: Int? { elements.count }
        var isAtEnd: Bool { currentIndex >= elements.count }

        private mutating func next() throws -> JSONValue {
            guard !isAtEnd else {
                throw DecodingError.valueNotFound(
                    Any.self,
                    .init(
                        codingPath: codingPath + [IndexKey(currentIndex)],
                        debugDescription: "the array has only \(elements.count) elements"))
            }
            defer { currentIndex += 1 }
            return elements[currentIndex]
        }

        mutating func decodeNil() throws -> Bool {
            guard !isAtEnd else { return false }
            if elements[currentIndex].isNull {
                currentIndex += 1
                return true
            }
            return false
        }

        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
            let path = codingPath + [IndexKey(currentIndex)]
            return try ValueDecoder.decode(type, from: try next(), codingPath: path)
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
            let path = codingPath + [IndexKey(currentIndex)]
            return try TreeDecoder(value: try next(), codingPath: path).container(keyedBy: type)
        }

        mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
            let path = codingPath + [IndexKey(currentIndex)]
            return try TreeDecoder(value: try next(), codingPath: path).unkeyedContainer()
        }

        mutating func superDecoder() throws -> any Decoder {
            let path = codingPath + [IndexKey(currentIndex)]
            return TreeDecoder(value: try next(), codingPath: path)
        }
    }

    struct SingleValueContainer: SingleValueDecodingContainer {
        let value: JSONValue
        let codingPath: [any CodingKey]

        func decodeNil() -> Bool { value.isNull }

        func decode<T: Decodable>(_ type: T.Type) throws -> T {
            try ValueDecoder.decode(type, from: value, codingPath: codingPath)
        }

        func decode(_ type: String.Type) throws -> String {
            if case .string(let string) = value { return string }
            return try ValueDecoder.decode(type, from: value, codingPath: codingPath)
        }
    }
}
