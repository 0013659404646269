import Foundation
import Synchronization
import Testing
@testable import Folio
@_spi(FolioEngine) import FolioStorage

/// V2 of the journal with a unique title.
enum UniqueTitleSchemaV2: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(2, 0, 0) }
    static var models: [any PersistentModel.Type] { [UniqueTitleV2.Entry.self] }
}

/// Removes the entries whose title repeats an earlier one before the title becomes unique.
enum DeduplicatingPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [JournalSchemaV1.self, UniqueTitleSchemaV2.self] }
    static var stages: [MigrationStage] {
        [
            .custom(
                fromVersion: JournalSchemaV1.self, toVersion: UniqueTitleSchemaV2.self,
                willMigrate: { context in
                    var seen = Set<String>()
                    for entry in try context.fetch(FetchDescriptor<JournalSchemaV1.Entry>(sortBy: [SortDescriptor(\.body)])) {
                        if !seen.insert(entry.title).inserted { context.delete(entry) }
                    }
                    try context.save()
                },
                didMigrate: nil)
        ]
    }
}

/// V1 → V3 in one custom stage: `willMigrate` adds an entry through the old models, `didMigrate`
/// counts the words through the new ones.
enum SeedingPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [JournalSchemaV1.self, JournalSchemaV3.self] }
    static var stages: [MigrationStage] {
        [
            .custom(
                fromVersion: JournalSchemaV1.self, toVersion: JournalSchemaV3.self,
                willMigrate: { context in
                    context.insert(JournalSchemaV1.Entry(title: "Thursday", body: "added while migrating", mood: "busy"))
                    try context.save()
                },
                didMigrate: { context in
                    for entry in try context.fetch(FetchDescriptor<JournalSchemaV3.Entry>()) {
                        entry.wordCount = entry.body.split(separator: " ").count
                    }
                    try context.save()
                })
        ]
    }
}

/// V1 → V3 whose `willMigrate` changes an old-named property that the stage then renames.
enum ShoutingPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [JournalSchemaV1.self, JournalSchemaV3.self] }
    static var stages: [MigrationStage] {
        [
            .custom(
                fromVersion: JournalSchemaV1.self, toVersion: JournalSchemaV3.self,
                willMigrate: { context in
                    for entry in try context.fetch(FetchDescriptor<JournalSchemaV1.Entry>(predicate: #Predicate { $0.title == "Monday" })) {
                        entry.title = "MONDAY"
                        entry.mood = "loud"
                    }
                    try context.save()
                },
                didMigrate: nil)
        ]
    }
}

/// V2 stores the mood as a number: a type change, which a custom stage carries out by reading the old
/// values in `willMigrate` and setting the new ones in `didMigrate`.
enum MoodNumberSchemaV2: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(2, 0, 0) }
    static var models: [any PersistentModel.Type] { [MoodAsNumber.Entry.self] }
}

enum MoodNumberPlan: SchemaMigrationPlan {
    /// The old moods by title, from willMigrate to didMigrate.
    static let moods = Mutex<[String: String]>([:])

    static var schemas: [any VersionedSchema.Type] { [JournalSchemaV1.self, MoodNumberSchemaV2.self] }
    static var stages: [MigrationStage] {
        [
            .custom(
                fromVersion: JournalSchemaV1.self, toVersion: MoodNumberSchemaV2.self,
                willMigrate: { context in
                    let entries = try context.fetch(FetchDescriptor<JournalSchemaV1.Entry>())
                    moods.withLock { moods in for entry in entries { moods[entry.title] = entry.mood } }
                },
                didMigrate: { context in
                    let moods = moods.withLock { $0 }
                    for entry in try context.fetch(FetchDescriptor<MoodAsNumber.Entry>()) {
                        entry.mood = moods[entry.title] == "busy" ? 2 : 1
                    }
                    try context.save()
                })
        ]
    }
}

/// V2 stores the mood as a level with no empty value (raw values from 1): a record without one cannot
/// even be shown, so a stage's didMigrate cannot fetch old entries to fill it in.
enum LeveledJournalV2 {
    enum Level: Int, Codable { case low = 1, middle, high }

    @Model
    final class Entry {
        var title: String
        var body: String
        var mood: Level
        init(title: String, body: String, mood: Level) {
            self.title = title
            self.body = body
            self.mood = mood
        }
    }
}

enum LeveledSchemaV2: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(2, 0, 0) }
    static var models: [any PersistentModel.Type] { [LeveledJournalV2.Entry.self] }
}

enum LevelPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [JournalSchemaV1.self, LeveledSchemaV2.self] }
    static var stages: [MigrationStage] {
        [
            .custom(
                fromVersion: JournalSchemaV1.self, toVersion: LeveledSchemaV2.self, willMigrate: nil,
                didMigrate: { context in
                    for entry in try context.fetch(FetchDescriptor<LeveledJournalV2.Entry>()) { entry.mood = .low }
                    try context.save()
                })
        ]
    }
}

