/// What attributes and relationships of a schema have in common.
///
/// Unlike SwiftData's, Folio's schema properties are not `Codable`: a store records its schema in its
/// manifest in its own documented form (see `docs/file-format.md`).
public protocol SchemaProperty: AnyObject, Hashable, CustomStringConvertible {
    /// The property's name.
    var name: String { get }
    /// The property's name in an earlier schema, or its name.
    var originalName: String { get }
    /// The property's declared type.
    var valueType: any Any.Type { get }
    /// Whether the property is an attribute (a stored value).
    var isAttribute: Bool { get }
    /// Whether the property is a relationship to other models.
    var isRelationship: Bool { get }
    /// Whether the property is never written to the store (`.ephemeral`).
    var isTransient: Bool { get }
    /// Whether the property's type is optional.
    var isOptional: Bool { get }
    /// Whether the property is unique (`.unique`): inserting a duplicate updates the stored model.
    var isUnique: Bool { get }
}
