import FolioStorage

/// The value each attribute of the schema reads as in a record that has none for it: a record written
/// before the attribute was added to its model. It is the attribute's declared default in the stored
/// form the encoder would have written, as SwiftData's lightweight migration fills added attributes in.
///
/// Made once from the schema. Readers of stored values consult it only when a record lacks a key, so it
/// costs nothing for records that have their values. An attribute without a declared default has no
/// entry: an optional one then reads as null, as it always has.
struct StoredDefaults {
    /// Default stored values by entity name, then by attribute name; entities without any are absent.
    private let byEntity: [String: [String: JSONValue]]

    init(schema: Schema) {
        var byEntity: [String: [String: JSONValue]] = [:]
        for entity in schema.entities {
            var defaults: [String: JSONValue] = [:]
            for attribute in entity.attributesByName.values where !attribute.isTransient && !attribute.isExternalStorage {
                if let stored = attribute.defaultValue.flatMap(Self.storedForm) { defaults[attribute.name] = stored }
            }
            if !defaults.isEmpty { byEntity[entity.name] = defaults }
        }
        self.byEntity = byEntity
    }

    /// The stored default of `field` in records of `entity`, or nil when it has none.
    func value(of field: String, in entity: String) -> JSONValue? {
        byEntity[entity]?[field]
    }

    /// The stored default of `field` in records of any of `entities`: for a field of the fetched type,
    /// which its subentities inherit with the same default.
    func value(of field: String, inAnyOf entities: Set<String>) -> JSONValue? {
        for entity in entities {
            if let value = value(of: field, in: entity) { return value }
        }
        return nil
    }

    /// The stored defaults of `entity`'s attributes, by name.
    func values(of entity: String) -> [String: JSONValue] {
        byEntity[entity] ?? [:]
    }

    /// A declared default as the encoder stores it: null for nil, the canonical form of an `Encodable`
    /// value; nil when it cannot be encoded (the attribute then keeps reading as missing).
    static func storedForm(_ value: Any) -> JSONValue? {
        var value = value
        while let optional = value as? any _OptionalValue {
            guard let wrapped = optional._wrappedValue else { return .null }
            value = wrapped
        }
        guard let encodable = value as? any Encodable else { return nil }
        return try? ValueEncoder.encode(encodable)
    }
}

/// One record's stored values, read as the engine reads them: a field the record has no value for
/// reads its stored default.
struct StoredRow {
    let entity: String
    let values: RecordValues
    let defaults: StoredDefaults

    subscript(field: String) -> JSONValue? {
        values[field] ?? defaults.value(of: field, in: entity)
    }
}
