import FolioStorage

extension RecordedSchema {
    /// The record of a live schema: what a container writes into its store's manifest.
    package init(_ schema: Schema) {
        var entities: [String: Entity] = [:]
        for entity in schema.entities {
            var properties: [String: Property] = [:]
            for property in entity.properties {
                var recorded: Property
                if let attribute = property as? Schema.Attribute {
                    recorded = Property(name: attribute.name, kind: .attribute, type: Self.typeName(attribute.valueType))
                    recorded.isOptional = attribute.isOptional
                    recorded.options = attribute.options.map { String($0.description.dropFirst()) }
                } else if let relationship = property as? Schema.Relationship {
                    recorded = Property(name: relationship.name, kind: .relationship)
                    recorded.destination = relationship.destination
                    recorded.isToMany = !relationship.isToOneRelationship
                    recorded.deleteRule = relationship.deleteRule.rawValue
                    recorded.isOptional = relationship.isOptional
                    recorded.inverse = relationship.inverseName
                    if relationship.isUnique { recorded.options = ["unique"] }
                } else {
                    continue
                }
                if property.originalName != property.name { recorded.originalName = property.originalName }
                properties[property.name] = recorded
            }
            var recordedEntity = Entity(
                name: entity.name, superentity: entity.superentity?.name, properties: properties,
                uniqueness: entity.uniquenessConstraints, indices: entity.indices,
                isUnlisted: entity.isUnlisted, className: entity.recordedClassName)
            if let own = entity.recordedOnly {
                // What no class here declares is recorded again as it was.
                recordedEntity.properties.merge(own.ownProperties) { inherited, _ in inherited }
                recordedEntity.uniqueness += own.ownUniqueness
                recordedEntity.indices += own.ownIndices
            }
            entities[entity.name] = recordedEntity
        }
        self.init(version: schema.version.description, recordedChecksum: nil, entities: entities)
        self.recordedChecksum = computedChecksum
    }

    /// A type's name as the schema records it: without `Optional`, as `String(describing:)` spells it.
    static func typeName(_ type: any Any.Type) -> String {
        if let optional = type as? any _OptionalValue.Type { return typeName(optional._wrappedType) }
        return String(describing: type)
    }

    /// The manifest's form, as `docs/file-format.md` describes it.
    package var jsonValue: JSONValue {
        var entityValues: [String: JSONValue] = [:]
        for (name, entity) in entities {
            var propertyValues: [String: JSONValue] = [:]
            for (propertyName, property) in entity.properties {
                var members: [String: JSONValue] = ["kind": .string(property.kind.rawValue)]
                if let type = property.type, !property.isRelationship { members["type"] = .string(type) }
                if property.isRelationship {
                    members["destination"] = .string(property.destination ?? "")
                    members["toMany"] = .bool(property.isToMany)
                    if let deleteRule = property.deleteRule { members["deleteRule"] = .string(deleteRule) }
                    if let inverse = property.inverse { members["inverse"] = .string(inverse) }
                }
                if property.isOptional { members["optional"] = .bool(true) }
                if !property.options.isEmpty { members["options"] = .array(property.options.map(JSONValue.string)) }
                if let originalName = property.originalName { members["originalName"] = .string(originalName) }
                propertyValues[propertyName] = .object(members)
            }
            var members: [String: JSONValue] = ["properties": .object(propertyValues)]
            if let superentity = entity.superentity { members["superentity"] = .string(superentity) }
            let groups: ([[String]]) -> JSONValue = { .array($0.map { .array($0.map(JSONValue.string)) }) }
            if !entity.indices.isEmpty { members["indices"] = groups(entity.indices) }
            if !entity.uniqueness.isEmpty { members["uniqueness"] = groups(entity.uniqueness) }
            if entity.isUnlisted { members["unlisted"] = .bool(true) }
            if let className = entity.className { members["className"] = .string(className) }
            entityValues[name] = .object(members)
        }
        var root: [String: JSONValue] = ["entities": .object(entityValues)]
        if let version { root["version"] = .string(version) }
        if let recordedChecksum { root["checksum"] = .string(recordedChecksum) }
        return .object(root)
    }
}
