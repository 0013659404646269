import SwiftData
import Testing

@Suite("Source that imports SwiftData")
struct SwiftDataSpellingTests {
    @Test func qualifiedSwiftDataNamesResolveToFolio() throws {
        let context = try hikeContext()
        #expect(context.container.schema.entities.map(\.name) == ["Hike"])
        let found = try context.fetch(SwiftData.FetchDescriptor<Hike>(sortBy: [SortDescriptor(\.price)]))
        #expect(found.first?.name == "Snowdon")
        #expect(found.count == 6)
    }

    @Test func nestedPredicatesFetchFromAStoreOnDisk() throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("folio-compatibility-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        _ = try hikeContext(ModelConfiguration(url: directory))

        let pricey = #Predicate<Hike> { $0.price >= 60 }
        let windyOrBusy = #Predicate<Hike> { $0.notes == "windy" || $0.notes == "busy" }
        let both = #Predicate<Hike> { pricey.evaluate($0) && windyOrBusy.evaluate($0) }
        let reopened = ModelContext(try ModelContainer(for: Hike.self, configurations: ModelConfiguration(url: directory)))
        let names = try reopened.fetch(FetchDescriptor(predicate: both, sortBy: [SortDescriptor(\.name)])).map(\.name)
        #expect(names == ["Ben Nevis", "Jungfrau"])
        #if !canImport(Darwin)
            #expect(try reopened.queryPlan(for: FetchDescriptor(predicate: both)).filtersRecords)  // inlined, see NestedPredicateTests
        #endif
    }
}
