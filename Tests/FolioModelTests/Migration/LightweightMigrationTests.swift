import Foundation
import Testing
@testable import Folio
@_spi(FolioEngine) import FolioStorage

/// The journal app's V1 → V2 → V3 as two lightweight stages: V2 renames `title` to `heading` and adds
/// `wordCount` (default 0), V3 removes `mood`.
enum JournalLightweightPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { JournalMigrationPlan.schemas }
    static var stages: [MigrationStage] {
        [
            .lightweight(fromVersion: JournalSchemaV1.self, toVersion: JournalSchemaV2.self),
            .lightweight(fromVersion: JournalSchemaV2.self, toVersion: JournalSchemaV3.self),
        ]
    }
}

/// A store with a tag entity beside the entries, and the version that drops it.
enum TaggedJournalV1 {
    @Model
    final class Entry {
        var title: String
        init(title: String) { self.title = title }
    }

    @Model
    final class Label {
        var name: String
        init(name: String) { self.name = name }
    }
}

enum TaggedJournalV2 {
    @Model
    final class Entry {
        var title: String
        init(title: String) { self.title = title }
    }
}

/// V1 entries whose titles repeat, and a version that makes the title unique.
enum UniqueTitleV2 {
    @Model
    final class Entry {
        @Attribute(.unique) var title: String
        var body: String
        var mood: String
        init(title: String, body: String, mood: String) {
            self.title = title
            self.body = body
            self.mood = mood
        }
    }
}

/// A version that changes `mood` from `String` to `Int`: not lightweight.
enum MoodAsNumber {
    @Model
    final class Entry {
        var title: String
        var body: String
        var mood: Int
        init(title: String, body: String, mood: Int) {
            self.title = title
            self.body = body
            self.mood = mood
        }
    }
}

@Suite("Lightweight migration when a container opens")
struct LightweightMigrationTests {
    typealias Entry = JournalSchemaV3.Entry

    /// Writes three V1 entries: "Monday" (calm), "Tuesday" (busy), "Wednesday" (calm).
    func writeVersion1(_ store: TemporaryStore) throws {
        let container = try ModelContainer(
            for: Schema(versionedSchema: JournalSchemaV1.self),
            configurations: [ModelConfiguration(url: store.url)])
        let context = ModelContext(container)
        for (title, mood) in [("Monday", "calm"), ("Tuesday", "busy"), ("Wednesday", "calm")] {
            context.insert(JournalSchemaV1.Entry(title: title, body: "a day called \(title)", mood: mood))
        }
        try context.save()
    }

    /// The store's files, read by the storage engine alone.
    func rawStore(_ store: TemporaryStore) throws -> Store {
        var configuration = StoreConfiguration()
        configuration.readOnly = true
        return try Store.open(at: store.url, configuration: configuration)
    }

