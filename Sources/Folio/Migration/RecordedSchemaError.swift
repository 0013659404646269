/// Why a recorded schema (read from a manifest, so untrusted) cannot be read, naming the entity,
/// property and key at fault.
package struct RecordedSchemaError: Error, Hashable, Sendable, CustomStringConvertible {
    package var entity: String?
    package var property: String?
    /// The member at fault, such as `type` or `superentity`.
    package var key: String
    /// What is wrong with it, in words.
    package var problem: String

    package init(entity: String? = nil, property: String? = nil, key: String, _ problem: String) {
        self.entity = entity
        self.property = property
        self.key = key
        self.problem = problem
    }

    package var description: String {
        var place = "the recorded schema"
        if let entity { place += ", entity '\(entity)'" }
        if let property { place += ", property '\(property)'" }
        return "In \(place), '\(key)' \(problem)"
    }
}
