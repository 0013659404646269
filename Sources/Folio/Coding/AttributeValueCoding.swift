import FolioStorage

/// One attribute's value to and from its stored form, without a model: what an update by predicate
/// reads and writes. The forms are the ones a model's generated coding gives (``ModelRecordEncoder``,
/// ``ModelRecordDecoder``), so a record an update wrote reads back as a save of a model would.
///
/// The common types take inlinable fast paths, specialized in the caller's module as the generated
/// coding's are (an update calls them once per record); the rest go through the general paths.
@usableFromInline
enum AttributeValueCoding {
    /// The stored form of `value`.
    ///
    /// - Throws: ``FolioError/Code/modelCoding`` when the value's own encoding fails.
    @inlinable
    static func encode<Value>(_ value: Value, property: String, entity: String) throws -> JSONValue {
        if let fast = PrimitiveCoding.encode(value) { return fast }
        return try encodeGeneral(value, property: property, entity: entity)
    }

    @usableFromInline
    static func encodeGeneral<Value>(_ value: Value, property: String, entity: String) throws -> JSONValue {
        if let optional = value as? any _OptionalValue, optional._isNone { return .null }
        do {
            if let special = try ValueEncoder.encodeSpecial(value, codingPath: []) { return special }
            guard let encodable = value as? any Encodable else {
                throw FolioError(.modelCoding, "\(entity).\(property): \(Value.self) is not Encodable")
            }
            return try ValueEncoder.encode(encodable)
        } catch let error as FolioError {
            throw error
        } catch {
            throw FolioError(.modelCoding, "\(entity).\(property): the new value could not be encoded", underlying: error)
        }
    }

    /// The value `stored` holds: when the record has no value for the attribute, its declared default,
    /// or nil for an optional one.
    ///
    /// - Throws: ``FolioError/Code/modelCoding`` when the stored value does not decode as `Value`, or
    ///   when there is none and the attribute has neither a default nor an optional type.
    @inlinable
    static func decode<Value>(
        _ stored: JSONValue?, as type: Value.Type, defaultValue: Any?,
        property: String, entity: String
    ) throws -> Value {
        if let stored, let fast = PrimitiveCoding.decode(stored, as: Value.self), let value = fast { return value }
        return try decodeGeneral(stored, as: type, defaultValue: defaultValue, property: property, entity: entity)
    }

    @usableFromInline
    static func decodeGeneral<Value>(
        _ stored: JSONValue?, as type: Value.Type, defaultValue: Any?,
        property: String, entity: String
    ) throws -> Value {
        guard let stored else {
            if let value = defaultValue as? Value { return value }
            if let optional = Value.self as? any _OptionalValue.Type, let none = optional._none as? Value { return none }
            throw FolioError(.modelCoding, "\(entity).\(property): the record has no value, and the attribute has no default and is not optional")
        }
        do {
            if let special = try ValueDecoder.decodeSpecial(Value.self, from: stored, codingPath: []) { return special }
            if stored.isNull, let optional = Value.self as? any _OptionalValue.Type, let none = optional._none as? Value {
                return none
            }
            guard let decodable = Value.self as? any Decodable.Type,
                let value = try ValueDecoder.decode(decodable, from: stored) as? Value
            else {
                throw FolioError(.modelCoding, "\(entity).\(property): the stored value does not decode as \(Value.self)")
            }
            return value
        } catch let error as FolioError {
            throw error
        } catch {
            throw FolioError(.modelCoding, "\(entity).\(property): the stored value does not decode as \(Value.self)", underlying: error)
        }
    }

    /// Whether values of `type` are relationships (models, or collections of models).
    @usableFromInline
    static func isRelationship(_ type: any Any.Type) -> Bool {
        ValueKind.of(type).isRelationship
    }
}