    @Test func aRenamedAndARemovedPropertyMigrateWithoutAPlan() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        try writeVersion1(store)
        let container = try ModelContainer(
            for: Schema(versionedSchema: JournalSchemaV3.self),
            configurations: [ModelConfiguration(url: store.url)])
        let context = ModelContext(container)
        let sorted = FetchDescriptor<Entry>(sortBy: [SortDescriptor(\.heading, order: .reverse)])
        #expect(try context.fetch(sorted).map(\.heading) == ["Wednesday", "Tuesday", "Monday"])
        #expect(
            try context.fetch(FetchDescriptor<Entry>(predicate: #Predicate { $0.heading == "Tuesday" })).map(\.body)
                == ["a day called Tuesday"])
        #expect(try context.fetch(FetchDescriptor<Entry>()).map(\.wordCount) == [0, 0, 0])

        let raw = try rawStore(store)
        defer { raw.close() }
        for record in raw.records(of: "Entry") {
            #expect(record.values["heading"] != nil)
            #expect(record.values["title"] == nil)
            #expect(record.values["mood"] == nil)
        }
        let recorded = try RecordedSchema(parsing: try #require(raw.schema))
        #expect(recorded.checksum == Schema(versionedSchema: JournalSchemaV3.self).checksum)
        #expect(recorded.version == "3.0.0")
    }

    @Test func theMigrationIsOneTransactionNamingItsStepsAndHistoryKeepsTheOldValues() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        try writeVersion1(store)
        let before = try rawStore(store).lastSequence
        let container = try ModelContainer(
            for: Schema(versionedSchema: JournalSchemaV3.self),
            configurations: [ModelConfiguration(url: store.url)])
        let raw = try rawStore(store)
        defer { raw.close() }
        #expect(raw.lastSequence == before + 1)
        let migration = try #require(try raw.history(after: before).first)
        #expect(migration.author == "migration 1.0.0 → 3.0.0")
        #expect(migration.migrations == [RecordMigration(entity: "Entry", renamedMembers: ["title": "heading"], removedMembers: ["mood"])])

        let history = try ModelContext(container).fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        let moods = history.flatMap(\.changes).compactMap { change -> String? in
            guard case .insert(let insert) = change, let values = (insert as? DefaultHistoryInsert<Entry>)?.values.storedValues,
                case .string(let mood)? = values["mood"]
            else { return nil }
            return mood
        }
        #expect(moods.sorted() == ["busy", "calm", "calm"])

        // Opening again finds the store at the models' version: nothing more is written.
        _ = try ModelContainer(for: Schema(versionedSchema: JournalSchemaV3.self), configurations: [ModelConfiguration(url: store.url)])
        #expect(try rawStore(store).lastSequence == before + 1)
    }

