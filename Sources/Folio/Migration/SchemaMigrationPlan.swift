/// The shipped versions of an app's schema and the stages that migrate a store from each to the next,
/// as in SwiftData.
///
/// ```swift
/// enum NotesMigrationPlan: SchemaMigrationPlan {
///     static var schemas: [any VersionedSchema.Type] { [NotesSchemaV1.self, NotesSchemaV2.self] }
///     static var stages: [MigrationStage] {
///         [.lightweight(fromVersion: NotesSchemaV1.self, toVersion: NotesSchemaV2.self)]
///     }
/// }
/// ```
///
/// Status: Folio records each store's schema and checks a plan's stages (see `docs/migration.md`);
/// running the stages inside ``ModelContainer`` is the next step and not built yet.
public protocol SchemaMigrationPlan: SendableMetatype {
    /// The schema versions, in release order (oldest first).
    static var schemas: [any VersionedSchema.Type] { get }
    /// The stages between the versions: each goes from one of ``schemas`` to a later one.
    static var stages: [MigrationStage] { get }
}
