/// The entities of a set of model classes, with their properties, relationships and inheritance tree.
///
/// ```swift
/// let schema = Schema([Recipe.self, BakedGood.self, Beverage.self, Ingredient.self])
/// schema.entity(for: BakedGood.self)?.superentity?.name   // "Recipe"
/// ```
///
/// Building a schema also takes in the models that the given ones refer to (relationship destinations
/// and superclasses), as SwiftData does. Problems that the compiler cannot see — a property whose type
/// is neither `Codable` nor a model, an `inverse:` that does not point back, two entities with one name —
/// are collected in ``problems``, and a container refuses to open with such a schema.
// Unchecked: immutable once built, but attributes hold their defaults as `Any`, as SwiftData's API declares them.
public final class Schema: CustomStringConvertible, @unchecked Sendable {
    /// The entities, ordered by name.
    public let entities: [Entity]
    /// The entities by name.
    public let entitiesByName: [String: Entity]
    /// The schema's version.
    public let version: Version
    /// What is wrong with the model declarations, in words; empty for a usable schema.
    public let problems: [String]

    /// Builds the schema of `types` and of the models they refer to.
    public convenience init(_ types: [any PersistentModel.Type], version: Version = Version(1, 0, 0)) {
        var builder = SchemaBuilder()
        for type in types { builder.add(type) }
        self.init(builder: builder, version: version)
    }

    /// Builds the schema of `types` and of the models they refer to.
    public convenience init(_ types: any PersistentModel.Type..., version: Version = Version(1, 0, 0)) {
        self.init(types, version: version)
    }

    /// Builds the schema of a versioned schema's models.
    public convenience init(versionedSchema: any VersionedSchema.Type) {
        self.init(versionedSchema.models, version: versionedSchema.versionIdentifier)
    }

    init(builder: SchemaBuilder, version: Version) {
        var builder = builder
        let entities = builder.build()
        self.entities = entities.sorted { $0.name < $1.name }
        self.entitiesByName = Dictionary(entities.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        self.version = version
        self.problems = builder.problems
    }

    /// The entity of a model class.
    public func entity<T: PersistentModel>(for type: T.Type) -> Entity? {
        entitiesByName[type._folioEntityName]
    }

    /// The entities that have no superentity.
    public var rootEntities: [Entity] {
        entities.filter { $0.superentity == nil }
    }

    public var description: String {
        entities.map(\.description).joined(separator: "\n")
    }
}
