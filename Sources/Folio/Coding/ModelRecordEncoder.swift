import FolioStorage

/// Collects a model's persisted properties as stored values. Generated `_folioEncode(to:)` calls it.
///
/// Attributes are stored in their canonical form (see `ValueEncoder`). A relationship is stored as
/// the record numbers of the related models: a number (or `null`) for a to-one relationship, an array
/// of numbers for a to-many one (sorted for a `Set`).
public struct ModelRecordEncoder {
    /// The names of the encoded properties, in the order they were encoded, when they stopped following
    /// ``arrangement`` (or there is none); while they follow it, they are its first ``filled`` names.
    @usableFromInline var names: [String]
    /// Their stored values: in the order they were encoded, or, while they follow ``arrangement``, each
    /// at its place in the record (``RecordArrangement/sortedPositions``), the places not filled yet
    /// holding `null`.
    @usableFromInline var encoded: ContiguousArray<JSONValue>
    /// How many values were encoded while following ``arrangement``.
    @usableFromInline var filled: Int
    /// The names this model's type encoded last time it encoded every property, with their layout.
    let arrangement: RecordArrangement?
    /// ``arrangement``'s names and where each one's value goes in the record (empty without one), held
    /// here so that appending a value reads them without going through the arrangement.
    @usableFromInline let expectedNames: [String]
    @usableFromInline let sortedPositions: [Int]
    /// Whether the names encoded so far are the first names of ``arrangement``: then they are not
    /// collected one by one, and the record is made without sorting them.
    @usableFromInline var followsArrangement: Bool

    /// The encoded values, by property name.
    public var values: RecordValues {
        if followsArrangement, filled == expectedNames.count,
            let record = arrangement?.record(sortedValues: encoded)
        {
            return record
        }
        let (names, encoded) = (encodedNames, encodedValues)
        if let record = RecordValues(names: names, values: encoded) { return record }
        // A name encoded twice (which generated code does not do): the last value wins.
        var dictionary: [String: JSONValue] = [:]
        for (name, value) in zip(names, encoded) { dictionary[name] = value }
        return RecordValues(dictionary)
    }

    /// The names of the encoded properties, in the order they were encoded.
    var encodedNames: [String] {
        followsArrangement ? Array(expectedNames.prefix(filled)) : names
    }

    /// The values of the encoded properties, in the order they were encoded.
    @usableFromInline var encodedValues: ContiguousArray<JSONValue> {
        guard followsArrangement else { return encoded }
        return ContiguousArray(sortedPositions.prefix(filled).map { encoded[$0] })
    }

    /// Adds the stored value of the property `key`.
    @inlinable
    mutating func append(_ value: JSONValue, forKey key: String) {
        if followsArrangement {
            if filled < expectedNames.count && expectedNames[filled] == key {
                encoded[sortedPositions[filled]] = value
                filled += 1
                return
            }
            // Another name than last time (a relationship not loaded is left out): collect them.
            encoded = encodedValues
            names = Array(expectedNames.prefix(filled))
            followsArrangement = false
        }
        names.append(key)
        encoded.append(value)
    }
    let entityName: String
    let backingData: ModelBackingData
    /// When set, only these properties are encoded (a save writes only what changed).
    @usableFromInline let onlyProperties: Set<String>?
    /// The one property to encode, when ``onlyProperties`` names one (a save of a single changed
    /// property): compared directly, which costs less than hashing every property's name.
    @usableFromInline let onlyProperty: String?
    /// Returns the record number of a related model; the context assigns numbers before encoding.
    let recordNumber: (AnyObject) throws -> Int64

    /// - Parameter arrangement: the arrangement to follow, ``ModelRecordCoding/learnedArrangement(of:)``'s
    ///   for the model's type.
    ///
    /// Not inlined, and each stored property is set once, from values worked out first: an inlined
    /// initializer builds the encoder in a temporary and copies it, retaining each reference again.
    @inline(never)
    init(
        entityName: String, backingData: ModelBackingData, onlyProperties: Set<String>? = nil,
        arrangement: RecordArrangement? = nil, recordNumber: @escaping (AnyObject) throws -> Int64
    ) {
        let followed = onlyProperties == nil ? arrangement : nil
        let expectedNames = followed?.names ?? []
        var names: [String] = []
        var encoded = ContiguousArray<JSONValue>()
        if followed != nil {
            encoded = ContiguousArray(repeating: .null, count: expectedNames.count)
        } else {
            let expected = onlyProperties?.count ?? 16
            names.reserveCapacity(expected)
            encoded.reserveCapacity(expected)
        }
        self.entityName = entityName
        self.backingData = backingData
        self.onlyProperties = onlyProperties
        self.onlyProperty = onlyProperties?.count == 1 ? onlyProperties?.first : nil
        self.recordNumber = recordNumber
        self.arrangement = followed
        self.followsArrangement = followed != nil
        self.expectedNames = expectedNames
        self.sortedPositions = followed?.sortedPositions ?? []
        self.names = names
        self.encoded = encoded
        self.filled = 0
    }

