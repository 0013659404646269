/// Makes a class a persistent model, as SwiftData's `@Model` does.
///
/// Every stored property that is not `@Transient` (and not computed or static) is persisted. The
/// macro adds the `PersistentModel` and `Observable` conformances, the schema metadata, a tracked
/// accessor for each persisted property, and the encoding and decoding of the persisted properties.
///
/// ```swift
/// @Model
/// final class Recipe {
///     #Index<Recipe>([\.name])
///     @Attribute(.unique) var name: String
///     var servings: Int = 2
///     @Relationship(deleteRule: .cascade, inverse: \Ingredient.recipe) var ingredients: [Ingredient] = []
///     @Transient var isExpanded = false
///     init(name: String) { self.name = name }
/// }
///
/// @Model
/// class BakedGood: Recipe {        // a subclass of a model is a model too
///     var ovenTemperature: Int = 180
///     init(name: String, ovenTemperature: Int) {
///         self.ovenTemperature = ovenTemperature
///         super.init(name: name)
///     }
/// }
/// ```
///
/// A model class needs an initializer, and every `@Transient` property needs a default value, because
/// Folio creates the instances it loads from the store without calling your initializers.
@attached(
    member, conformances: PersistentModel,
    names: named(persistentBackingData), named(init), named(schemaMetadata), named(_folioEntityName),
    named(_folioSuperclass), named(_folioIndexes), named(_folioUniqueConstraints), named(_folioEncode),
    named(_folioDecode), named(_folioResolve), named(_folioKeyPathTable), arbitrary)
@attached(memberAttribute)
@attached(extension, conformances: PersistentModel, Observable)
public macro Model() = #externalMacro(module: "FolioMacros", type: "ModelMacro")

/// Turns a stored property into a tracked, persisted one. `@Model` attaches it; don't write it yourself.
@attached(accessor, names: named(init), named(get), named(set))
@attached(peer, names: prefixed(_))
public macro _PersistedProperty() = #externalMacro(module: "FolioMacros", type: "PersistedPropertyMacro")

/// Configures how a persisted property is stored.
///
/// - Parameters:
///   - options: `.unique` (inserting a model with an existing value updates that model instead),
///     `.externalStorage` (bytes kept in a file beside the store), `.codable` (stored through the
///     value's own `Codable` as an opaque value that predicates and sorts cannot reach into),
///     `.preserveValueOnDeletion` (kept in the history tombstone), `.ephemeral`, `.spotlight`,
///     `.allowsCloudEncryption`.
///   - originalName: The property's name in an earlier version of the schema.
///   - hashModifier: A value that marks a change of the property's meaning without a change of shape.
@attached(peer)
public macro Attribute(
    _ options: Schema.Attribute.Option..., originalName: String? = nil,
    hashModifier: String? = nil
) = #externalMacro(module: "FolioMacros", type: "AttributeMacro")

/// Configures a relationship to another model, or to a collection of models.
///
/// - Parameters:
///   - deleteRule: What deleting this model does to the related ones. The default is `.nullify`.
///   - minimumModelCount: The least number of related models (to-many only); 0 means no minimum.
///   - maximumModelCount: The greatest number of related models (to-many only); 0 means no maximum.
///   - originalName: The relationship's name in an earlier version of the schema.
///   - inverse: The key path of the relationship on the other side. When omitted, Folio infers the
///     inverse if exactly one relationship on the other model points back.
///   - hashModifier: A value that marks a change of meaning without a change of shape.
@attached(peer)
public macro Relationship(
    _ options: Schema.Relationship.Option..., deleteRule: Schema.Relationship.DeleteRule = .nullify,
    minimumModelCount: Int? = 0, maximumModelCount: Int? = 0, originalName: String? = nil,
    inverse: AnyKeyPath? = nil, hashModifier: String? = nil
) = #externalMacro(module: "FolioMacros", type: "RelationshipMacro")

/// Keeps a stored property out of the store. A transient property needs a default value.
@attached(peer)
public macro Transient() = #externalMacro(module: "FolioMacros", type: "TransientMacro")

/// Declares indexes on a model, each over one or more properties:
/// `#Index<Trip>([\.destination], [\.startDate, \.price])`. The query planner uses them for equality,
/// range and sort.
@freestanding(declaration)
public macro Index<T: PersistentModel>(_ indices: [PartialKeyPath<T>]...) = #externalMacro(module: "FolioMacros", type: "IndexMacro")

/// Declares uniqueness constraints, each over one or more properties:
/// `#Unique<Trip>([\.name, \.startDate])`. Inserting a model whose constrained values match a stored
/// model updates that model (an upsert), as `@Attribute(.unique)` does.
@freestanding(declaration)
public macro Unique<T: PersistentModel>(_ constraints: [PartialKeyPath<T>]...) = #externalMacro(module: "FolioMacros", type: "UniqueMacro")
