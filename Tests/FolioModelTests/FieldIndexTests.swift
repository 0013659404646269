import Foundation
import Testing
import FolioStorage
@testable import Folio

@Suite("Field index")
struct FieldIndexTests {
    @Test func keysMoveBetweenOneAndManyIdentifiersAndTheSortedOrderFollows() {
        let index = FieldIndex(field: "city", conversion: .plain, isUnique: false, isDeclared: true)
        func values(_ city: String) -> RecordValues { ["city": .string(city)] }
        index.insert(1, values("Rome"))
        index.insert(2, values("Rome"))
        index.insert(3, values("Lima"))
        #expect(Array(index.lookup(.string("Rome"))) == [1, 2])
        #expect(index.sortedEntries().map(\.id) == [3, 1, 2])

        index.remove(1, values("Rome"))
        #expect(Array(index.lookup(.string("Rome"))) == [2])
        index.insert(1, values("Rome"))  // back to two
        index.remove(2, values("Rome"))
        index.remove(1, values("Rome"))
        #expect(index.lookup(.string("Rome")).isEmpty)
        #expect(index.sortedEntries().map(\.id) == [3])

        index.remove(99, values("Lima"))  // not there: nothing changes
        #expect(Array(index.lookup(.string("Lima"))) == [3])
        index.insert(4, [:])               // no value: indexed under nil, which sorts first
        #expect(Array(index.lookup(.null)) == [4])
        #expect(index.sortedEntries().map(\.id) == [4, 3])
    }
}

@Suite("Record layouts")
struct RecordLayoutTests {
    @Test func beyondTheInterningTableLayoutsStillCompareAndReadByName() {
        // More distinct property sets than the table keeps: the later ones are not shared, and must still work.
        var records: [RecordValues] = []
        for index in 0..<5000 {
            records.append(["shared": .int(Int64(index)), "p\(index)": .bool(true)])
        }
        let last = records[4999]
        let again: RecordValues = ["p4999": .bool(true), "shared": .int(4999)]
        #expect(last == again)
        #expect(last.hashValue == again.hashValue)
        #expect(last["p4999"] == .bool(true))
        #expect(last["shared"] == .int(4999))
        #expect(last.merging(["extra": .null]).keys == ["extra", "p4999", "shared"])
        #expect(records[0] != records[1])
    }
}

@Suite("Index sizing when a store opens")
struct IndexSizingTests {
    /// 10,000 trips in 20 destinations. The first 5,000 each start on a different date; the rest repeat
    /// those dates, so the date index ends with 5,000 keys although its first records were all distinct.
    private func storeWithTrips(_ store: TemporaryStore) throws {
        let context = ModelContext(try store.container(Trip.self))
        for number in 0..<10_000 {
            context.insert(Trip(name: "trip \(number)", destination: "City\(number % 20)",
                                startDate: Date(timeIntervalSince1970: 1_700_000_000 + Double(number % 5_000) * 60), price: 1))
        }
        try context.save()
    }

    @Test func aNearlyUniqueIndexIsSizedFromItsFirstRecordsForTheWholeEntityAndAFewValuedOneGrows() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        try storeWithTrips(store)

        let container = try store.container(Trip.self)
        try container.loadRecords()
        let index = try container.index
        let byDate = try #require(index.fieldIndex("Trip", "startDate"))
        let byCity = try #require(index.fieldIndex("Trip", "destination"))
        // Its first 4,096 records had 4,096 dates: sized for 10,000 keys at once, where growing to hold
        // its 5,000 keys would have stopped below that.
        #expect(byDate.keyCount == 5_000)
        #expect(byDate.keyCapacity >= 10_000)
        #expect(byCity.keyCount == 20)
        #expect(byCity.keyCapacity < 1_000)

        // The sized indexes answer queries as before.
        let context = ModelContext(container)
        let day = Date(timeIntervalSince1970: 1_700_000_000 + 4_999 * 60)
        let trips = try context.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.startDate == day },
                                                            sortBy: [SortDescriptor(\.name)]))
        #expect(trips.map(\.name) == ["trip 4999", "trip 9999"])
        #expect(try context.fetchCount(FetchDescriptor<Trip>(predicate: #Predicate { $0.destination == "City7" })) == 500)
    }

    @Test func aFieldIndexIsSizedFromItsSampleOnlyWhenAtLeastHalfTheSampledRecordsHadTheirOwnKey() {
        let halfDistinct = FieldIndex(field: "day", conversion: .plain, isUnique: false, isDeclared: true)
        let fewValued = FieldIndex(field: "city", conversion: .plain, isUnique: false, isDeclared: true)
        for id in 0..<Int64(100) {
            halfDistinct.insert(id, ["day": .int(id / 2)])  // 50 keys in 100 records
            fewValued.insert(id, ["city": .int(id % 49)])   // 49 keys: fewer than half
        }
        halfDistinct.reserveCapacity(forRecords: 100_000, afterSampling: 100)
        fewValued.reserveCapacity(forRecords: 100_000, afterSampling: 100)
        #expect(halfDistinct.keyCapacity >= 50_000)
        #expect(fewValued.keyCapacity < 1_000)
        #expect(Array(halfDistinct.lookup(.int(49))) == [98, 99])
    }

    /// A fetch without a predicate starts from the identifiers of the entities it covers, taken from
    /// their identifier lists without reading the records: in increasing order across a family whose
    /// entities' records interleave, and without the deleted ones, also in lists long enough to mark
    /// removals instead of shifting.
    @Test func theIdentifiersOfAFamilyAreItsRecordsInIncreasingOrderWithoutTheDeletedOnes() throws {
        let container = try ModelContainer(for: Recipe.self, BakedGood.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        let models: [Recipe] = (0..<1_200).map { n in
            n % 2 == 0 ? Recipe(name: "recipe \(n)") : BakedGood(name: "bread \(n)", ovenTemperature: 200)
        }
        for model in models { context.insert(model) }
        try context.save()
        for (n, model) in models.enumerated() where n % 3 == 0 { context.delete(model) }
        try context.save()

        let index = try container.index
        let kept = models.enumerated().filter { $0.offset % 3 != 0 }.map { $0.element }
        let expected = try kept.map { try #require($0.persistentBackingData.storedRecordNumber) }.sorted()
        #expect(expected.count == 800)
        #expect(index.identifiers(of: ["Recipe", "BakedGood"]) == expected)
        let baked = kept.filter { $0 is BakedGood }.compactMap { $0.persistentBackingData.storedRecordNumber }
        #expect(baked.count == 400)
        #expect(index.identifiers(of: ["BakedGood"]) == baked.sorted())
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Recipe>()) == 800)
    }
}
