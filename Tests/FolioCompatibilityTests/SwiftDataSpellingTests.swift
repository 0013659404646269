import SwiftData
import Testing

/// A model declared as in an app that imports Apple's SwiftData.
@Model
final class Refuge {
    var name: String
    var beds: Int

    init(name: String, beds: Int) {
        self.name = name
        self.beds = beds
    }
}

@Suite("Source that imports SwiftData")
struct SwiftDataSpellingTests {
    @Test func qualifiedSwiftDataNamesResolveToFolio() throws {
        let schema = SwiftData.Schema([Refuge.self, Hike.self])
        #expect(schema.entities.map(\.name).sorted() == ["Hike", "Refuge"])
        let configuration = SwiftData.ModelConfiguration(isStoredInMemoryOnly: true)
        let container = try SwiftData.ModelContainer(for: schema, configurations: [configuration])
        let context = SwiftData.ModelContext(container)
        let refuge: any SwiftData.PersistentModel = Refuge(name: "Gnifetti", beds: 176)
        context.insert(refuge)
        try context.save()
        let found = try context.fetch(SwiftData.FetchDescriptor<Refuge>())
        #expect(found.map(\.name) == ["Gnifetti"])
    }

    @Test func nestedPredicatesFetchFromAStoreOnDisk() throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("folio-compatibility-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        do {
            let context = ModelContext(try ModelContainer(for: Refuge.self, configurations: ModelConfiguration(url: directory)))
            for (name, beds) in [("Gnifetti", 176), ("Hörnli", 130), ("Mönch", 120), ("Bivouac", 8)] {
                context.insert(Refuge(name: name, beds: beds))
            }
            try context.save()
        }

        let large = #Predicate<Refuge> { $0.beds >= 100 }
        let umlaut = #Predicate<Refuge> { $0.name.contains("ö") }
        let both = #Predicate<Refuge> { large.evaluate($0) && umlaut.evaluate($0) }
        let reopened = ModelContext(try ModelContainer(for: Refuge.self, configurations: ModelConfiguration(url: directory)))
        let names = try reopened.fetch(FetchDescriptor(predicate: both, sortBy: [SortDescriptor(\.name)])).map(\.name)
        #expect(names == ["Hörnli", "Mönch"])
        #expect(try reopened.queryPlan(for: FetchDescriptor(predicate: both)).filtersRecords)
    }
}