    @Test func removedValuesLeaveTheSnapshotsAtTheNextCompaction() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        try writeVersion1(store)
        let container = try ModelContainer(
            for: Schema(versionedSchema: JournalSchemaV3.self),
            configurations: [ModelConfiguration(url: store.url)])
        try container.compact()
        let snapshot = try String(contentsOf: store.url.appendingPathComponent("snapshots/Entry.jsonl"), encoding: .utf8)
        #expect(snapshot.contains("\"heading\":\"Monday\""))
        #expect(!snapshot.contains("\"mood\""))
        #expect(!snapshot.contains("\"title\""))
        let reopened = ModelContext(
            try ModelContainer(
                for: Schema(versionedSchema: JournalSchemaV3.self),
                configurations: [ModelConfiguration(url: store.url)]))
        #expect(try reopened.fetchCount(FetchDescriptor<Entry>(predicate: #Predicate { $0.heading != "Monday" })) == 2)
    }

    @Test func aContainerStillOpenWithTheOldModelsReadsTheMigratedRecordsAgain() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        try writeVersion1(store)
        let old = ModelContext(
            try ModelContainer(
                for: Schema(versionedSchema: JournalSchemaV1.self),
                configurations: [ModelConfiguration(url: store.url)]))
        #expect(try old.fetchCount(FetchDescriptor<JournalSchemaV1.Entry>(predicate: #Predicate { $0.title == "Monday" })) == 1)
        _ = try ModelContainer(for: Schema(versionedSchema: JournalSchemaV3.self), configurations: [ModelConfiguration(url: store.url)])
        // The old container's index took the migration in: its records no longer hold "title".
        #expect(try old.fetchCount(FetchDescriptor<JournalSchemaV1.Entry>()) == 3)
        #expect(try old.fetchCount(FetchDescriptor<JournalSchemaV1.Entry>(predicate: #Predicate { $0.title == "Monday" })) == 0)
        // Its saves would write the old names into migrated records: they are refused.
        let sequence = try rawStore(store).lastSequence
        old.insert(JournalSchemaV1.Entry(title: "Friday", body: "late", mood: "calm"))
        let error = #expect(throws: FolioError.self) { try old.save() }
        #expect(error?.code == .schemaMismatch)
        #expect(error?.message.contains("was migrated to schema 3.0.0 by another process") == true)
        #expect(try rawStore(store).lastSequence == sequence)
    }

    @Test func aPlanRunsItsLightweightStagesInOneTransaction() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        try writeVersion1(store)
        let before = try rawStore(store).lastSequence
        let container = try ModelContainer(
            for: Schema(versionedSchema: JournalSchemaV3.self), migrationPlan: JournalLightweightPlan.self,
            configurations: [ModelConfiguration(url: store.url)])
        let context = ModelContext(container)
        #expect(
            try context.fetch(FetchDescriptor<Entry>(sortBy: [SortDescriptor(\.heading)])).map(\.heading)
                == ["Monday", "Tuesday", "Wednesday"])
        let raw = try rawStore(store)
        defer { raw.close() }
        #expect(raw.lastSequence == before + 1)
        let migration = try #require(try raw.history(after: before).first)
        #expect(migration.author == "migration JournalSchemaV1 (1.0.0) → JournalSchemaV2 (2.0.0), JournalSchemaV2 (2.0.0) → JournalSchemaV3 (3.0.0)")
        #expect(migration.migrations.count == 2)
        #expect(raw.records(of: "Entry").allSatisfy { $0.values["mood"] == nil && $0.values["heading"] != nil })
    }

    @Test func aStoreAtAPlansMiddleVersionRunsOnlyTheRemainingStages() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        do {
            let context = ModelContext(
                try ModelContainer(
                    for: Schema(versionedSchema: JournalSchemaV2.self),
                    configurations: [ModelConfiguration(url: store.url)]))
            context.insert(JournalSchemaV2.Entry(heading: "Friday", body: "b", mood: "calm"))
            try context.save()
        }
        let container = try ModelContainer(
            for: Schema(versionedSchema: JournalSchemaV3.self), migrationPlan: JournalLightweightPlan.self,
            configurations: [ModelConfiguration(url: store.url)])
        #expect(try ModelContext(container).fetch(FetchDescriptor<Entry>()).map(\.heading) == ["Friday"])
        let raw = try rawStore(store)
        defer { raw.close() }
        #expect(try raw.history(after: 0).last?.author == "migration JournalSchemaV2 (2.0.0) → JournalSchemaV3 (3.0.0)")
    }

    @Test func aRemovedEntityDropsItsRecords() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        do {
            let context = ModelContext(try store.container(TaggedJournalV1.Entry.self, TaggedJournalV1.Label.self))
            context.insert(TaggedJournalV1.Entry(title: "kept"))
            context.insert(TaggedJournalV1.Label(name: "dropped"))
            try context.save()
        }
        let container = try store.container(TaggedJournalV2.Entry.self)
        #expect(try ModelContext(container).fetch(FetchDescriptor<TaggedJournalV2.Entry>()).map(\.title) == ["kept"])
        try container.compact()
        let raw = try rawStore(store)
        defer { raw.close() }
        #expect(raw.count(of: "Label") == 0)
        #expect(raw.count(of: "Entry") == 1)
        #expect(!FileManager.default.fileExists(atPath: store.url.appendingPathComponent("snapshots/Label.jsonl").path))
    }

    @Test func anAddedUniquenessWithDuplicatesRefusesTheMigrationAndChangesNothing() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        try writeVersion1(store)
        do {
            let context = ModelContext(
                try ModelContainer(
                    for: Schema(versionedSchema: JournalSchemaV1.self),
                    configurations: [ModelConfiguration(url: store.url)]))
            context.insert(JournalSchemaV1.Entry(title: "Tuesday", body: "again", mood: "calm"))
            try context.save()
        }
        let before = try rawStore(store).lastSequence
        let error = #expect(throws: FolioError.self) { try store.container(UniqueTitleV2.Entry.self) }
        #expect(error?.code == .migrationRequired)
        #expect(error?.message.contains("adds uniqueness of Entry (title)") == true)
        #expect(error?.message.contains("both have title = \"Tuesday\"") == true, "\(error?.message ?? "")")
        #expect(try rawStore(store).lastSequence == before)
        // Version 1 still opens it, with every entry.
        let old = ModelContext(
            try ModelContainer(
                for: Schema(versionedSchema: JournalSchemaV1.self),
                configurations: [ModelConfiguration(url: store.url)]))
        #expect(try old.fetchCount(FetchDescriptor<JournalSchemaV1.Entry>()) == 4)
    }

    @Test func aTypeChangeIsRefusedNamingThePropertyAndTheStoreStaysOpenableByTheOldVersion() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        try writeVersion1(store)
        let before = try rawStore(store).lastSequence
        let error = #expect(throws: FolioError.self) { try store.container(MoodAsNumber.Entry.self) }
        #expect(error?.code == .migrationRequired)
        #expect(error?.message.contains("Entry.mood: type changed from String to Int") == true)
        #expect(try rawStore(store).lastSequence == before)
        let old = ModelContext(
            try ModelContainer(
                for: Schema(versionedSchema: JournalSchemaV1.self),
                configurations: [ModelConfiguration(url: store.url)]))
        #expect(try old.fetchCount(FetchDescriptor<JournalSchemaV1.Entry>()) == 3)
    }

    @Test func anOlderVersionOfTheModelsDoesNotMigrateANewerStoreBack() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        do {
            let context = ModelContext(
                try ModelContainer(
                    for: Schema(versionedSchema: JournalSchemaV2.self),
                    configurations: [ModelConfiguration(url: store.url)]))
            context.insert(JournalSchemaV2.Entry(heading: "Friday", body: "b", mood: "calm"))
            try context.save()
        }
        let before = try rawStore(store).lastSequence
        let error = #expect(throws: FolioError.self) {
            try ModelContainer(for: Schema(versionedSchema: JournalSchemaV1.self), configurations: [ModelConfiguration(url: store.url)])
        }
        #expect(error?.code == .schemaMismatch)
        #expect(error?.message.contains("was written by schema version 2.0.0, newer than the models' 1.0.0") == true)
        #expect(try rawStore(store).lastSequence == before)
    }

    @Test func aContainerThatDoesNotSaveRefusesToMigrate() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        try writeVersion1(store)
        let before = try rawStore(store).lastSequence
        let error = #expect(throws: FolioError.self) {
            try ModelContainer(
                for: Schema(versionedSchema: JournalSchemaV3.self),
                configurations: [ModelConfiguration(url: store.url, allowsSave: false)])
        }
        #expect(error?.code == .migrationRequired)
        #expect(error?.message.contains("does not allow saving") == true)
        #expect(try rawStore(store).lastSequence == before)
    }
}

