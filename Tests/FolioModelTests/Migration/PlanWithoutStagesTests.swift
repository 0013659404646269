import Foundation
import Testing
@testable import Folio
@_spi(FolioEngine) import FolioStorage

@Suite("Migration plans as apps write them: no stages, and a stage down")
struct PlanWithoutStagesTests {
    /// Writes three V1 notes: "Monday", "Tuesday", "Wednesday", each with the body "notes for …".
    func writeVersion1(_ store: TemporaryStore) throws {
        let context = try open(store, NotebookSchemaV1.self)
        for title in ["Monday", "Tuesday", "Wednesday"] {
            context.insert(NotebookSchemaV1.Note(title: title, body: "notes for \(title)"))
        }
        try context.save()
    }

    /// Writes two V2 notes: "Thursday" (pinned, tagged "work") and "Friday".
    func writeVersion2(_ store: TemporaryStore) throws {
        let context = try open(store, NotebookSchemaV2.self)
        context.insert(NotebookSchemaV2.Note(heading: "Thursday", body: "notes for Thursday", pinned: true, tag: "work"))
        context.insert(NotebookSchemaV2.Note(heading: "Friday", body: "notes for Friday"))
        try context.save()
    }

    func open(
        _ store: TemporaryStore, _ schema: any VersionedSchema.Type,
        _ plan: (any SchemaMigrationPlan.Type)? = nil
    ) throws -> ModelContext {
        ModelContext(
            try ModelContainer(
                for: Schema(versionedSchema: schema), migrationPlan: plan,
                configurations: [ModelConfiguration(url: store.url)]))
    }

    /// The store's files, read by the storage engine alone.
    func rawStore(_ store: TemporaryStore) throws -> Store {
        var configuration = StoreConfiguration()
        configuration.readOnly = true
        return try Store.open(at: store.url, configuration: configuration)
    }

    func recordedSchema(_ store: TemporaryStore) throws -> RecordedSchema {
        let raw = try rawStore(store)
        defer { raw.close() }
        return try RecordedSchema(parsing: try #require(raw.schema))
    }

    // MARK: Inferred steps

    @Test func aPlanWithoutStagesInfersTheStepRenamingAndDefaulting() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        try writeVersion1(store)
        let context = try open(store, NotebookSchemaV2.self, NotebookPlan.self)
        let notes = try context.fetch(FetchDescriptor<NotebookSchemaV2.Note>(sortBy: [SortDescriptor(\.heading)]))
        #expect(notes.map(\.heading) == ["Monday", "Tuesday", "Wednesday"])
        #expect(notes.map(\.body) == ["notes for Monday", "notes for Tuesday", "notes for Wednesday"])
        #expect(notes.map(\.pinned) == [false, false, false])
        #expect(notes.allSatisfy { $0.tag == nil })
        #expect(try context.fetchCount(FetchDescriptor<NotebookSchemaV2.Note>(predicate: #Predicate { !$0.pinned })) == 3)

        let raw = try rawStore(store)
        defer { raw.close() }
        #expect(raw.records(of: "Note").allSatisfy { $0.values["heading"] != nil && $0.values["title"] == nil })
        #expect(try raw.history(after: 0).last?.author == "migration NotebookSchemaV1 (1.0.0) → NotebookSchemaV2 (2.0.0)")
        #expect(try recordedSchema(store).checksum == Schema(versionedSchema: NotebookSchemaV2.self).checksum)
    }

