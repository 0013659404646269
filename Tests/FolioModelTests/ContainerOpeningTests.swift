import Foundation
import Testing
import FolioStorage
@testable import Folio

/// A container opened on a store written with the same schema reads the records when a fetch or save
/// first needs them; counting every model of a type does not need them.
@Suite("Opening a container reads records on first use")
struct ContainerOpeningTests {
    /// A compacted store of `trips` trips, `baked` baked goods and `beverages` beverages.
    private func makeStore(_ store: TemporaryStore, trips: Int = 30, baked: Int = 4, beverages: Int = 3) throws {
        let container = try ModelContainer(for: Schema([Trip.self] + recipeTypes), configurations: [ModelConfiguration(url: store.url)])
        let context = ModelContext(container)
        for k in 0..<trips {
            context.insert(Trip(name: "trip \(k)", destination: "City\(k % 5)", startDate: Date(timeIntervalSince1970: Double(k)), price: Double(k)))
        }
        for k in 0..<baked { context.insert(BakedGood(name: "bread \(k)", ovenTemperature: 200 + k)) }
        for k in 0..<beverages { context.insert(Beverage(name: "tea \(k)", caffeine: Double(k))) }
        context.insert(Recipe(name: "plain"))
        try context.save()
        try container.compact()
    }

    private func open(_ store: TemporaryStore) throws -> ModelContainer {
        try ModelContainer(for: Schema([Trip.self] + recipeTypes), configurations: [ModelConfiguration(url: store.url)])
    }

    @Test func countingEveryModelOfATypeDoesNotReadTheRecords() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        try makeStore(store)
        let container = try open(store)
        let context = ModelContext(container)
        #expect(try context.fetchCount(FetchDescriptor<Trip>()) == 30)
        // Subclasses are counted with their parent, as a fetch of the parent returns them.
        #expect(try context.fetchCount(FetchDescriptor<Recipe>()) == 8)
        #expect(try context.fetchCount(FetchDescriptor<BakedGood>()) == 4)
        var windowed = FetchDescriptor<Trip>()
        windowed.fetchOffset = 25
        windowed.fetchLimit = 10
        #expect(try context.fetchCount(windowed) == 5)
        windowed.fetchLimit = 2
        #expect(try context.fetchCount(windowed) == 2)
        #expect(!container.isIndexLoaded)
        #expect(!container.store.hasLoadedRecords)

