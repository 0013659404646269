import FolioStorage

/// Reads a model's persisted properties from stored values. Generated `_folioDecode(from:)` calls it.
///
/// A property missing from the record takes the property's default, or `nil` when it is optional;
/// otherwise decoding fails with a ``ModelCodingError`` naming the property. A relationship that refers
/// to models is not resolved here: it stays unloaded until it is first read.
public struct ModelRecordDecoder {
    @usableFromInline let values: RecordValues
    let entityName: String
    let identifier: PersistentIdentifier?
    let backingData: ModelBackingData

    @usableFromInline
    init(values: RecordValues, entityName: String, identifier: PersistentIdentifier?, backingData: ModelBackingData) {
        self.values = values
        self.entityName = entityName
        self.identifier = identifier
        self.backingData = backingData
    }

    /// Decodes a property that has no default.
    @inlinable
    public mutating func decode<Value>(forKey key: String) throws -> _ModelField<Value> {
        if let value: Value = try decodeCommon(forKey: key) { return .loaded(value) }
        return try decodeGeneral(forKey: key)
    }

    /// The stored value of a common type, decoded where the caller specializes it; nil for the rest.
    @inlinable
    func decodeCommon<Value>(forKey key: String) throws -> Value? {
        guard let stored = values[key] else { return nil }
        // Common value types (they are never unresolved relationships).
        if let fast = PrimitiveCoding.decode(stored, as: Value.self), let value = fast { return value }
        // A `Codable` struct stored as an object (such as a `.codable` attribute): whether the type is
        // `Decodable` is known where this is specialized.
        if case .object = stored, let decodable = Value.self as? any Decodable.Type {
            return try decodeObject(decodable, from: stored, forKey: key) as? Value
        }
        return nil
    }

    /// Decodes an attribute stored as an object, as the general path would; nil if `type` is not an
    /// attribute type (a model), which the general path then handles.
    @usableFromInline
    func decodeObject(_ type: any Decodable.Type, from stored: JSONValue, forKey key: String) throws -> Any? {
        guard case .attribute = ValueKind.of(type) else { return nil }
        do {
            return try ValueDecoder.decode(type, from: stored)
        } catch let error as ModelCodingError {
            throw error
        } catch let error as FolioError where error.code == .reentrantCall {
            // A save or fetch the value's own coding called: the caller's mistake, reported as is.
            throw error
        } catch {
            throw ModelCodingError(entityName: entityName, identifier: identifier, property: key, error: error)
        }
    }

    @usableFromInline
    mutating func decodeGeneral<Value>(forKey key: String) throws -> _ModelField<Value> {
        if let field: _ModelField<Value> = try decodeStored(forKey: key) { return field }
        if let optional = Value.self as? any _OptionalValue.Type, let none = optional._none as? Value {
            return .loaded(none)
        }
        throw ModelCodingError(
            entityName: entityName, identifier: identifier, property: key,
            reason: "the record has no value for this property, which has no default and is not optional")
    }

    /// Decodes one property of a fault on its first read: like ``decode(forKey:)``, except that a
    /// missing value of a property that is neither optional nor defaulted gives `.unloaded` (the
    /// property then reads as its type's empty value) instead of an error.
    @inlinable
    public mutating func decodeIfPresent<Value>(forKey key: String) throws -> _ModelField<Value> {
        if let value: Value = try decodeCommon(forKey: key) { return .loaded(value) }
        return try decodeGeneralIfPresent(forKey: key)
    }

    @usableFromInline
    mutating func decodeGeneralIfPresent<Value>(forKey key: String) throws -> _ModelField<Value> {
        if let field: _ModelField<Value> = try decodeStored(forKey: key) { return field }
        if let optional = Value.self as? any _OptionalValue.Type, let none = optional._none as? Value {
            return .loaded(none)
        }
        return .unloaded
    }

    /// Decodes a property with a default, used when the record has no value for it.
    @inlinable
    public mutating func decode<Value>(forKey key: String, default makeDefault: () -> Value) throws -> _ModelField<Value> {
        if let value: Value = try decodeCommon(forKey: key) { return .loaded(value) }
        return try decodeGeneral(forKey: key, default: makeDefault)
    }

    @usableFromInline
    mutating func decodeGeneral<Value>(forKey key: String, default makeDefault: () -> Value) throws -> _ModelField<Value> {
        if let field: _ModelField<Value> = try decodeStored(forKey: key) { return field }
        return .loaded(makeDefault())
    }

    /// The property's stored value, or nil when the record has none.
    private mutating func decodeStored<Value>(forKey key: String) throws -> _ModelField<Value>? {
        if !backingData.unresolvedRelationships.isEmpty { backingData.unresolvedRelationships[key] = nil }
        guard let stored = values[key] else { return nil }
        if let fast = PrimitiveCoding.decode(stored, as: Value.self), let value = fast {
            return .loaded(value)
        }
        switch ValueKind.of(Value.self) {
        case .attribute:
            do {
                if let special = try ValueDecoder.decodeSpecial(Value.self, from: stored, codingPath: []) {
                    return .loaded(special)
                }
                if stored.isNull, let optional = Value.self as? any _OptionalValue.Type, let none = optional._none as? Value {
                    return .loaded(none)
                }
                guard let decodable = Value.self as? any Decodable.Type else {
                    throw ModelCodingError(
                        entityName: entityName, identifier: identifier, property: key,
                        reason: "\(Value.self) is neither Codable nor a model")
                }
                let decoded = try ValueDecoder.decode(decodable, from: stored)
                guard let typed = decoded as? Value else {
                    throw ModelCodingError(
                        entityName: entityName, identifier: identifier, property: key,
                        reason: "the stored value did not decode as \(Value.self)")
                }
                return .loaded(typed)
            } catch let error as ModelCodingError {
                throw error
            } catch let error as FolioError where error.code == .reentrantCall {
                // A save or fetch the value's own coding called: the caller's mistake, reported as is.
                throw error
            } catch {
                throw ModelCodingError(entityName: entityName, identifier: identifier, property: key, error: error)
            }
        case .toOne(_, let optional):
            if stored.isNull {
                guard optional, let none = (Value.self as? any _OptionalValue.Type)?._none as? Value else {
                    throw ModelCodingError(
                        entityName: entityName, identifier: identifier, property: key,
                        reason: "the relationship is not optional, but the record stores null")
                }
                return .loaded(none)
            }
            guard let number = stored.intValue else {
                throw ModelCodingError(
                    entityName: entityName, identifier: identifier, property: key,
                    reason: "expected a record number, found \(stored.kindDescription)")
            }
            // A required relationship is resolved now, so that its getter always has a model to return:
            // a record that refers to a missing one makes the fetch fail here, with a typed error.
            if !optional, let context = backingData.context {
                guard let related = context.model(forRecordNumber: number) as? Value else {
                    throw ModelCodingError(
                        entityName: entityName, identifier: identifier, property: key,
                        reason: "the relationship is required, but it refers to record \(number), which is not in the store")
                }
                return .loaded(related)
            }
        case .toMany(_, let collection):
            guard case .array(let elements) = stored, elements.allSatisfy({ $0.intValue != nil }) else {
                throw ModelCodingError(
                    entityName: entityName, identifier: identifier, property: key,
                    reason: "expected an array of record numbers, found \(stored.kindDescription)")
            }
            if elements.isEmpty, let empty = collection._make([]) as? Value {
                return .loaded(empty)
            }
        }
        backingData.unresolvedRelationships[key] = stored
        return .unloaded
    }
}
