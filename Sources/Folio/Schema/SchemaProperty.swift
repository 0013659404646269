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
    var isAttribute: Bool { get }
    var isRelationship: Bool { get }
    var isTransient: Bool { get }
    var isOptional: Bool { get }
    var isUnique: Bool { get }
}
