import Foundation
import Folio

// A journal app's three shipped schema versions and its migration plan, written as a SwiftData app
// writes them: V2 renames `title` to `heading` (`originalName:`) and adds `wordCount`, which a custom
// stage fills from the bodies; V3 removes `mood`.

enum JournalSchemaV1: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(1, 0, 0) }
    static var models: [any PersistentModel.Type] { [Entry.self] }

    @Model
    final class Entry {
        var title: String
        var body: String
        var mood: String

        init(title: String, body: String, mood: String) {
            self.title = title
            self.body = body
            self.mood = mood
        }
    }
}

enum JournalSchemaV2: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(2, 0, 0) }
    static var models: [any PersistentModel.Type] { [Entry.self] }

    @Model
    final class Entry {
        @Attribute(originalName: "title") var heading: String
        var body: String
        var mood: String
        var wordCount: Int = 0

        init(heading: String, body: String, mood: String) {
            self.heading = heading
            self.body = body
            self.mood = mood
        }
    }
}

enum JournalSchemaV3: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(3, 0, 0) }
    static var models: [any PersistentModel.Type] { [Entry.self] }

    @Model
    final class Entry {
        @Attribute(originalName: "title") var heading: String
        var body: String
        var wordCount: Int = 0

        init(heading: String, body: String) {
            self.heading = heading
            self.body = body
        }
    }
}

enum JournalMigrationPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] {
        [JournalSchemaV1.self, JournalSchemaV2.self, JournalSchemaV3.self]
    }

    static var stages: [MigrationStage] {
        [migrateV1toV2, migrateV2toV3]
    }

    static let migrateV1toV2 = MigrationStage.custom(
        fromVersion: JournalSchemaV1.self,
        toVersion: JournalSchemaV2.self,
        willMigrate: nil,
        didMigrate: { context in
            let entries = try context.fetch(FetchDescriptor<JournalSchemaV2.Entry>())
            for entry in entries {
                entry.wordCount = entry.body.split(separator: " ").count
            }
            try context.save()
        }
    )

    static let migrateV2toV3 = MigrationStage.lightweight(
        fromVersion: JournalSchemaV2.self,
        toVersion: JournalSchemaV3.self
    )
}
