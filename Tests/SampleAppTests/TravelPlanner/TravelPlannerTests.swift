import Foundation
import Testing
import Folio

@Suite("Sample app: travel planner (tutorial and template shapes)")
struct TravelPlannerTests {
    static var types: [any PersistentModel.Type] { [Destination.self, Sight.self, Item.self] }

    /// The search the tutorial's list view runs: everything for an empty search, else a match.
    static func search(_ searchString: String, in context: ModelContext) throws -> [Destination] {
        let descriptor = FetchDescriptor<Destination>(
            predicate: #Predicate { searchString.isEmpty ? true : $0.name.localizedStandardContains(searchString) },
            sortBy: [SortDescriptor(\Destination.priority, order: .reverse), SortDescriptor(\Destination.name)])
        return try context.fetch(descriptor)
    }

    @Test func theTutorialsModelsSaveSearchAndCascadeAfterReopening() throws {
        let store = SampleStore()
        defer { store.cleanUp() }
        do {
            let container = try ModelContainer(for: Schema(Self.types), configurations: [ModelConfiguration(url: store.url)])
            let context = ModelContext(container)
            let rome = Destination(name: "Rome", details: "Pasta", priority: 3)
            let paris = Destination(name: "Paris", priority: 1)
            rome.sights.append(Sight(name: "Colosseum"))
            rome.sights.append(Sight(name: "Pantheon"))
            rome.status = .booked
            rome.photo = Data([1, 2, 3])
            context.insert(rome)
            context.insert(paris)
            try context.save()
        }
        let container = try ModelContainer(for: Schema(Self.types), configurations: [ModelConfiguration(url: store.url)])
        let context = ModelContext(container)
        #expect(try Self.search("", in: context).map(\.name) == ["Rome", "Paris"])
        #expect(try Self.search("om", in: context).map(\.name) == ["Rome"])
        let rome = try #require(try Self.search("Rome", in: context).first)
        #expect(rome.sights.map(\.name).sorted() == ["Colosseum", "Pantheon"])
        #expect(rome.status == .booked)
        #expect(rome.photo == Data([1, 2, 3]))
        // As in SwiftData, an enum case is captured first: `#Predicate` reads `TripStatus.booked` as a key path.
        let bookedStatus = TripStatus.booked
        let booked = try context.fetch(FetchDescriptor<Destination>(predicate: #Predicate { $0.status == bookedStatus }))
        #expect(booked.map(\.name) == ["Rome"])
        let now = Date.now
        #expect(try context.fetchCount(FetchDescriptor<Destination>(predicate: #Predicate { $0.date < now })) == 2)
        context.delete(rome)
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<Sight>()) == 0, "the cascade deleted the sights")
    }

    @Test func theTemplatesItemIsUniqueByItsIdentifier() throws {
        let container = try ModelContainer(for: Item.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        let item = Item(timestamp: Date(timeIntervalSinceReferenceDate: 10))
        context.insert(item)
        try context.save()
        let again = Item(timestamp: Date(timeIntervalSinceReferenceDate: 20))
        again.id = item.id
        context.insert(again)
        try context.save()
        let items = try context.fetch(FetchDescriptor<Item>(sortBy: [SortDescriptor(\.timestamp)]))
        #expect(items.count == 1)
        #expect(items.first?.timestamp == Date(timeIntervalSinceReferenceDate: 20))
        try context.delete(model: Item.self)
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<Item>()) == 0)
    }
}
