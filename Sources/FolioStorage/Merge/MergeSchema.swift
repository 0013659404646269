/// What a merge needs to know of a stored schema description (the model layer's `SchemaDescription`):
/// each entity's relationships, with their arity and inverse, and its uniqueness constraints.
package struct MergeSchema: Sendable {
    /// One relationship of an entity.
    package struct Relationship: Hashable, Sendable {
        /// Whether it holds an array of identifiers rather than one identifier or null.
        package var isToMany: Bool
        /// The relationship of the destination that refers back, if the schema names one.
        package var inverse: String?
    }

    private var superentities: [String: String] = [:]
    private var relationshipsByEntity: [String: [String: Relationship]] = [:]
    private var uniquenessByEntity: [String: [[String]]] = [:]

    /// Reads a schema description; nil if `value` is not one (it has no `entities` object).
    package init?(_ value: JSONValue?) {
        guard case .object(let root)? = value, case .object(let entities)? = root["entities"] else { return nil }
        for (name, description) in entities {
            guard case .object(let members) = description else { continue }
            if case .string(let parent)? = members["superentity"] { superentities[name] = parent }
            var relationships: [String: Relationship] = [:]
            if case .object(let properties)? = members["properties"] {
                for (property, description) in properties {
                    guard case .object(let fields) = description, fields["kind"]?.stringValue == "relationship" else { continue }
                    relationships[property] = Relationship(isToMany: fields["toMany"] == .bool(true), inverse: fields["inverse"]?.stringValue)
                }
            }
            relationshipsByEntity[name] = relationships
            if case .array(let groups)? = members["uniqueness"] {
                var unique: [[String]] = []
                for group in groups {
                    let names = group.arrayValue?.compactMap(\.stringValue) ?? []
                    if !names.isEmpty && !unique.contains(names) { unique.append(names) }
                }
                uniquenessByEntity[name] = unique
            }
        }
    }

    /// `entity` and its superentities, nearest first. A cycle in a hand-edited file ends the walk.
    private func lineage(of entity: String) -> [String] {
        var result: [String] = []
        var current: String? = entity
        while let name = current, !result.contains(name) {
            result.append(name)
            current = superentities[name]
        }
        return result
    }

    /// The names of the relationships of `entity`, declared or inherited, sorted.
    package func relationships(of entity: String) -> [String] {
        Set(lineage(of: entity).flatMap { relationshipsByEntity[$0]?.keys.map { $0 } ?? [] }).sorted()
    }

    /// The relationship `name` of `entity`, declared or inherited; nil for an attribute.
    package func relationship(_ name: String, of entity: String) -> Relationship? {
        for owner in lineage(of: entity) { if let found = relationshipsByEntity[owner]?[name] { return found } }
        return nil
    }

    /// The uniqueness constraints that apply to `entity`'s records, each with the topmost entity that
    /// declares it: records of that entity and all its subentities share one set of values.
    package func uniqueness(of entity: String) -> [(owner: String, members: [String])] {
        var result: [(owner: String, members: [String])] = []
        for owner in lineage(of: entity).reversed() {
            for group in uniquenessByEntity[owner] ?? [] where !result.contains(where: { $0.members == group }) {
                result.append((owner, group))
            }
        }
        return result
    }
}

extension MergeSchema {
    /// The schema description a store's `manifest.json` records, if the bytes are a valid manifest that
    /// records one; nil otherwise (a merge then falls back to plain values).
    package static func recorded(inManifest bytes: [UInt8]) -> JSONValue? {
        (try? Manifest.decode(bytes, path: "manifest.json"))?.schema
    }
}
