import Foundation
import Testing
import Folio

@Suite("Sample app: container and configuration spellings")
struct AppSetupTests {
    /// Saves a note through `container` and reads it back through a new context.
    func roundTrip(_ container: ModelContainer) throws -> [String] {
        let context = ModelContext(container)
        context.insert(Note(title: "Groceries"))
        try context.save()
        return try ModelContext(container).fetch(FetchDescriptor<Note>()).map(\.title)
    }

    @Test func aSchemaWithAMigrationPlanAndAnArrayOfConfigurations() throws {
        let store = SampleStore()
        defer { store.cleanUp() }
        let schema = Schema(versionedSchema: NotesSchemaV1.self)
        let configuration = ModelConfiguration(schema: schema, url: store.url, cloudKitDatabase: .none)
        let container = try ModelContainer(for: schema, migrationPlan: NotesMigrationPlan.self, configurations: [configuration])
        #expect(container.migrationPlan == NotesMigrationPlan.self)
        #expect(try roundTrip(container) == ["Groceries"])
    }

    @Test func modelTypesWithAMigrationPlanAndVariadicConfigurations() throws {
        let store = SampleStore()
        defer { store.cleanUp() }
        let container = try ModelContainer(
            for: Note.self, migrationPlan: nil,
            configurations: ModelConfiguration(url: store.url, cloudKitDatabase: .automatic))
        #expect(container.migrationPlan == nil)
        #expect(try roundTrip(container) == ["Groceries"])
    }

    @Test func everyCloudKitDatabaseIsAcceptedAndTheStoreStaysLocal() throws {
        for database in [ModelConfiguration.CloudKitDatabase.none, .automatic, .private("iCloud.com.example.notes")] {
            let configuration = ModelConfiguration(
                schema: Schema([Note.self]), isStoredInMemoryOnly: true, allowsSave: true,
                cloudKitDatabase: database)
            #expect(configuration.cloudKitDatabase == database)
            #expect(try roundTrip(try ModelContainer(for: Note.self, configurations: configuration)) == ["Groceries"])
        }
        #expect(ModelConfiguration.CloudKitDatabase.private("iCloud.x").containerIdentifier == "iCloud.x")
        #expect(ModelConfiguration.CloudKitDatabase.none.isEnabled == false)
    }

    @Test func aGroupContainerPutsTheStoreInADirectoryNamedAfterTheGroup() {
        let shared = ModelConfiguration("Notes", groupContainer: .identifier("group.com.example.notes"))
        #expect(shared.url.deletingLastPathComponent().lastPathComponent == "group.com.example.notes")
        #expect(shared.url.lastPathComponent == "Notes.folio")
        let plain = ModelConfiguration("Notes", groupContainer: .none)
        #expect(plain.url.deletingLastPathComponent() == ModelConfiguration.defaultDirectory)
        #expect(ModelConfiguration("Notes", groupContainer: .automatic).url == plain.url)
    }

    @Test func twoDifferentConfigurationsAreRefusedNamingBoth() throws {
        let first = ModelConfiguration("Local", isStoredInMemoryOnly: true)
        let second = ModelConfiguration("Cloud", isStoredInMemoryOnly: true, cloudKitDatabase: .private("iCloud.x"))
        #expect {
            _ = try ModelContainer(for: Schema([Note.self]), configurations: [first, second])
        } throws: { error in
            guard let error = error as? FolioError else { return false }
            return error.code == .invalidSchema && error.message.contains("'Local', 'Cloud'")
                && error.message.contains("one ModelContainer per configuration")
        }
        // The same configuration given twice is one store.
        let store = SampleStore()
        defer { store.cleanUp() }
        let configuration = ModelConfiguration(url: store.url)
        #expect(try roundTrip(try ModelContainer(for: Note.self, configurations: configuration, configuration)) == ["Groceries"])
    }

    @Test func anIdentifierFromAnotherContainerFindsNothingEvenWhenItsNumberIsTaken() throws {
        let first = try ModelContainer(for: Note.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let second = try ModelContainer(for: Note.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let note = Note(title: "Mine")
        let firstContext = ModelContext(first)
        firstContext.insert(note)
        try firstContext.save()
        let secondContext = ModelContext(second)
        let other = Note(title: "Theirs")
        secondContext.insert(other)
        try secondContext.save()
        #expect(note.persistentModelID.recordNumber == other.persistentModelID.recordNumber, "both stores gave out the same number")
        #expect(secondContext.model(for: note.persistentModelID) as? Note == nil)
        let registered: Note? = secondContext.registeredModel(for: note.persistentModelID)
        #expect(registered == nil)
        #expect((ModelContext(first).model(for: note.persistentModelID) as? Note)?.title == "Mine")
    }
}
