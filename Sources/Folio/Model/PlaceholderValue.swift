import Foundation
import FolioStorage

/// The value a property reads as on an instance that has nothing to load it from: the placeholder
/// `model(for:)` returns for an identifier the store does not have, or the stand-in a lazy fetch returns for a record deleted in the meantime.
///
/// Such a property has no stored value, and a getter cannot throw, so it reads as the type's empty
/// value instead of stopping the program: `nil` for an optional, an empty collection, `""`, `0`,
/// `false`, the reference date, the all-zero UUID, the root file URL, the first case of a `CaseIterable`
/// enum, a placeholder model marked deleted for a relationship, and for other `Decodable` types what
/// decoding from nothing but empty values gives. (A property with a declared default reads as that
/// default first; the macro passes it.)
enum PlaceholderValue {
    static func make<Value>(_ type: Value.Type) -> Value? {
        make(type, depth: 0)
    }

    /// Whether `type` has an empty value to stand in for a missing one.
    static func exists(for type: any Any.Type) -> Bool {
        func check<Value>(_ type: Value.Type) -> Bool { make(type) != nil }
        return check(type)
    }

    /// Whether an instance of `model` with nothing loaded can show every persisted property: each has a
    /// declared default or its type has an empty value (for a required relationship, a placeholder of
    /// a model that can stand in itself). Worked out once per class.
    ///
    /// Required relationships can form cycles (`A.b: B`, `B.a: A`), so the classes reachable through
    /// them are answered together: each is checked for its other properties, then any class that needs
    /// one that cannot stand in is dropped, until nothing changes. No class's answer rests on an
    /// assumption made about another while that one was still being checked.
    static func canStandIn(_ model: any PersistentModel.Type) -> Bool {
        let key = ObjectIdentifier(model)
        let thread = ObjectIdentifier(Thread.current)
        let known: Bool? = standIns.withLock { state in
            if let answer = state.answers[key] { return answer }
            // Asked again on this thread while it checks this class, through a `Codable` value that
            // holds a model: answer no, which is always safe (Folio then loads the class completely and
            // uses another class for its placeholders), and remember nothing. Another thread checking it
            // meanwhile does not count: this one checks it too, and gets the same answer.
            if state.checking[key]?.contains(thread) == true { return false }
            state.checking[key, default: []].insert(thread)
            return nil
        }
        if let known { return known }

        var checks: [ObjectIdentifier: (needs: [ObjectIdentifier], othersHaveValues: Bool)] = [:]
        var pending: [any PersistentModel.Type] = [model]
        while let type = pending.popLast() {
            let id = ObjectIdentifier(type)
            guard checks[id] == nil else { continue }
            if let answer = standIns.withLock({ $0.answers[id] }) {
                checks[id] = ([], answer)
                continue
            }
            var needs: [ObjectIdentifier] = []
            var othersHaveValues = true
            var classes: [any PersistentModel.Type] = [type]
            while let parent = classes.last?._folioSuperclass { classes.append(parent) }
            for property in classes.flatMap({ $0.schemaMetadata }) where property.defaultValue == nil {
                if let related = property.valueType as? any PersistentModel.Type {
                    needs.append(ObjectIdentifier(related))
                    pending.append(related)
                } else if !exists(for: property.valueType) {
                    othersHaveValues = false
                }
            }
            checks[id] = (needs, othersHaveValues)
        }
        var able = Set(checks.filter { $0.value.othersHaveValues }.keys)
        var changed = true
        while changed {
            changed = false
            for id in Array(able) where checks[id]?.needs.contains(where: { !able.contains($0) }) == true {
                able.remove(id)
                changed = true
            }
        }
        standIns.withLock { state in
            for id in checks.keys { state.answers[id] = able.contains(id) }
            state.checking[key]?.remove(thread)
            if state.checking[key]?.isEmpty == true { state.checking[key] = nil }
        }
        return able.contains(key)
    }

    /// The answers of ``canStandIn(_:)`` by class, and the classes being checked with the threads
    /// checking each.
    private static let standIns = LockedState<(answers: [ObjectIdentifier: Bool], checking: [ObjectIdentifier: Set<ObjectIdentifier>])>(([:], [:]))

    /// The deepest nesting of types followed; a type that decodes itself without end gives no value.
    private static let maximumDepth = 32

