/// A versioned set of models, for migrations, as in SwiftData.
///
/// Declare each shipped version of your models as an enum that nests them, and list the versions in a
/// ``SchemaMigrationPlan``:
///
/// ```swift
/// enum NotesSchemaV2: VersionedSchema {
///     static var versionIdentifier: Schema.Version { Schema.Version(2, 0, 0) }
///     static var models: [any PersistentModel.Type] { [Note.self] }
///
///     @Model final class Note {
///         var title: String
///         var pinned: Bool = false
///         init(title: String) { self.title = title }
///     }
/// }
/// ```
public protocol VersionedSchema: SendableMetatype {
    /// The version, such as `Schema.Version(2, 0, 0)`.
    static var versionIdentifier: Schema.Version { get }
    /// The model classes of this version.
    static var models: [any PersistentModel.Type] { get }
}