    @Test func aV1StoreReachesV3ThroughEachVersionCarryingARenamedValueTwice() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        try writeVersion1(store)
        let before = try rawStore(store).lastSequence
        let context = try open(store, NotebookSchemaV3.self, NotebookPlan.self)
        let notes = try context.fetch(FetchDescriptor<NotebookSchemaV3.Note>(sortBy: [SortDescriptor(\.headline)]))
        #expect(notes.map(\.headline) == ["Monday", "Tuesday", "Wednesday"])
        #expect(notes.map(\.pinned) == [false, false, false])
        #expect(
            try context.fetch(FetchDescriptor<NotebookSchemaV3.Note>(predicate: #Predicate { $0.headline == "Tuesday" })).map(\.body)
                == ["notes for Tuesday"])

        let raw = try rawStore(store)
        defer { raw.close() }
        #expect(raw.lastSequence == before + 1)
        let migration = try #require(try raw.history(after: before).first)
        #expect(
            migration.author == "migration NotebookSchemaV1 (1.0.0) → NotebookSchemaV2 (2.0.0), NotebookSchemaV2 (2.0.0) → NotebookSchemaV3 (3.0.0)")
        #expect(
            migration.migrations == [
                RecordMigration(entity: "Note", renamedMembers: ["title": "heading"]),
                RecordMigration(entity: "Note", renamedMembers: ["heading": "headline"], removedMembers: ["tag"]),
            ])
        #expect(raw.records(of: "Note").allSatisfy { $0.values["headline"] != nil && $0.values["heading"] == nil })
    }

    @Test func aV2StoreKeepsItsValuesOnTheWayToV3() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        try writeVersion2(store)
        let context = try open(store, NotebookSchemaV3.self, NotebookPlan.self)
        let notes = try context.fetch(FetchDescriptor<NotebookSchemaV3.Note>(sortBy: [SortDescriptor(\.headline)]))
        #expect(notes.map(\.headline) == ["Friday", "Thursday"])
        #expect(notes.map(\.pinned) == [false, true])
        let raw = try rawStore(store)
        defer { raw.close() }
        #expect(raw.records(of: "Note").allSatisfy { $0.values["tag"] == nil })
        #expect(try raw.history(after: 0).last?.author == "migration NotebookSchemaV2 (2.0.0) → NotebookSchemaV3 (3.0.0)")
    }

    @Test func theOrderThePlanListsItsSchemasInChangesNothing() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        try writeVersion1(store)
        let context = try open(store, NotebookSchemaV3.self, ShuffledNotebookPlan.self)
        #expect(
            try context.fetch(FetchDescriptor<NotebookSchemaV3.Note>(sortBy: [SortDescriptor(\.headline)])).map(\.headline)
                == ["Monday", "Tuesday", "Wednesday"])
        let raw = try rawStore(store)
        defer { raw.close() }
        #expect(
            try raw.history(after: 0).last?.author
                == "migration NotebookSchemaV1 (1.0.0) → NotebookSchemaV2 (2.0.0), NotebookSchemaV2 (2.0.0) → NotebookSchemaV3 (3.0.0)")
    }

    @Test func aPlanWithoutStagesMigratesAStoreOfAnUnlistedVersionAsWithoutAPlan() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        try writeVersion1(store)
        let context = try open(store, NotebookSchemaV2.self, LatestOnlyNotebookPlan.self)
        #expect(
            try context.fetch(FetchDescriptor<NotebookSchemaV2.Note>(sortBy: [SortDescriptor(\.heading)])).map(\.heading)
                == ["Monday", "Tuesday", "Wednesday"])
        let raw = try rawStore(store)
        defer { raw.close() }
        #expect(try raw.history(after: 0).last?.author == "migration 1.0.0 → 2.0.0")
    }

    // MARK: Steps that cannot be inferred

    @Test func aGapFolioCannotInferIsRefusedNamingTheVersionsThePropertyAndTheStage() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        try writeVersion1(store)
        let before = try rawStore(store).lastSequence
        let error = #expect(throws: FolioError.self) { try open(store, NotebookRatedSchemaV2.self, RatedNotebookPlan.self) }
        #expect(error?.code == .migrationRequired)
        let message = error?.message ?? ""
        #expect(message.contains("cannot be migrated from NotebookSchemaV1 (1.0.0) to NotebookRatedSchemaV2 (2.0.0)"))
        #expect(message.contains("the migration plan RatedNotebookPlan has no stage between them"))
        #expect(message.contains("Note.rating: non-optional Int added without a default"))
        #expect(message.contains("MigrationStage.custom(fromVersion: NotebookSchemaV1.self, toVersion: NotebookRatedSchemaV2.self"))
        #expect(message.contains("left unchanged"))
        #expect(try rawStore(store).lastSequence == before)
        let old = try open(store, NotebookSchemaV1.self)
        #expect(
            try old.fetch(FetchDescriptor<NotebookSchemaV1.Note>(sortBy: [SortDescriptor(\.title)])).map(\.title)
                == ["Monday", "Tuesday", "Wednesday"])
    }

    @Test func aGapLaterOnTheWayIsRefusedNamingThatPairOfVersions() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        try writeVersion1(store)
        let before = try rawStore(store).lastSequence
        let error = #expect(throws: FolioError.self) { try open(store, NotebookCountedSchemaV3.self, CountedNotebookPlan.self) }
        #expect(error?.code == .migrationRequired)
        let message = error?.message ?? ""
        #expect(message.contains("cannot be migrated from NotebookSchemaV2 (2.0.0) to NotebookCountedSchemaV3 (3.0.0)"))
        #expect(message.contains("Note.body: type changed from String to Int"))
        #expect(message.contains("willMigrate sees the old models"))
        #expect(try rawStore(store).lastSequence == before)
        #expect(try recordedSchema(store).checksum == Schema(versionedSchema: NotebookSchemaV1.self).checksum)
    }

    // MARK: Going down

    @Test func aStageDownBringsAV2StoreBackToTheV1Models() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        try writeVersion2(store)
        let context = try open(store, NotebookSchemaV1.self, NotebookRollbackPlan.self)
        let notes = try context.fetch(FetchDescriptor<NotebookSchemaV1.Note>(sortBy: [SortDescriptor(\.body)]))
        #expect(notes.map(\.title) == ["Friday", "★ Thursday"])
        #expect(notes.map(\.body) == ["notes for Friday (rolled back)", "notes for Thursday (rolled back)"])

        let raw = try rawStore(store)
        defer { raw.close() }
        let migration = try #require(try raw.history(after: 0).last)
        #expect(migration.author == "migration NotebookSchemaV2 (2.0.0) → NotebookSchemaV1 (1.0.0)")
        #expect(
            migration.migrations == [
                RecordMigration(
                    entity: "Note", renamedMembers: ["heading": "title"],
                    removedMembers: ["pinned", "tag"])
            ])
        for record in raw.records(of: "Note") {
            #expect(record.values["title"] != nil)
            #expect(record.values["heading"] == nil && record.values["pinned"] == nil && record.values["tag"] == nil)
        }
        let recorded = try recordedSchema(store)
        #expect(recorded.version == "1.0.0")
        #expect(recorded.checksum == Schema(versionedSchema: NotebookSchemaV1.self).checksum)
    }

    @Test func aStoreBroughtBackToV1MigratesUpAgain() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        try writeVersion2(store)
        _ = try open(store, NotebookSchemaV1.self, NotebookRollbackPlan.self)
        let context = try open(store, NotebookSchemaV2.self, NotebookPlan.self)
        let notes = try context.fetch(FetchDescriptor<NotebookSchemaV2.Note>(sortBy: [SortDescriptor(\.heading)]))
        #expect(notes.map(\.heading) == ["Friday", "★ Thursday"])
        #expect(notes.map(\.pinned) == [false, false])
    }

    @Test func aNewerStoreWithNoStageDownIsRefusedAndLeftForTheNewerModels() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        try writeVersion2(store)
        let before = try rawStore(store).lastSequence
        let error = #expect(throws: FolioError.self) { try open(store, NotebookSchemaV1.self, NotebookPlan.self) }
        #expect(error?.code == .schemaMismatch)
        let message = error?.message ?? ""
        #expect(message.contains("written by NotebookSchemaV2 (2.0.0), newer than the models that open it (NotebookSchemaV1 (1.0.0))"))
        #expect(message.contains("the migration plan NotebookPlan has no stage down from NotebookSchemaV2 (2.0.0)"))
        #expect(message.contains("A store file cannot be migrated backwards with staged migration"))
        #expect(try rawStore(store).lastSequence == before)
        let newer = try open(store, NotebookSchemaV2.self)
        #expect(try newer.fetch(FetchDescriptor<NotebookSchemaV2.Note>(predicate: #Predicate { $0.pinned })).map(\.tag) == ["work"])
    }
}
