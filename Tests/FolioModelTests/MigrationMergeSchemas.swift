import Foundation
import Folio
import Synchronization

// A notes app's two versions, for merges of a clone that migrated with one that did not. V2 renames
// `Note.title` to `heading` (`originalName:`), removes `Note.mood`, adds `Note.pinned` with a default,
// and renames the entity `Label` to `Tag`: SwiftData has no `originalName` for an entity, so a custom
// stage copies the labels into tags.

enum MergeNotesV1: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(1, 0, 0) }
    static var models: [any PersistentModel.Type] { [Note.self, Label.self] }

    @Model
    final class Note {
        var title: String
        var body: String
        var mood: String

        init(title: String, body: String, mood: String) {
            self.title = title
            self.body = body
            self.mood = mood
        }
    }

    @Model
    final class Label {
        var name: String
        init(name: String) { self.name = name }
    }
}

enum MergeNotesV2: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(2, 0, 0) }
    static var models: [any PersistentModel.Type] { [Note.self, Tag.self] }

    @Model
    final class Note {
        @Attribute(originalName: "title") var heading: String
        var body: String
        var pinned = false

        init(heading: String, body: String) {
            self.heading = heading
            self.body = body
        }
    }

    @Model
    final class Tag {
        var name: String
        init(name: String) { self.name = name }
    }
}

/// V1 → V2 as SwiftData apps write an entity rename: `willMigrate` keeps the labels' names, `didMigrate`
/// inserts a tag for each.
enum MergeNotesPlan: SchemaMigrationPlan {
    static let labels = Mutex<[String]>([])

    static var schemas: [any VersionedSchema.Type] { [MergeNotesV1.self, MergeNotesV2.self] }
    static var stages: [MigrationStage] {
        [
            .custom(
                fromVersion: MergeNotesV1.self, toVersion: MergeNotesV2.self,
                willMigrate: { context in
                    let names = try context.fetch(FetchDescriptor<MergeNotesV1.Label>()).map(\.name).sorted()
                    labels.withLock { $0 = names }
                },
                didMigrate: { context in
                    for name in labels.withLock({ $0 }) { context.insert(MergeNotesV2.Tag(name: name)) }
                    try context.save()
                })
        ]
    }
}