/// A shelf item, and the next version that adds a code with a default to its uniqueness.
enum ShelfV1 {
    @Model
    final class Item {
        var name: String
        init(name: String) { self.name = name }
    }
}

enum ShelfV2 {
    @Model
    final class Item {
        #Unique<Item>([\.name, \.code])
        var name: String
        var code: String = "none"
        init(name: String, code: String = "none") {
            self.name = name
            self.code = code
        }
    }
}

@Suite("Uniqueness over records written before a property existed")
struct UniquenessAfterMigrationTests {
    @Test func aNewModelMatchesAnOldRecordThroughTheDefaultOfAnAddedProperty() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        do {
            let context = ModelContext(try store.container(ShelfV1.Item.self))
            context.insert(ShelfV1.Item(name: "lamp"))
            context.insert(ShelfV1.Item(name: "desk"))
            try context.save()
        }
        let context = ModelContext(try store.container(ShelfV2.Item.self))
        // "lamp" with the default code is the stored lamp: the save updates it instead of adding one.
        context.insert(ShelfV2.Item(name: "lamp"))
        context.insert(ShelfV2.Item(name: "lamp", code: "L-2"))
        try context.save()
        let items = try ModelContext(try store.container(ShelfV2.Item.self))
            .fetch(FetchDescriptor<ShelfV2.Item>(sortBy: [SortDescriptor(\.name), SortDescriptor(\.code)]))
        #expect(items.map { "\($0.name)/\($0.code)" } == ["desk/none", "lamp/L-2", "lamp/none"])
    }
}

@Suite("Opening a store with unrelated models")
struct UnrelatedModelsTests {
    @Test func modelsThatKeepNoEntityOfTheStoreAreRefusedAndDeleteNothing() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        do {
            let context = ModelContext(try store.container(TaggedJournalV1.Entry.self))
            context.insert(TaggedJournalV1.Entry(title: "kept"))
            try context.save()
        }
        let error = #expect(throws: FolioError.self) { try store.container(ShelfV1.Item.self) }
        #expect(error?.code == .schemaMismatch)
        #expect(error?.message.contains("records the entities Entry, and the models (Item) keep none of them") == true)
        let context = ModelContext(try store.container(TaggedJournalV1.Entry.self))
        #expect(try context.fetch(FetchDescriptor<TaggedJournalV1.Entry>()).map(\.title) == ["kept"])
    }
}

