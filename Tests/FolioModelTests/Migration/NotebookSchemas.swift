import Foundation
import Folio

// A notebook app's shipped versions, written as SwiftData apps write them when they rely on SwiftData
// to infer every step: V2 renames `title` to `heading` and adds `pinned` (default false) and an
// optional `tag`; V3 renames `heading` to `headline` and removes `tag`. Its plans list the versions
// with `stages: []`, and one goes down from V2 to V1, as an app's rollback tests do.

enum NotebookSchemaV1: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(1, 0, 0) }
    static var models: [any PersistentModel.Type] { [Note.self] }

    @Model
    final class Note {
        var title: String
        var body: String

        init(title: String, body: String) {
            self.title = title
            self.body = body
        }
    }
}

enum NotebookSchemaV2: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(2, 0, 0) }
    static var models: [any PersistentModel.Type] { [Note.self] }

    @Model
    final class Note {
        @Attribute(originalName: "title") var heading: String
        var body: String
        var pinned: Bool = false
        var tag: String?

        init(heading: String, body: String, pinned: Bool = false, tag: String? = nil) {
            self.heading = heading
            self.body = body
            self.pinned = pinned
            self.tag = tag
        }
    }
}

enum NotebookSchemaV3: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(3, 0, 0) }
    static var models: [any PersistentModel.Type] { [Note.self] }

    @Model
    final class Note {
        @Attribute(originalName: "heading") var headline: String
        var body: String
        var pinned: Bool = false

        init(headline: String, body: String, pinned: Bool = false) {
            self.headline = headline
            self.body = body
            self.pinned = pinned
        }
    }
}

/// A V2 that adds a required rating with no default: no step to it can be inferred.
enum NotebookRatedSchemaV2: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(2, 0, 0) }
    static var models: [any PersistentModel.Type] { [Note.self] }

    @Model
    final class Note {
        var title: String
        var body: String
        var rating: Int

        init(title: String, body: String, rating: Int) {
            self.title = title
            self.body = body
            self.rating = rating
        }
    }
}

/// A V3 after the ordinary V2 that stores the body as a number of words: a type change.
enum NotebookCountedSchemaV3: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(3, 0, 0) }
    static var models: [any PersistentModel.Type] { [Note.self] }

    @Model
    final class Note {
        @Attribute(originalName: "title") var heading: String
        var body: Int
        var pinned: Bool = false
        var tag: String?

        init(heading: String, body: Int) {
            self.heading = heading
            self.body = body
        }
    }
}

/// Every version, no stage: each step is inferred.
enum NotebookPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] {
        [NotebookSchemaV1.self, NotebookSchemaV2.self, NotebookSchemaV3.self]
    }
    static var stages: [MigrationStage] { [] }
}

/// The same versions listed out of order.
enum ShuffledNotebookPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] {
        [NotebookSchemaV3.self, NotebookSchemaV1.self, NotebookSchemaV2.self]
    }
    static var stages: [MigrationStage] { [] }
}

/// Only the newest version, no stage: a store of an earlier version is one the plan does not list.
enum LatestOnlyNotebookPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [NotebookSchemaV2.self] }
    static var stages: [MigrationStage] { [] }
}

enum RatedNotebookPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [NotebookSchemaV1.self, NotebookRatedSchemaV2.self] }
    static var stages: [MigrationStage] { [] }
}

enum CountedNotebookPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] {
        [NotebookSchemaV1.self, NotebookSchemaV2.self, NotebookCountedSchemaV3.self]
    }
    static var stages: [MigrationStage] { [] }
}

/// Brings a V2 store back to V1, listing the schemas newest first: `willMigrate` marks the pinned
/// notes' headings through the V2 models, the stage carries `heading` back to `title` and drops
/// `pinned` and `tag`, and `didMigrate` marks every body through the V1 models.
enum NotebookRollbackPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [NotebookSchemaV2.self, NotebookSchemaV1.self] }
    static var stages: [MigrationStage] {
        [
            .custom(
                fromVersion: NotebookSchemaV2.self, toVersion: NotebookSchemaV1.self,
                willMigrate: { context in
                    for note in try context.fetch(FetchDescriptor<NotebookSchemaV2.Note>(predicate: #Predicate { $0.pinned })) {
                        note.heading = "★ " + note.heading
                    }
                    try context.save()
                },
                didMigrate: { context in
                    for note in try context.fetch(FetchDescriptor<NotebookSchemaV1.Note>()) {
                        note.body += " (rolled back)"
                    }
                    try context.save()
                })
        ]
    }
}
