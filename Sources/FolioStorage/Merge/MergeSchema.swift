/// The relationship properties of each entity in a stored schema description (the model layer's
/// `SchemaDescription`), which a merge needs to rewrite references to renumbered records.
package struct MergeSchema: Sendable {
    private var superentities: [String: String] = [:]
    private var relationshipNames: [String: Set<String>] = [:]

    /// Reads a schema description; nil if `value` is not one (it has no `entities` object).
    package init?(_ value: JSONValue?) {
        guard case .object(let root)? = value, case .object(let entities)? = root["entities"] else { return nil }
        for (name, description) in entities {
            guard case .object(let members) = description else { continue }
            if case .string(let parent)? = members["superentity"] { superentities[name] = parent }
            var names = Set<String>()
            if case .object(let properties)? = members["properties"] {
                for (property, description) in properties
                where description.objectValue?["kind"]?.stringValue == "relationship" {
                    names.insert(property)
                }
            }
            relationshipNames[name] = names
        }
    }

    /// The names of the relationships of `entity`, declared or inherited, sorted.
    ///
    /// A cycle of superentities in a hand-edited file ends the walk instead of looping.
    package func relationships(of entity: String) -> [String] {
        var result = Set<String>()
        var visited = Set<String>()
        var current: String? = entity
        while let name = current, visited.insert(name).inserted {
            result.formUnion(relationshipNames[name] ?? [])
            current = superentities[name]
        }
        return result.sorted()
    }
}
