import FolioStorage

/// The schema as a store records it in its manifest, so that tools without the model types (the
/// `folio` command, a Python script) can interpret records: each entity's superentity, and each
/// property's kind, type, options, relationship destination and inverse.
///
/// ```json
/// {"entities":{"Recipe":{"properties":{"name":{"kind":"attribute","type":"String","unique":true}, …},
///   "indices":[["name"]],"uniqueness":[["name"]]},
///  "BakedGood":{"superentity":"Recipe", …}},"version":"1.0.0"}
/// ```
enum SchemaDescription {
    static func make(_ schema: Schema) -> JSONValue {
        var entities: [String: JSONValue] = [:]
        for entity in schema.entities {
            var properties: [String: JSONValue] = [:]
            for property in entity.properties {
                var description: [String: JSONValue] = [:]
                if let attribute = property as? Schema.Attribute {
                    description["kind"] = .string("attribute")
                    description["type"] = .string(typeName(attribute.valueType))
                    if attribute.isOptional { description["optional"] = .bool(true) }
                    let options = attribute.options.map { JSONValue.string(String($0.description.dropFirst())) }
                    if !options.isEmpty { description["options"] = .array(options) }
                } else if let relationship = property as? Schema.Relationship {
                    description["kind"] = .string("relationship")
                    description["destination"] = .string(relationship.destination)
                    description["toMany"] = .bool(!relationship.isToOneRelationship)
                    description["deleteRule"] = .string(relationship.deleteRule.rawValue)
                    if relationship.isOptional { description["optional"] = .bool(true) }
                    if let inverse = relationship.inverseName { description["inverse"] = .string(inverse) }
                }
                if property.originalName != property.name { description["originalName"] = .string(property.originalName) }
                properties[property.name] = .object(description)
            }
            var entry: [String: JSONValue] = ["properties": .object(properties)]
            if let superentity = entity.superentity { entry["superentity"] = .string(superentity.name) }
            let groups: ([[String]]) -> JSONValue = { .array($0.map { .array($0.map(JSONValue.string)) }) }
            if !entity.indices.isEmpty { entry["indices"] = groups(entity.indices) }
            if !entity.uniquenessConstraints.isEmpty { entry["uniqueness"] = groups(entity.uniquenessConstraints) }
            entities[entity.name] = .object(entry)
        }
        return .object(["entities": .object(entities), "version": .string(schema.version.description)])
    }

    static func typeName(_ type: any Any.Type) -> String {
        if let optional = type as? any _OptionalValue.Type { return typeName(optional._wrappedType) }
        return String(describing: type)
    }
}

/// Checks that stored records fit the schema before a container uses them.
enum SchemaCheck {
    static func verify(index: RecordIndex, schema: Schema, storeDescription: String) throws {
        for (entityName, ids) in index.idsByEntity {
            guard let entity = schema.entitiesByName[entityName] else {
                throw FolioError(.schemaMismatch, "The store at \(storeDescription) holds \(entityName) records, an entity the schema does not know")
            }
            var known = Set(entity.properties.map(\.name))
            known.formUnion(entity.properties.map(\.originalName))
            let required = entity.properties.filter { property in
                guard !property.isOptional, !property.isTransient, let metadata = entity.metadataByName[property.name] else { return false }
                if metadata.defaultValue != nil { return false }
                if let relationship = property as? Schema.Relationship { return relationship.isToOneRelationship }
                return true
            }
            // Records share a handful of layouts (their property names): check each layout once, naming
            // the first record that has it.
            var firstRecordByLayout: [ObjectIdentifier: (id: Int64, values: RecordValues)] = [:]
            // Neighbouring records nearly always share a layout: a record with the previous record's
            // layout and a higher number cannot be the first of its layout, and needs no lookup.
            var previous: (layout: ObjectIdentifier, id: Int64)?
            for id in ids {
                guard let record = index.records[id] else { continue }
                let layout = ObjectIdentifier(record.values.layout)
                if let previous, previous.layout == layout, previous.id < id { continue }
                previous = (layout, id)
                if let first = firstRecordByLayout[layout], first.id < id { continue }
                firstRecordByLayout[layout] = (id, record.values)
            }
            for (id, values) in firstRecordByLayout.values.sorted(by: { $0.id < $1.id }) {
                let record = (id: id, values: values)
                for key in record.values.keys where !known.contains(key) {
                    throw FolioError(.schemaMismatch,
                        "\(entityName) record \(id) in \(storeDescription) has a property '\(key)' that \(entityName) does not declare; the schema changed (migration is not supported yet)")
                }
                for property in required where record.values[property.name] == nil && record.values[property.originalName] == nil {
                    throw FolioError(.schemaMismatch,
                        "\(entityName) record \(id) in \(storeDescription) has no value for '\(property.name)', which is neither optional nor defaulted; the schema changed (migration is not supported yet)")
                }
            }
        }
    }
}
