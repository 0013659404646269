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
/// A container opened with a plan migrates a store written by any of its versions to the version of
/// its models, in one transaction (see `docs/migration.md`). Versions are told apart by their schemas'
/// checksums and ordered by their version identifiers, so `schemas` may list them in any order. Between
/// two adjacent versions no stage joins, Folio infers the lightweight step, as SwiftData does; a stage
/// may also go down, from a newer version to an older one, to bring a store back to older models.
public protocol SchemaMigrationPlan: SendableMetatype {
    /// The schema versions the plan knows, conventionally oldest first.
    static var schemas: [any VersionedSchema.Type] { get }
    /// The stages between the versions: each goes from one of ``schemas`` to another. Versions with no
    /// stage between them need none when Folio can infer the change (an empty array is a plan of
    /// lightweight steps only).
    static var stages: [MigrationStage] { get }
}