        // A count with a predicate needs the records, and agrees.
        #expect(try context.fetchCount(FetchDescriptor<Trip>(predicate: #Predicate { $0.price >= 0 })) == 30)
        #expect(container.isIndexLoaded)
        #expect(try context.fetchCount(windowed) == 2)
    }

    @Test func theFirstFetchOrSaveReadsTheRecords() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        try makeStore(store)

        let fetching = try open(store)
        let trips = try ModelContext(fetching).fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.price)]))
        #expect(trips.count == 30)
        #expect(trips.first?.name == "trip 0")

        let saving = try open(store)
        let context = ModelContext(saving)
        context.insert(Trip(name: "one more", destination: "City9", startDate: Date(), price: 1))
        try context.save()
        #expect(saving.isIndexLoaded)
        #expect(try ModelContext(saving).fetchCount(FetchDescriptor<Trip>()) == 31)
        #expect(try ModelContext(try open(store)).fetchCount(FetchDescriptor<Trip>()) == 31)
    }

    @Test func unsavedChangesAreCountedAsBefore() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        try makeStore(store)
        let container = try open(store)
        let context = ModelContext(container)
        context.insert(Trip(name: "pending", destination: "City1", startDate: Date(), price: 3))
        #expect(try context.fetchCount(FetchDescriptor<Trip>()) == 31)
        var withoutPending = FetchDescriptor<Trip>()
        withoutPending.includePendingChanges = false
        #expect(try context.fetchCount(withoutPending) == 30)
    }

    @Test func countsFollowSavesFromAnotherContainerWithoutReadingRecords() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        try makeStore(store)
        let counting = try open(store)
        #expect(try ModelContext(counting).fetchCount(FetchDescriptor<Trip>()) == 30)
        let writer = ModelContext(try open(store))
        for k in 0..<4 { writer.insert(Trip(name: "more \(k)", destination: "City2", startDate: Date(), price: 2)) }
        try writer.save()
        #expect(try ModelContext(counting).fetchCount(FetchDescriptor<Trip>()) == 34)
        #expect(!counting.isIndexLoaded)
    }

    @Test func loadRecordsReadsThemNowAndAStoreWrittenWithAnotherSchemaIsReadAtOpen() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        try makeStore(store)
        let container = try open(store)
        #expect(!container.isIndexLoaded)
        try container.loadRecords()
        #expect(container.isIndexLoaded)

        // Trips alone: another schema than the one the store recorded, so the records are checked now.
        let other = try ModelContainer(
            for: Trip.self, Recipe.self, BakedGood.self, Beverage.self, Ingredient.self, Cookbook.self, Specimen.self,
            configurations: ModelConfiguration(url: store.url))
        #expect(other.isIndexLoaded)
    }

    @Test func damageFoundWhenTheRecordsAreReadFailsThatFetchAndEveryLaterOne() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        try makeStore(store)
        let snapshot = store.url.appendingPathComponent("snapshots/Trip.jsonl")
        var bytes = [UInt8](try Data(contentsOf: snapshot))
        let secondLine = try #require(bytes.firstIndex(of: 0x0A)) + 1
        bytes[secondLine + 40] = bytes[secondLine + 40] == UInt8(ascii: "x") ? UInt8(ascii: "y") : UInt8(ascii: "x")
        try Data(bytes).write(to: snapshot)

        let container = try open(store)
        let context = ModelContext(container)
        #expect(try context.fetchCount(FetchDescriptor<Trip>()) == 30)
        for _ in 0..<2 {
            do {
                _ = try context.fetch(FetchDescriptor<Trip>())
                Issue.record("a fetch over a damaged snapshot must throw")
            } catch let error as FolioError {
                #expect(error.code == .storage)
                #expect("\(error)".contains("Trip.jsonl"))
            }
        }
        context.insert(Trip(name: "not saved", destination: "City1", startDate: Date(), price: 1))
        #expect(throws: FolioError.self) { try context.save() }
        #expect([UInt8](try Data(contentsOf: snapshot)) == bytes)
    }

    @Test func aggregatesHistoryAndIdentifiersWorkOnAContainerThatHasNotReadItsRecords() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        try makeStore(store)
        let identifier = try #require(
            try ModelContext(try open(store)).fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.price)])).last?.persistentModelID)

        let grouped = ModelContext(try open(store))
        let counts = try grouped.count(Trip.self, groupedBy: \.destination)
        #expect(counts.count == 5 && counts.values.reduce(0, +) == 30)

        let summing = ModelContext(try open(store))
        #expect(try summing.sum(\Trip.price) == Double((0..<30).reduce(0, +)))

        let history = ModelContext(try open(store))
        #expect(try history.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).count >= 1)

        let looking = ModelContext(try open(store))
        let trip = looking.model(for: identifier) as? Trip
        #expect(trip?.name == "trip 29")
    }

    @MainActor
    @Test func anObserverOnAContainerThatHasNotReadItsRecordsSeesThemAndFollowsOtherContainers() async throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        try makeStore(store)
        let container = try open(store)
        #expect(!container.isIndexLoaded)
        let observer = try ResultsObserver<Trip, Never>(sortBy: [SortDescriptor(\.price)], modelContainer: container)
        #expect(observer.results.count == 30)
        let writer = ModelContext(try open(store))
        writer.insert(Trip(name: "late", destination: "City3", startDate: Date(), price: 100))
        try writer.save()
        #expect(await eventually { observer.results.last?.name == "late" })
    }
}
