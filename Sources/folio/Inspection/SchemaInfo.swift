import FolioStorage

/// The schema a store records (the model layer's description, see `SchemaDescription` in Folio), read
/// without the model types: which entities exist, their superentities, property kinds and types,
/// relationship destinations, uniqueness constraints.
struct SchemaInfo {
    struct Property {
        var name: String
        /// `attribute` or `relationship`.
        var kind: String
        /// The attribute's Swift type name (`String`, `Date`, `Double`, `MapItemIdentifier`…).
        var type: String?
        var isOptional: Bool
        var options: [String]
        var destination: String?
        var isToMany: Bool
        var inverse: String?
        var deleteRule: String?
        /// The name values were stored under in an earlier schema version, if renamed.
        var originalName: String?

        var isRelationship: Bool { kind == "relationship" }
        var isDate: Bool { type == "Date" }
    }

    struct Entity {
        var name: String
        var superentity: String?
        var properties: [String: Property]
        var uniqueness: [[String]]
        var indices: [[String]]
    }

    var version: String?
    var entities: [String: Entity]

    /// Reads a schema description; nil if the store has none or it is not one.
    init?(_ value: JSONValue?) {
        guard let root = value?.objectValue, let entityMembers = root["entities"]?.objectValue else { return nil }
        version = root["version"]?.stringValue
        var entities: [String: Entity] = [:]
        for (name, value) in entityMembers {
            guard let members = value.objectValue else { continue }
            var properties: [String: Property] = [:]
            for (propertyName, description) in members["properties"]?.objectValue ?? [:] {
                let d = description.objectValue ?? [:]
                properties[propertyName] = Property(
                    name: propertyName, kind: d["kind"]?.stringValue ?? "attribute", type: d["type"]?.stringValue,
                    isOptional: d["optional"]?.boolValue ?? false,
                    options: d["options"]?.arrayValue?.compactMap(\.stringValue) ?? [],
                    destination: d["destination"]?.stringValue, isToMany: d["toMany"]?.boolValue ?? false,
                    inverse: d["inverse"]?.stringValue, deleteRule: d["deleteRule"]?.stringValue,
                    originalName: d["originalName"]?.stringValue)
            }
            func groups(_ key: String) -> [[String]] {
                members[key]?.arrayValue?.compactMap { $0.arrayValue?.compactMap(\.stringValue) } ?? []
            }
            entities[name] = Entity(
                name: name, superentity: members["superentity"]?.stringValue, properties: properties,
                uniqueness: groups("uniqueness"), indices: groups("indices"))
        }
        self.entities = entities
    }

    /// The entity and its subentities, at any depth, the entity first.
    func selfAndDescendants(_ name: String) -> [String] {
        var result = [name]
        var index = 0
        while index < result.count {
            let current = result[index]
            result += entities.values.filter { $0.superentity == current }.map(\.name).sorted()
            index += 1
        }
        return result
    }

    /// The topmost ancestor of an entity.
    func root(of name: String) -> String {
        var current = name
        var seen: Set<String> = []
        while let parent = entities[current]?.superentity, !seen.contains(parent) {
            seen.insert(current)
            current = parent
        }
        return current
    }

    /// Whether `entity` is `ancestor` or one of its subentities.
    func isKind(_ entity: String, of ancestor: String) -> Bool {
        var current: String? = entity
        var steps = 0
        while let name = current, steps < 100 {
            if name == ancestor { return true }
            current = entities[name]?.superentity
            steps += 1
        }
        return false
    }

    /// A property of an entity (declared or inherited), by its name or its original name.
    func property(_ name: String, of entity: String) -> Property? {
        var current: String? = entity
        var steps = 0
        while let entityName = current, steps < 100 {
            if let property = entities[entityName]?.properties[name] { return property }
            if let property = entities[entityName]?.properties.values.first(where: { $0.originalName == name }) { return property }
            current = entities[entityName]?.superentity
            steps += 1
        }
        return nil
    }

    /// The relationships of an entity (declared or inherited), by name.
    func relationships(of entity: String) -> [Property] {
        var result: [String: Property] = [:]
        var current: String? = entity
        var steps = 0
        while let name = current, steps < 100 {
            for property in entities[name]?.properties.values ?? [:].values where property.isRelationship && result[property.name] == nil {
                result[property.name] = property
            }
            current = entities[name]?.superentity
            steps += 1
        }
        return result.values.sorted { $0.name < $1.name }
    }

    /// The property names of an entity in display order: attributes, then relationships, each sorted.
    func propertyNames(of entity: String) -> [String] {
        var all: [String: Property] = [:]
        var current: String? = entity
        var steps = 0
        while let name = current, steps < 100 {
            for property in entities[name]?.properties.values ?? [:].values where all[property.name] == nil { all[property.name] = property }
            current = entities[name]?.superentity
            steps += 1
        }
        let attributes = all.values.filter { !$0.isRelationship }.map(\.name).sorted()
        let relationships = all.values.filter(\.isRelationship).map(\.name).sorted()
        return attributes + relationships
    }

    /// A short label for a record: the first of `name`, `title`, a unique string attribute.
    static func label(of record: StoredRecord) -> String? {
        for key in ["name", "title", "label", "displayName"] {
            if let text = record.values[key]?.stringValue { return text }
        }
        return record.values.sorted { $0.key < $1.key }.first { $0.value.stringValue != nil }?.value.stringValue
    }
}

/// Stored relationship values: an identifier, null, or an array of identifiers.
enum RelationshipValue {
    static func identifiers(_ value: JSONValue?) -> [Int64] {
        switch value {
        case .int(let id)?: return [id]
        case .array(let elements)?: return elements.compactMap(\.intValue)
        default: return []
        }
    }
}
