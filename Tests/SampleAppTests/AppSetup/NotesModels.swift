import Foundation
import Folio

// The container set-up code of a notes app, in each spelling SwiftData apps use.

@Model
final class Note {
    var title: String
    var body: String = ""
    var created: Date = Date(timeIntervalSinceReferenceDate: 0)

    init(title: String) {
        self.title = title
    }
}

enum NotesSchemaV1: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(1, 0, 0) }
    static var models: [any PersistentModel.Type] { [Note.self] }
}

enum NotesMigrationPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [NotesSchemaV1.self] }
    static var stages: [MigrationStage] { [] }
}