struct StageFailure: Error, Equatable {}

/// A plan whose `didMigrate` throws after changing every entry.
enum FailingPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { JournalMigrationPlan.schemas }
    static var stages: [MigrationStage] {
        [
            .custom(
                fromVersion: JournalSchemaV1.self, toVersion: JournalSchemaV2.self,
                willMigrate: nil,
                didMigrate: { context in
                    for entry in try context.fetch(FetchDescriptor<JournalSchemaV2.Entry>()) { entry.wordCount = 99 }
                    try context.save()
                    throw StageFailure()
                }),
            JournalMigrationPlan.migrateV2toV3,
        ]
    }
}

/// V2 with a required rating and no default: only a custom stage can give old entries one.
enum RatedJournalV2 {
    @Model
    final class Entry {
        var title: String
        var body: String
        var mood: String
        var rating: Int
        init(title: String, body: String, mood: String, rating: Int) {
            self.title = title
            self.body = body
            self.mood = mood
            self.rating = rating
        }
    }
}

enum RatedSchemaV2: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(2, 0, 0) }
    static var models: [any PersistentModel.Type] { [RatedJournalV2.Entry.self] }
}

enum RatingPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [JournalSchemaV1.self, RatedSchemaV2.self] }
    static var stages: [MigrationStage] {
        [
            .custom(
                fromVersion: JournalSchemaV1.self, toVersion: RatedSchemaV2.self, willMigrate: nil,
                didMigrate: { context in
                    for entry in try context.fetch(FetchDescriptor<RatedJournalV2.Entry>()) { entry.rating = entry.title.count }
                    try context.save()
                })
        ]
    }
}

enum ForgetfulRatingPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [JournalSchemaV1.self, RatedSchemaV2.self] }
    static var stages: [MigrationStage] {
        [.custom(fromVersion: JournalSchemaV1.self, toVersion: RatedSchemaV2.self, willMigrate: nil, didMigrate: nil)]
    }
}

@Suite("Custom migration stages")
struct CustomStageTests {
    /// Writes three V1 entries: "Monday", "Tuesday", "Wednesday", each with the body "a day called …".
    func writeVersion1(_ store: TemporaryStore, extra: [(String, String)] = []) throws {
        let container = try ModelContainer(
            for: Schema(versionedSchema: JournalSchemaV1.self),
            configurations: [ModelConfiguration(url: store.url)])
        let context = ModelContext(container)
        for title in ["Monday", "Tuesday", "Wednesday"] {
            context.insert(JournalSchemaV1.Entry(title: title, body: "a day called \(title)", mood: "calm"))
        }
        for (title, body) in extra { context.insert(JournalSchemaV1.Entry(title: title, body: body, mood: "busy")) }
        try context.save()
    }

    func lastSequence(_ store: TemporaryStore) throws -> UInt64 {
        var configuration = StoreConfiguration()
        configuration.readOnly = true
        return try Store.open(at: store.url, configuration: configuration).lastSequence
    }

    func open<Plan: SchemaMigrationPlan>(_ store: TemporaryStore, _ schema: any VersionedSchema.Type, _ plan: Plan.Type) throws -> ModelContext {
        ModelContext(
            try ModelContainer(
                for: Schema(versionedSchema: schema), migrationPlan: plan,
                configurations: [ModelConfiguration(url: store.url)]))
    }