    /// Whether `key` is among the properties to encode.
    @inlinable
    func shouldEncode(_ key: String) -> Bool {
        if let onlyProperty { return key == onlyProperty }
        if let onlyProperties { return onlyProperties.contains(key) }
        return true
    }

    /// Encodes one persisted property.
    @inlinable
    public mutating func encode<Value>(_ field: _ModelField<Value>, forKey key: String) throws {
        if !shouldEncode(key) { return }
        // Common value types, specialized in the caller.
        if case .loaded(let value) = field, let fast = PrimitiveCoding.encode(value) {
            append(fast, forKey: key)
            return
        }
        // Any other optional that is nil (a `.codable` attribute, a to-one relationship) is stored as
        // null, as its `Codable` form and a relationship's number would be. Whether `Value` is optional
        // is known where this is specialized, so the cast costs nothing there.
        if case .loaded(let value) = field, let optional = value as? any _OptionalValue, optional._isNone {
            append(.null, forKey: key)
            return
        }
        // A `Codable` value (such as a `.codable` attribute): whether the type is `Encodable` is known
        // where this is specialized, so the cast costs nothing there.
        if case .loaded(let value) = field, let encodable = value as? any Encodable,
            try encodeAttribute(encodable, of: Value.self, forKey: key)
        {
            return
        }
        try encodeGeneral(field, forKey: key)
    }

    /// Encodes an `Encodable` value if its type is an attribute type (not a model or a collection of
    /// models); false otherwise, for the general path to handle.
    @usableFromInline
    mutating func encodeAttribute(_ value: any Encodable, of type: Any.Type, forKey key: String) throws -> Bool {
        guard case .attribute = ValueKind.of(type) else { return false }
        do {
            let stored = try ValueEncoder.encode(value)
            append(stored, forKey: key)
            return true
        } catch let error as ModelCodingError {
            throw error
        } catch let error as FolioError where error.code == .reentrantCall {
            // A save or fetch the value's own coding called: the caller's mistake, reported as is.
            throw error
        } catch {
            throw ModelCodingError(entityName: entityName, identifier: nil, property: key, error: error)
        }
    }

    @usableFromInline
    mutating func encodeGeneral<Value>(_ field: _ModelField<Value>, forKey key: String) throws {
        if !shouldEncode(key) { return }
        switch field {
        case .unloaded:
            // A relationship not resolved yet, or a property of a fault not read yet: its stored value.
            if let stored = backingData.unresolvedRelationships[key] ?? backingData.faultValues?[key] {
                append(stored, forKey: key)
            }
        case .loaded(let value):
            do {
                let stored = try encodeValue(value)
                append(stored, forKey: key)
            } catch let error as ModelCodingError {
                throw error
            } catch let error as FolioError where error.code == .reentrantCall {
                // A save or fetch the value's own coding called: the caller's mistake, reported as is.
                throw error
            } catch {
                throw ModelCodingError(entityName: entityName, identifier: nil, property: key, error: error)
            }
        }
    }

    private func encodeValue<Value>(_ value: Value) throws -> JSONValue {
        if let fast = PrimitiveCoding.encode(value) { return fast }
        switch ValueKind.of(Value.self) {
        case .attribute:
            if let special = try ValueEncoder.encodeSpecial(value, codingPath: []) { return special }
            guard let encodable = value as? any Encodable else {
                throw EncodingError.invalidValue(
                    value,
                    .init(
                        codingPath: [],
                        debugDescription: "\(Value.self) is neither Codable nor a model"))
            }
            return try ValueEncoder.encode(encodable)
        case .toOne:
            let object: AnyObject?
            if let optional = value as? any _OptionalValue {
                object = optional._wrappedValue.map { $0 as AnyObject }
            } else {
                object = value as AnyObject
            }
            guard let object else { return .null }
            return .int(try recordNumber(object))
        case .toMany:
            guard let collection = value as? any _ModelCollection else { return .array([]) }
            var numbers = try collection._elements.map { try recordNumber($0 as AnyObject) }
            if !(value is any _UnorderedElementsMarker) { return .array(numbers.map(JSONValue.int)) }
            numbers.sort()
            return .array(numbers.map(JSONValue.int))
        }
    }
}

/// Marks `Set`, whose related models are stored sorted by record number.
protocol _UnorderedElementsMarker {}
extension Set: _UnorderedElementsMarker {}
