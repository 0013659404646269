/// One step of a ``SchemaMigrationPlan``: from one versioned schema to another, usually a later one,
/// as in SwiftData.
///
/// A lightweight stage has Folio infer the change (see `docs/migration.md` for what it infers); a
/// custom stage runs your code before (`willMigrate`, with a context over the old models) and after
/// (`didMigrate`, with a context over the new models) that lightweight step.
///
/// ```swift
/// MigrationStage.custom(fromVersion: NotesSchemaV2.self, toVersion: NotesSchemaV3.self,
///                       willMigrate: nil,
///                       didMigrate: { context in
///                           for note in try context.fetch(FetchDescriptor<NotesSchemaV3.Note>()) {
///                               note.wordCount = note.body.split(separator: " ").count
///                           }
///                           try context.save()
///                       })
/// ```
public enum MigrationStage: Sendable {
    /// A stage whose changes Folio infers from the two schemas.
    case lightweight(fromVersion: any VersionedSchema.Type, toVersion: any VersionedSchema.Type)
    /// A stage with code that runs over the old models before, and over the new models after, the
    /// inferred changes.
    @preconcurrency
    case custom(
        fromVersion: any VersionedSchema.Type, toVersion: any VersionedSchema.Type,
        willMigrate: (@Sendable (ModelContext) throws -> Void)?,
        didMigrate: (@Sendable (ModelContext) throws -> Void)?)

    /// The versioned schema the stage starts from.
    package var fromVersion: any VersionedSchema.Type {
        switch self {
        case .lightweight(let from, _), .custom(let from, _, _, _): return from
        }
    }

    /// The versioned schema the stage ends at.
    package var toVersion: any VersionedSchema.Type {
        switch self {
        case .lightweight(_, let to), .custom(_, let to, _, _): return to
        }
    }

    /// `lightweight` or `custom`, for messages.
    package var kindName: String {
        switch self {
        case .lightweight: return "lightweight"
        case .custom: return "custom"
        }
    }
}
