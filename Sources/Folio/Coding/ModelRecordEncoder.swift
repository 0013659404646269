import FolioStorage

/// Collects a model's persisted properties as stored values. Generated `_folioEncode(to:)` calls it.
///
/// Attributes are stored in their canonical form (see ``ValueEncoder``). A relationship is stored as
/// the record numbers of the related models: a number (or `null`) for a to-one relationship, an array
/// of numbers for a to-many one (sorted for a `Set`).
public struct ModelRecordEncoder {
    /// The encoded values, by property name.
    public internal(set) var values: [String: JSONValue] = [:]
    let entityName: String
    let backingData: ModelBackingData
    /// When set, only these properties are encoded (a save writes only what changed).
    let onlyProperties: Set<String>?
    /// Returns the record number of a related model; the context assigns numbers before encoding.
    let recordNumber: (AnyObject) throws -> Int64

    init(entityName: String, backingData: ModelBackingData, onlyProperties: Set<String>? = nil,
         recordNumber: @escaping (AnyObject) throws -> Int64) {
        self.entityName = entityName
        self.backingData = backingData
        self.onlyProperties = onlyProperties
        self.recordNumber = recordNumber
    }

    /// Encodes one persisted property.
    public mutating func encode<Value>(_ field: _ModelField<Value>, forKey key: String) throws {
        if let onlyProperties, !onlyProperties.contains(key) { return }
        switch field {
        case .unloaded:
            if let stored = backingData.unresolvedRelationships[key] { values[key] = stored }
        case .loaded(let value):
            do {
                values[key] = try encodeValue(value)
            } catch let error as ModelCodingError {
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
                throw EncodingError.invalidValue(value, .init(codingPath: [],
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
