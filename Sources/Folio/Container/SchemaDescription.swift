import FolioStorage

/// The schema as a store records it in its manifest, so that tools without the model types (the
/// `folio` command, a Python script) can interpret records: each entity's superentity, and each
/// property's kind, type, options, relationship destination and inverse; and the schema's version
/// identifier and checksum (``SchemaChecksum``), by which a migration finds the store's version.
///
/// ```json
/// {"checksum":"3f…","entities":{"Recipe":{"properties":{"name":{"kind":"attribute","type":"String","options":["unique"]}, …},
///   "indices":[["name"]],"uniqueness":[["name"]]},
///  "BakedGood":{"superentity":"Recipe", …}},"version":"1.0.0"}
/// ```
///
/// ``RecordedSchema`` is the value form; it reads a recorded description back.
enum SchemaDescription {
    static func make(_ schema: Schema) -> JSONValue {
        RecordedSchema(schema).jsonValue
    }
}

/// Checks that stored records fit the schema before a container uses them.
enum SchemaCheck {
    static func verify(index: RecordIndex, schema: Schema, storeDescription: String) throws {
        // Records share a handful of layouts (their property names): each entity's layouts are checked
        // once, naming the first record that has it. They are found in one walk over the table in
        // number order, which touches memory in order; neighbouring records nearly always share an
        // entity and a layout, and a record with the previous record's and a higher number cannot be
        // the first of its kind, so it needs no lookup.
        struct Kind: Hashable {
            let entity: String
            let layout: ObjectIdentifier
        }
        var firstRecordByKind: [Kind: (id: Int64, values: RecordValues)] = [:]
        var previous: (kind: Kind, id: Int64)?
        index.records.forEachInNumberOrder { id, entry in
            let kind = Kind(entity: entry.entity, layout: ObjectIdentifier(entry.values.layout))
            if let previous, previous.kind == kind, previous.id < id { return }
            previous = (kind, id)
            if let first = firstRecordByKind[kind], first.id < id { return }
            firstRecordByKind[kind] = (id, entry.values)
        }
        let kindsByEntity = Dictionary(grouping: firstRecordByKind, by: \.key.entity)
        for (entityName, kinds) in kindsByEntity.sorted(by: { $0.key < $1.key }) {
            guard let entity = schema.entitiesByName[entityName] else {
                throw FolioError(.schemaMismatch, "The store at \(storeDescription) holds \(entityName) records, an entity the schema does not know")
            }
            var known = Set(entity.properties.map(\.name))
            known.formUnion(entity.properties.map(\.originalName))
            // A recorded-only entity's own properties are recorded, not declared by a class here.
            for property in entity.recordedOnly.map({ Array($0.ownProperties.values) }) ?? [] {
                known.insert(property.name)
                if let originalName = property.originalName { known.insert(originalName) }
            }
            let required = requiredProperties(of: entity)
            for (id, values) in kinds.map(\.value).sorted(by: { $0.id < $1.id }) {
                for key in values.keys where !known.contains(key) {
                    throw FolioError(
                        .schemaMismatch,
                        "\(entityName) record \(id) in \(storeDescription) has a property '\(key)' that \(entityName) does not declare, and the schema the store records does not account for it (the store records no schema, or was written outside Folio)"
                    )
                }
                for property in required where values[property.name] == nil && values[property.originalName] == nil {
                    throw FolioError(
                        .schemaMismatch,
                        "\(entityName) record \(id) in \(storeDescription) has no value for '\(property.name)', which is neither optional nor defaulted; a migration that adds it needs a MigrationStage.custom that fills it in"
                    )
                }
            }
        }
    }

    /// The properties every stored record of `entity` must have a value for: not optional, not
    /// ephemeral, without a declared default; of the relationships, the to-one ones.
    static func requiredProperties(of entity: Schema.Entity) -> [any SchemaProperty] {
        entity.properties.filter { property in
            guard !property.isOptional, !property.isTransient, let metadata = entity.metadataByName[property.name] else { return false }
            if metadata.defaultValue != nil { return false }
            if let relationship = property as? Schema.Relationship { return relationship.isToOneRelationship }
            return true
        }
    }
}
