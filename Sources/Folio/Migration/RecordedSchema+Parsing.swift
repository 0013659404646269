import FolioStorage

extension RecordedSchema {
    /// Reads a schema description from a manifest's schema slot. The value comes from disk, so every
    /// member is checked: a wrong type, a missing member or a reference to an unknown entity throws an
    /// error naming the entity, property and key; members this version does not know are ignored.
    package init(parsing value: JSONValue) throws(RecordedSchemaError) {
        guard let root = value.objectValue else { throw RecordedSchemaError(key: "schema", "is not a JSON object") }
        guard let entityMembers = root["entities"] else { throw RecordedSchemaError(key: "entities", "is missing") }
        guard let entityObjects = entityMembers.objectValue else { throw RecordedSchemaError(key: "entities", "is not a JSON object") }
        let version = try Self.optionalString(root["version"], key: "version")
        let checksum = try Self.optionalString(root["checksum"], key: "checksum")
        if let checksum, !Self.isChecksum(checksum) {
            throw RecordedSchemaError(key: "checksum", "is not 64 lowercase hexadecimal digits")
        }
        var entities: [String: Entity] = [:]
        for (name, entityValue) in entityObjects {
            entities[name] = try Self.entity(named: name, entityValue)
        }
        self.init(version: version, recordedChecksum: checksum, entities: entities)
        try checkReferences()
    }

    private static func entity(named name: String, _ value: JSONValue) throws(RecordedSchemaError) -> Entity {
        guard !name.isEmpty else { throw RecordedSchemaError(key: "entities", "has an entity with an empty name") }
        guard let members = value.objectValue else { throw RecordedSchemaError(entity: name, key: name, "is not a JSON object") }
        guard let propertyValues = members["properties"] else { throw RecordedSchemaError(entity: name, key: "properties", "is missing") }
        guard let propertyObjects = propertyValues.objectValue else {
            throw RecordedSchemaError(entity: name, key: "properties", "is not a JSON object")
        }
        var properties: [String: Property] = [:]
        for (propertyName, propertyValue) in propertyObjects {
            properties[propertyName] = try property(named: propertyName, of: name, propertyValue)
        }
        var isUnlisted = false
        if let unlisted = members["unlisted"] {
            guard let flag = unlisted.boolValue else { throw RecordedSchemaError(entity: name, key: "unlisted", "is not true or false") }
            isUnlisted = flag
        }
        return Entity(
            name: name, superentity: try optionalString(members["superentity"], key: "superentity", entity: name),
            properties: properties,
            uniqueness: try groups(members["uniqueness"], key: "uniqueness", entity: name),
            indices: try groups(members["indices"], key: "indices", entity: name),
            isUnlisted: isUnlisted,
            className: try optionalString(members["className"], key: "className", entity: name))
    }

    private static func property(named name: String, of entity: String, _ value: JSONValue) throws(RecordedSchemaError) -> Property {
        func failure(_ key: String, _ problem: String) -> RecordedSchemaError {
            RecordedSchemaError(entity: entity, property: name, key: key, problem)
        }
        guard !name.isEmpty else { throw RecordedSchemaError(entity: entity, key: "properties", "has a property with an empty name") }
        guard let members = value.objectValue else { throw failure(name, "is not a JSON object") }
        guard let kindValue = members["kind"] else { throw failure("kind", "is missing") }
        guard let kindName = kindValue.stringValue, let kind = Property.Kind(rawValue: kindName) else {
            throw failure("kind", "is not \"attribute\" or \"relationship\"")
        }
        var property = Property(name: name, kind: kind)
        switch kind {
        case .attribute:
            guard let type = members["type"] else { throw failure("type", "is missing") }
            guard let typeName = type.stringValue, !typeName.isEmpty else { throw failure("type", "is not a type name") }
            property.type = typeName
        case .relationship:
            guard let destination = members["destination"] else { throw failure("destination", "is missing") }
            guard let destinationName = destination.stringValue, !destinationName.isEmpty else {
                throw failure("destination", "is not an entity name")
            }
            property.destination = destinationName
            guard let toMany = members["toMany"] else { throw failure("toMany", "is missing") }
            guard let isToMany = toMany.boolValue else { throw failure("toMany", "is not true or false") }
            property.isToMany = isToMany
            property.deleteRule = try optionalString(members["deleteRule"], key: "deleteRule", entity: entity, property: name)
            property.inverse = try optionalString(members["inverse"], key: "inverse", entity: entity, property: name)
        }
        if let optional = members["optional"] {
            guard let isOptional = optional.boolValue else { throw failure("optional", "is not true or false") }
            property.isOptional = isOptional
        }
        if let options = members["options"] {
            guard let elements = options.arrayValue else { throw failure("options", "is not an array") }
            for element in elements {
                guard let option = element.stringValue else { throw failure("options", "holds a value that is not a string") }
                property.options.append(option)
            }
        }
        property.originalName = try optionalString(members["originalName"], key: "originalName", entity: entity, property: name)
        return property
    }

    /// Every superentity and relationship destination names a recorded entity, and no entity inherits
    /// from itself, so that walks up the inheritance tree end.
    private func checkReferences() throws(RecordedSchemaError) {
        for name in entities.keys.sorted() {
            guard let entity = entities[name] else { continue }
            if let superentity = entity.superentity, entities[superentity] == nil {
                throw RecordedSchemaError(entity: name, key: "superentity", "names '\(superentity)', which is not a recorded entity")
            }
            var seen: Set<String> = [name]
            var current = entity.superentity
            while let ancestor = current {
                guard seen.insert(ancestor).inserted else {
                    throw RecordedSchemaError(entity: name, key: "superentity", "makes a cycle: the entity inherits from itself")
                }
                current = entities[ancestor]?.superentity
            }
            for propertyName in entity.properties.keys.sorted() {
                guard let destination = entity.properties[propertyName]?.destination else { continue }
                if entities[destination] == nil {
                    throw RecordedSchemaError(
                        entity: name, property: propertyName, key: "destination",
                        "names '\(destination)', which is not a recorded entity")
                }
            }
        }
    }

    private static func optionalString(
        _ value: JSONValue?, key: String, entity: String? = nil,
        property: String? = nil
    ) throws(RecordedSchemaError) -> String? {
        guard let value else { return nil }
        guard let text = value.stringValue else {
            throw RecordedSchemaError(entity: entity, property: property, key: key, "is not a string")
        }
        return text
    }

    private static func groups(_ value: JSONValue?, key: String, entity: String) throws(RecordedSchemaError) -> [[String]] {
        guard let value else { return [] }
        guard let elements = value.arrayValue else { throw RecordedSchemaError(entity: entity, key: key, "is not an array") }
        var groups: [[String]] = []
        for element in elements {
            guard let names = element.arrayValue else { throw RecordedSchemaError(entity: entity, key: key, "holds a value that is not an array") }
            var group: [String] = []
            for name in names {
                guard let text = name.stringValue else {
                    throw RecordedSchemaError(entity: entity, key: key, "holds a property name that is not a string")
                }
                group.append(text)
            }
            groups.append(group)
        }
        return groups
    }

    private static func isChecksum(_ text: String) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }
}
