import Foundation
import Testing
import Folio

@Suite("Sample app: background import through a model actor")
struct BackgroundImportTests {
    static func entries(_ range: Range<Int>) -> [QuakeEntry] {
        range.map {
            QuakeEntry(
                code: "q\($0)", magnitude: Double($0 % 60) / 10, place: "Place \($0)",
                time: Date(timeIntervalSinceReferenceDate: Double($0) * 60))
        }
    }

    @Test func anImporterActorSavesAndItsIdentifiersFindTheModelsInAnotherContext() async throws {
        let store = SampleStore()
        defer { store.cleanUp() }
        let container = try ModelContainer(for: Quake.self, configurations: ModelConfiguration(url: store.url))
        let importer = QuakeImporter(modelContainer: container)
        let identifiers = try await importer.importEntries(Self.entries(0..<500))
        #expect(identifiers.count == 500)
        #expect(identifiers.allSatisfy { !$0.isTemporary })
        // Identifiers cross to another context, here on no actor at all.
        let context = ModelContext(container)
        let first = try #require(context.model(for: identifiers[0]) as? Quake)
        #expect(first.code == "q0")
        #expect(await importer.magnitude(of: identifiers[59]) == 5.9)
        #expect(try await importer.strongestPlace() == "Place 59")
        // And after reopening the store.
        let reopened = ModelContext(try ModelContainer(for: Quake.self, configurations: ModelConfiguration(url: store.url)))
        #expect(try reopened.fetchCount(FetchDescriptor<Quake>()) == 500)
        #expect((reopened.model(for: identifiers[42]) as? Quake)?.place == "Place 42")
    }

    @Test func importingAKnownCodeAgainUpdatesItsQuake() async throws {
        let container = try ModelContainer(for: Quake.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let importer = QuakeImporter(modelContainer: container)
        let firstRun = try await importer.importEntries(Self.entries(0..<10))
        var corrected = Self.entries(3..<4)
        corrected[0].magnitude = 7.5
        let secondRun = try await importer.importEntries(corrected)
        #expect(secondRun == [firstRun[3]], "the upsert keeps the record's identity")
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Quake>()) == 10)
        #expect(try await importer.strongestPlace() == "Place 3")
    }

    @Test func severalImportersSaveIntoOneContainerAtOnce() async throws {
        let container = try ModelContainer(for: Quake.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        try await withThrowingTaskGroup(of: Int.self) { group in
            for batch in 0..<4 {
                group.addTask {
                    try await QuakeImporter(modelContainer: container).importEntries(Self.entries(batch * 100..<(batch + 1) * 100)).count
                }
            }
            var total = 0
            for try await count in group { total += count }
            #expect(total == 400)
        }
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Quake>()) == 400)
    }

    @Test func aModelActorWithItsOwnInitializerWorks() async throws {
        let container = try ModelContainer(for: Quake.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        _ = try await QuakeImporter(modelContainer: container).importEntries(Self.entries(0..<60))
        let pruner = QuakePruner(container: container, threshold: 3.0)
        #expect(try await pruner.prune() == 30)
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Quake>()) == 30)
    }
}