    @Test func theJournalPlanFillsTheWordCountsAndRemovesTheMoodInOneTransaction() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        try writeVersion1(store)
        let before = try lastSequence(store)
        let context = try open(store, JournalSchemaV3.self, JournalMigrationPlan.self)
        let entries = try context.fetch(FetchDescriptor<JournalSchemaV3.Entry>(sortBy: [SortDescriptor(\.heading)]))
        #expect(entries.map(\.heading) == ["Monday", "Tuesday", "Wednesday"])
        #expect(entries.map(\.wordCount) == [4, 4, 4])
        #expect(try context.fetchCount(FetchDescriptor<JournalSchemaV3.Entry>(predicate: #Predicate { $0.wordCount == 4 })) == 3)
        #expect(try lastSequence(store) == before + 1)
        var configuration = StoreConfiguration()
        configuration.readOnly = true
        let raw = try Store.open(at: store.url, configuration: configuration)
        let migration = try #require(try raw.history(after: before).first)
        #expect(migration.author == "migration JournalSchemaV1 (1.0.0) → JournalSchemaV2 (2.0.0), JournalSchemaV2 (2.0.0) → JournalSchemaV3 (3.0.0)")
        #expect(migration.migrations.map(\.entity) == ["Entry", "Entry"])
        #expect(migration.updated.count == 3)
        #expect(raw.records(of: "Entry").allSatisfy { $0.values["mood"] == nil && $0.values["wordCount"] == .int(4) })
    }

    @Test func willMigrateAndDidMigrateChangesAreKeptWithTheirIdentifiers() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        try writeVersion1(store)
        let context = try open(store, JournalSchemaV3.self, SeedingPlan.self)
        let entries = try context.fetch(FetchDescriptor<JournalSchemaV3.Entry>(sortBy: [SortDescriptor(\.heading)]))
        #expect(entries.map(\.heading) == ["Monday", "Thursday", "Tuesday", "Wednesday"])
        #expect(entries.map(\.wordCount) == [4, 3, 4, 4])
        // A save after the migration allocates past the identifier the stage used.
        context.insert(JournalSchemaV3.Entry(heading: "Friday", body: "after"))
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<JournalSchemaV3.Entry>()) == 5)
    }

    @Test func whatWillMigrateChangesIsRenamedAndRemovedByTheStage() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        try writeVersion1(store)
        let context = try open(store, JournalSchemaV3.self, ShoutingPlan.self)
        #expect(
            try context.fetch(FetchDescriptor<JournalSchemaV3.Entry>(sortBy: [SortDescriptor(\.heading)])).map(\.heading)
                == ["MONDAY", "Tuesday", "Wednesday"])
        var configuration = StoreConfiguration()
        configuration.readOnly = true
        let raw = try Store.open(at: store.url, configuration: configuration)
        let migration = try #require(try raw.history(after: 0).last)
        #expect(migration.updated.map(\.values) == [["heading": .string("MONDAY")]])
        #expect(raw.records(of: "Entry").allSatisfy { $0.values["mood"] == nil && $0.values["title"] == nil })
    }

    @Test func willMigrateCanRemoveDuplicatesBeforeAnAddedUniqueness() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        try writeVersion1(store, extra: [("Tuesday", "z again")])
        let context = try open(store, UniqueTitleSchemaV2.self, DeduplicatingPlan.self)
        let titles = try context.fetch(FetchDescriptor<UniqueTitleV2.Entry>(sortBy: [SortDescriptor(\.title)])).map(\.title)
        #expect(titles == ["Monday", "Tuesday", "Wednesday"])
    }

    @Test func aStageThatThrowsLeavesTheStoreAsItWasAndItsErrorReachesTheCaller() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        try writeVersion1(store)
        let before = try lastSequence(store)
        #expect(throws: StageFailure.self) { try open(store, JournalSchemaV3.self, FailingPlan.self) }
        #expect(try lastSequence(store) == before)
        let old = ModelContext(
            try ModelContainer(
                for: Schema(versionedSchema: JournalSchemaV1.self),
                configurations: [ModelConfiguration(url: store.url)]))
        #expect(try old.fetch(FetchDescriptor<JournalSchemaV1.Entry>()).map(\.mood) == ["calm", "calm", "calm"])
    }

    @Test func aCustomStageChangesAStoredTypeThroughItsOldAndNewModels() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        try writeVersion1(store, extra: [("Thursday", "hectic")])
        let context = try open(store, MoodNumberSchemaV2.self, MoodNumberPlan.self)
        let entries = try context.fetch(FetchDescriptor<MoodAsNumber.Entry>(sortBy: [SortDescriptor(\.title)]))
        #expect(entries.map(\.title) == ["Monday", "Thursday", "Tuesday", "Wednesday"])
        #expect(entries.map(\.mood) == [1, 2, 1, 1])
        #expect(try context.fetchCount(FetchDescriptor<MoodAsNumber.Entry>(predicate: #Predicate { $0.mood > 1 })) == 1)
    }

    @Test func aStageCannotFetchModelsMissingAValueWithNoEmptyFormAndTheStoreIsUnchanged() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        try writeVersion1(store)
        let before = try lastSequence(store)
        let error = #expect(throws: FolioError.self) { try open(store, LeveledSchemaV2.self, LevelPlan.self) }
        #expect(error?.code == .modelCoding, "\(String(describing: error))")
        #expect("\(String(describing: error))".contains("mood"))
        #expect(try lastSequence(store) == before)
    }

    @Test func aTypeChangeWithoutAStageNamesTheStageToWrite() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        try writeVersion1(store)
        let error = #expect(throws: FolioError.self) { try store.container(MoodAsNumber.Entry.self) }
        #expect(error?.message.contains("willMigrate sees the old models (read the old values there)") == true)
    }

    @Test func aRequiredPropertyFilledByDidMigrateIsStored() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        try writeVersion1(store)
        let context = try open(store, RatedSchemaV2.self, RatingPlan.self)
        let ratings = try context.fetch(FetchDescriptor<RatedJournalV2.Entry>(sortBy: [SortDescriptor(\.title)])).map(\.rating)
        #expect(ratings == [6, 7, 9])
    }

    @Test func aRequiredPropertyNoStageFillsRefusesTheMigration() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        try writeVersion1(store)
        let before = try lastSequence(store)
        let error = #expect(throws: FolioError.self) { try open(store, RatedSchemaV2.self, ForgetfulRatingPlan.self) }
        #expect(error?.code == .migrationRequired)
        #expect(error?.message.contains("has no value for 'rating'") == true)
        #expect(try lastSequence(store) == before)
    }
}
