import Foundation
import Testing
@testable import Folio

@Model
final class Photo {
    var caption: String
    @Attribute(.externalStorage) var bytes: Data
    init(caption: String, bytes: Data) {
        self.caption = caption
        self.bytes = bytes
    }
}

@Model
final class Note {
    var text: String
    init(text: String) { self.text = text }
}

@Suite("Container behaviour")
struct ContainerBehaviourTests {
    @Test func externalStorageKeepsBytesInABlobBesideTheStore() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let bytes = Data((0..<4096).map { UInt8($0 % 251) })
        do {
            let context = ModelContext(try store.container(Photo.self))
            context.insert(Photo(caption: "sunset", bytes: bytes))
            try context.save()
        }
        let journal = try String(contentsOf: store.url.appendingPathComponent("journal.jsonl"), encoding: .utf8)
        #expect(journal.contains("$blob"))
        #expect(!journal.contains(bytes.base64EncodedString()))
        let context = ModelContext(try store.container(Photo.self))
        #expect(try context.fetch(FetchDescriptor<Photo>()).first?.bytes == bytes)
    }

    @Test func aStoreWhoseRecordsDoNotMatchTheSchemaIsRefusedNamingEntityAndProperty() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        do {
            let context = ModelContext(try store.container(Trip.self))
            context.insert(Trip(name: "a", destination: "b", startDate: .now, price: 1))
            try context.save()
        }
        #expect {
            _ = try ModelContainer(for: Note.self, configurations: ModelConfiguration(url: store.url))
        } throws: { error in
            guard let error = error as? FolioError else { return false }
            return error.code == .schemaMismatch && "\(error)".contains("Trip")
        }
    }

    @Test func deletingWithoutSubclassesKeepsSubclassInstances() throws {
        let container = try ModelContainer(for: Schema(recipeTypes), configurations: [ModelConfiguration(isStoredInMemoryOnly: true)])
        let context = ModelContext(container)
        context.insert(Recipe(name: "Soup"))
        context.insert(BakedGood(name: "Bread", ovenTemperature: 200))
        try context.save()
        try context.delete(model: Recipe.self, includeSubclasses: false)
        try context.save()
        #expect(try context.fetch(FetchDescriptor<Recipe>()).map(\.name) == ["Bread"])
        try context.delete(model: Recipe.self)
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<Recipe>()) == 0)
    }

    @Test func transactionRunsTheBlockThenSaves() throws {
        let container = try ModelContainer(for: Note.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        try context.transaction {
            context.insert(Note(text: "one"))
            context.insert(Note(text: "two"))
        }
        #expect(context.hasChanges == false)
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Note>()) == 2)
    }

    @Test func aReadOnlyConfigurationRefusesToSave() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        _ = try store.container(Note.self)
        let container = try ModelContainer(for: Note.self, configurations: ModelConfiguration(url: store.url, allowsSave: false))
        let context = ModelContext(container)
        context.insert(Note(text: "x"))
        #expect {
            try context.save()
        } throws: { error in
            (error as? FolioError)?.code == .saveNotAllowed
        }
    }

    @Test func deleteAllDataEmptiesTheStore() throws {
        let container = try ModelContainer(for: Note.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        context.insert(Note(text: "x"))
        try context.save()
        container.deleteAllData()
        #expect(try context.fetchCount(FetchDescriptor<Note>()) == 0)
    }

    @MainActor
    @Test func theMainContextSavesByItself() async throws {
        let container = try ModelContainer(for: Note.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        #expect(container.mainContext.autosaveEnabled)
        #expect(ModelContext(container).autosaveEnabled == false)
        container.mainContext.insert(Note(text: "autosaved"))
        // However long a busy machine takes to run the autosave (up to two minutes).
        for _ in 0..<12_000 where container.mainContext.hasChanges {
            try await Task.sleep(nanoseconds: 10_000_000)
        }
        #expect(container.mainContext.hasChanges == false)
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Note>()) == 1)
    }

    @Test func anInvalidSchemaIsRefusedWithTheProblem() throws {
        #expect {
            _ = try ModelContainer(for: Unstorable.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        } throws: { error in
            guard let error = error as? FolioError else { return false }
            return error.code == .invalidSchema && error.message.contains("Unstorable.handle")
        }
    }
}

final class Handle {}

@Model
final class Unstorable {
    var handle: Handle
    init(handle: Handle) { self.handle = handle }
}

enum RenameV1 {
    @Model
    final class Label {
        var name: String
        init(name: String) { self.name = name }
    }
}

enum RenameV2 {
    @Model
    final class Label {
        @Attribute(originalName: "name") var title: String
        init(title: String) { self.title = title }
    }
}

@Suite("Renamed properties")
struct RenamedPropertyTests {
    @Test func aPropertyRenamedWithOriginalNameReadsItsOldValues() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        do {
            let context = ModelContext(try store.container(RenameV1.Label.self))
            context.insert(RenameV1.Label(name: "kept"))
            try context.save()
        }
        let context = ModelContext(try store.container(RenameV2.Label.self))
        #expect(try context.fetch(FetchDescriptor<RenameV2.Label>()).map(\.title) == ["kept"])
    }
}

@Model
final class Team {
    var name: String
    @Attribute(.ephemeral) var draftNote: String = ""
    @Relationship(minimumModelCount: 1, maximumModelCount: 2, inverse: \Player.team) var players: [Player] = []
    init(name: String) { self.name = name }
}

@Model
final class Player {
    var name: String
    var team: Team?
    init(name: String) { self.name = name }
}

@Suite("Attribute and relationship options")
struct OptionTests {
    @Test func ephemeralAttributesAreTrackedButNotStored() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        do {
            let context = ModelContext(try store.container(Team.self, Player.self))
            let team = Team(name: "Reds")
            context.insert(team)
            team.players = [Player(name: "Ann")]
            team.draftNote = "secret"
            try context.save()
            team.draftNote = "changed"
            #expect(context.hasChanges)
            try context.save()
        }
        let journal = try String(contentsOf: store.url.appendingPathComponent("journal.jsonl"), encoding: .utf8)
        #expect(!journal.contains("secret") && !journal.contains("\"changed\""))
        let context = ModelContext(try store.container(Team.self, Player.self))
        #expect(try context.fetch(FetchDescriptor<Team>()).first?.draftNote == "")
    }

    @Test func relationshipCountsOutsideTheirBoundsRefuseTheSave() throws {
        let container = try ModelContainer(for: Team.self, Player.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        let team = Team(name: "Blues")
        context.insert(team)
        #expect { try context.save() } throws: { error in
            (error as? FolioError)?.message.contains("minimumModelCount of 1") == true
        }
        team.players = [Player(name: "a"), Player(name: "b"), Player(name: "c")]
        #expect { try context.save() } throws: { error in
            (error as? FolioError)?.message.contains("maximumModelCount of 2") == true
        }
        team.players.removeLast()
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<Player>()) >= 2)
    }
}