    fileprivate static func make<Value>(_ type: Value.Type, depth: Int) -> Value? {
        guard depth < maximumDepth else { return nil }
        if let optional = type as? any _OptionalValue.Type { return optional._none as? Value }
        if let model = type as? any PersistentModel.Type {
            // A placeholder model must itself be able to show every property with nothing loaded.
            guard canStandIn(model) else { return nil }
            guard let placeholder = try? model.init(_claimed: _ClaimedBackingData(new: ModelBackingData())) else { return nil }
            placeholder.persistentBackingData.isDeleted = true
            return placeholder as? Value
        }
        if let collection = type as? any _ModelCollection.Type, collection._elementType is any PersistentModel.Type {
            return collection._make([]) as? Value
        }
        // Foundation values that no empty text decodes to.
        if type == UUID.self { return UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)) as? Value }
        if type == URL.self { return URL(fileURLWithPath: "/") as? Value }
        if let enumeration = type as? any CaseIterable.Type, let first = firstCase(of: enumeration) as? Value {
            return first
        }
        guard let decodable = type as? any Decodable.Type else { return nil }
        return (try? decodable.init(from: EmptyDecoder(depth: depth + 1))) as? Value
    }

    private static func firstCase<T: CaseIterable>(of type: T.Type) -> Any? {
        type.allCases.first
    }
}

/// A decoder that answers every question with an empty value: no keys present except as empty values,
/// `nil` wherever `nil` is allowed, `""`, `0` and `false` for single values, empty arrays.
private struct EmptyDecoder: Decoder {
    var codingPath: [any CodingKey] = []
    let depth: Int

    init(codingPath: [any CodingKey] = [], depth: Int) {
        self.codingPath = codingPath
        self.depth = depth
    }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(Keyed<Key>(codingPath: codingPath, depth: depth))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer { Unkeyed(codingPath: codingPath, depth: depth) }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { Single(codingPath: codingPath, depth: depth) }

    static func empty<T: Decodable>(_ type: T.Type, codingPath: [any CodingKey], depth: Int) throws -> T {
        if let value = PlaceholderValue.make(type, depth: depth) { return value }
        throw DecodingError.dataCorrupted(.init(codingPath: codingPath, debugDescription: "\(T.self) has no empty value"))
    }

    struct Keyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let codingPath: [any CodingKey]
        let depth: Int
        var allKeys: [Key] { [] }
        func contains(_ key: Key) -> Bool { true }
        func decodeNil(forKey key: Key) throws -> Bool { true }
        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            try EmptyDecoder.empty(type, codingPath: codingPath + [key], depth: depth)
        }
        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
            -> KeyedDecodingContainer<NestedKey>
        {
            KeyedDecodingContainer(Keyed<NestedKey>(codingPath: codingPath + [key], depth: depth))
        }
        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            Unkeyed(codingPath: codingPath + [key], depth: depth)
        }
        func superDecoder() throws -> any Decoder { EmptyDecoder(codingPath: codingPath, depth: depth) }
        func superDecoder(forKey key: Key) throws -> any Decoder { EmptyDecoder(codingPath: codingPath + [key], depth: depth) }
    }

    struct Unkeyed: UnkeyedDecodingContainer {
        let codingPath: [any CodingKey]
        let depth: Int
        var count: Int? { 0 }
        var isAtEnd: Bool { true }
        var currentIndex: Int { 0 }
        mutating func decodeNil() throws -> Bool { true }
        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
            try EmptyDecoder.empty(type, codingPath: codingPath, depth: depth)
        }
        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
            KeyedDecodingContainer(Keyed<NestedKey>(codingPath: codingPath, depth: depth))
        }
        mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer { Unkeyed(codingPath: codingPath, depth: depth) }
        mutating func superDecoder() throws -> any Decoder { EmptyDecoder(codingPath: codingPath, depth: depth) }
    }

    struct Single: SingleValueDecodingContainer {
        let codingPath: [any CodingKey]
        let depth: Int
        func decodeNil() -> Bool { false }
        func decode(_ type: String.Type) throws -> String { "" }
        func decode(_ type: Bool.Type) throws -> Bool { false }
        func decode(_ type: Double.Type) throws -> Double { 0 }
        func decode(_ type: Float.Type) throws -> Float { 0 }
        func decode(_ type: Int.Type) throws -> Int { 0 }
        func decode(_ type: Int8.Type) throws -> Int8 { 0 }
        func decode(_ type: Int16.Type) throws -> Int16 { 0 }
        func decode(_ type: Int32.Type) throws -> Int32 { 0 }
        func decode(_ type: Int64.Type) throws -> Int64 { 0 }
        func decode(_ type: UInt.Type) throws -> UInt { 0 }
        func decode(_ type: UInt8.Type) throws -> UInt8 { 0 }
        func decode(_ type: UInt16.Type) throws -> UInt16 { 0 }
        func decode(_ type: UInt32.Type) throws -> UInt32 { 0 }
        func decode(_ type: UInt64.Type) throws -> UInt64 { 0 }
        func decode<T: Decodable>(_ type: T.Type) throws -> T {
            try EmptyDecoder.empty(type, codingPath: codingPath, depth: depth)
        }
    }
}