/// A tart as the first version declares it, and the next version where it gains a superentity.
enum TartV1 {
    @Model
    final class Tart {
        var name: String
        var filling: String
        init(name: String, filling: String) {
            self.name = name
            self.filling = filling
        }
    }
}

enum TartV2 {
    @Model
    class Pastry {
        var name: String
        init(name: String) { self.name = name }
    }

    @Model
    final class Tart: Pastry {
        var filling: String
        init(name: String, filling: String) {
            self.filling = filling
            super.init(name: name)
        }
    }
}

@Suite("An entity that gains a superentity")
struct SuperentityMigrationTests {
    @Test func oldRecordsAreFetchedThroughTheNewSuperentity() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        do {
            let context = ModelContext(try store.container(TartV1.Tart.self))
            context.insert(TartV1.Tart(name: "lemon", filling: "curd"))
            context.insert(TartV1.Tart(name: "apple", filling: "fruit"))
            try context.save()
        }
        let container = try store.container(TartV2.Pastry.self, TartV2.Tart.self)
        let context = ModelContext(container)
        #expect(try context.fetch(FetchDescriptor<TartV2.Pastry>(sortBy: [SortDescriptor(\.name)])).map(\.name) == ["apple", "lemon"])
        let tarts = try context.fetch(FetchDescriptor<TartV2.Tart>(predicate: #Predicate { $0.filling == "curd" }))
        #expect(tarts.map(\.name) == ["lemon"])
        context.insert(TartV2.Pastry(name: "croissant"))
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<TartV2.Pastry>()) == 3)
        #expect(try context.fetchCount(FetchDescriptor<TartV2.Tart>()) == 2)
    }
}

/// A shelf of books whose `writer` relationship the next version renames to `author`.
enum ShelfBooksV1 {
    @Model
    final class Writer {
        var name: String
        @Relationship(inverse: \Volume.writer) var volumes: [Volume] = []
        init(name: String) { self.name = name }
    }

    @Model
    final class Volume {
        var title: String
        var writer: Writer?
        init(title: String) { self.title = title }
    }
}

enum ShelfBooksV2 {
    @Model
    final class Writer {
        var name: String
        @Relationship(inverse: \Volume.author) var volumes: [Volume] = []
        init(name: String) { self.name = name }
    }

    @Model
    final class Volume {
        var title: String
        @Relationship(originalName: "writer") var author: Writer?
        init(title: String) { self.title = title }
    }
}

@Suite("A renamed relationship")
struct RenamedRelationshipTests {
    @Test func aRelationshipRenamedThroughOriginalNameKeepsItsModels() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        do {
            let context = ModelContext(try store.container(ShelfBooksV1.Writer.self, ShelfBooksV1.Volume.self))
            let writer = ShelfBooksV1.Writer(name: "Calvino")
            context.insert(writer)
            for title in ["Invisible Cities", "Cosmicomics"] {
                let volume = ShelfBooksV1.Volume(title: title)
                context.insert(volume)
                volume.writer = writer
            }
            try context.save()
        }
        let context = ModelContext(try store.container(ShelfBooksV2.Writer.self, ShelfBooksV2.Volume.self))
        let volumes = try context.fetch(FetchDescriptor<ShelfBooksV2.Volume>(sortBy: [SortDescriptor(\.title)]))
        #expect(volumes.map { $0.author?.name } == ["Calvino", "Calvino"])
        let writer = try #require(try context.fetch(FetchDescriptor<ShelfBooksV2.Writer>()).first)
        #expect(writer.volumes.map(\.title).sorted() == ["Cosmicomics", "Invisible Cities"])
        let named = try context.fetch(FetchDescriptor<ShelfBooksV2.Volume>(predicate: #Predicate { $0.author?.name == "Calvino" }))
        #expect(named.count == 2)
    }
}
