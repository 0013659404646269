import Foundation
import Testing
import FolioStorage
@testable import Folio

/// Records for a ``FieldIndex`` made outside a ``RecordIndex``: it keeps their values where the index
/// reads keys back, and changes them in the order the record index does.
final class IndexedRecords {
    private(set) var values: [Int64: RecordValues] = [:]
    private(set) var index: FieldIndex!

    /// A declared index by default, which keeps a hash table only when `isUnique`.
    init(field: String, isUnique: Bool = false, isDeclared: Bool = true, hashing: KeyHash.Hashing = .standard) {
        index = FieldIndex(field: field, conversion: .plain, isUnique: isUnique, isDeclared: isDeclared, hashing: hashing) { [unowned self] id in
            self.values[id]
        }
    }

    func insert(_ id: Int64, _ recordValues: RecordValues) {
        values[id] = recordValues
        index.insert(id, recordValues)
    }

    func update(_ id: Int64, _ recordValues: RecordValues) {
        if let old = values[id] { index.remove(id, old) }
        insert(id, recordValues)
    }

    func remove(_ id: Int64) {
        guard let old = values.removeValue(forKey: id) else { return }
        index.remove(id, old)
    }
}

/// The kinds of field index: with its hash table (as for a unique field or one indexed only for a
/// `#Unique`), the same with hashes of a few bits (most keys then share a slot), and a declared
/// `#Index` on a field that is not unique, which keeps only its sorted pairs.
enum FieldIndexKind: CaseIterable, Sendable {
    case table, tableWithTwoBitHashes, sortedOnly

    func records(field: String) -> IndexedRecords {
        switch self {
        case .table: IndexedRecords(field: field, isDeclared: false)
        case .tableWithTwoBitHashes: IndexedRecords(field: field, isDeclared: false, hashing: .keepingLowBits(2))
        case .sortedOnly: IndexedRecords(field: field)
        }
    }
}

@Suite("Field index")
struct FieldIndexTests {
    @Test(arguments: FieldIndexKind.allCases)
    func keysMoveBetweenOneAndManyIdentifiersAndTheSortedOrderFollows(kind: FieldIndexKind) {
        let records = kind.records(field: "city")
        let index = records.index!
        #expect(index.keepsTable == (kind != .sortedOnly))
        func values(_ city: String) -> RecordValues { ["city": .string(city)] }
        records.insert(1, values("Rome"))
        records.insert(2, values("Rome"))
        records.insert(3, values("Lima"))
        #expect(Array(index.lookup(.string("Rome"))) == [1, 2])
        #expect(index.sortedEntries().map(\.id) == [3, 1, 2])

        records.remove(1)
        #expect(Array(index.lookup(.string("Rome"))) == [2])
        records.insert(1, values("Rome"))  // back to two
        records.remove(2)
        records.remove(1)
        #expect(index.lookup(.string("Rome")).isEmpty)
        #expect(index.sortedEntries().map(\.id) == [3])

        index.remove(99, values("Lima"))  // not there: nothing changes
        #expect(Array(index.lookup(.string("Lima"))) == [3])
        records.insert(4, [:])  // no value: indexed under nil, which sorts first
        #expect(Array(index.lookup(.null)) == [4])
        #expect(index.sortedEntries().map(\.id) == [4, 3])
        #expect(index.keyCount == 2)
    }

    /// A key of one record is not kept in the table but read back from the record; a lookup of another
    /// key with the same hash must not find it.
    @Test func aKeyOfOneRecordIsComparedWithItsRecordsValueNotOnlyByHash() {
        let records = IndexedRecords(field: "code", isUnique: true)
        let index = records.index!
        for id in 1...1_000 { records.insert(Int64(id), ["code": .string("code \(id)")]) }
        #expect(Array(index.lookup(.string("code 500"))) == [500])
        #expect(index.lookup(.string("code 1001")).isEmpty)
        // Integers and doubles that are equal are one key, as in the record index's comparisons.
        records.insert(2_000, ["code": .int(7)])
        #expect(Array(index.lookup(.double(7))) == [2_000])
        // A record whose value changes is found under its new key only.
        records.update(500, ["code": .string("renamed")])
        #expect(index.lookup(.string("code 500")).isEmpty)
        #expect(Array(index.lookup(.string("renamed"))) == [500])
        #expect(index.keyCount == 1_001)
        #expect(index.sortedEntries().count == 1_001)
    }

    /// Different keys whose hashes are the same share a slot as a group that keeps each key: each is
    /// found under its own key only, as they come and go, and a key left alone with one record goes
    /// back to the slot, where it is read back from its record again.
    @Test func differentKeysWithTheSameHashAreKeptApartAsTheyComeAndGo() {
        let records = IndexedRecords(field: "code", isDeclared: false, hashing: .keepingLowBits(0))  // every key hashes to 0
        let index = records.index!
        records.insert(1, ["code": .string("a")])
        #expect(Array(index.lookup(.string("a"))) == [1])
        #expect(index.lookup(.string("b")).isEmpty)  // same hash, another key: compared with record 1's value
        records.insert(2, ["code": .string("b")])
        records.insert(3, ["code": .string("b")])
        records.insert(4, ["code": .int(3)])
        records.insert(5, ["code": .double(3)])  // equal to 3: one key with record 4
        #expect(Array(index.lookup(.string("a"))) == [1])
        #expect(Array(index.lookup(.string("b"))) == [2, 3])
        #expect(Array(index.lookup(.int(3))) == [4, 5])
        #expect(index.keyCount == 3)
        #expect(index.sortedEntries().map(\.id) == [4, 5, 1, 2, 3])

        records.remove(1)
        records.remove(2)
        records.remove(4)
        #expect(index.lookup(.string("a")).isEmpty)
        #expect(Array(index.lookup(.string("b"))) == [3])
        #expect(Array(index.lookup(.double(3))) == [5])
        records.remove(5)  // one key of one record left: back on its own
        #expect(Array(index.lookup(.string("b"))) == [3])
        #expect(index.lookup(.string("c")).isEmpty)
        records.update(3, ["code": .string("c")])
        #expect(Array(index.lookup(.string("c"))) == [3])
        #expect(index.lookup(.string("b")).isEmpty)
        #expect(index.keyCount == 1)
        #expect(index.keyCounts().map(\.id) == [3])
    }

    /// While a store loads, a declared index keeps each key it worked out and sorts those pairs for its
    /// sorted entries; with a table (a unique field), a removal before they are sorted makes it read the
    /// keys back from the records instead, and without one the removal is applied to the gathered pairs.
    /// Every way gives the pairs in key order, records of one key in increasing order.
    @Test(arguments: [false, true], [false, true])
    func theSortedEntriesOfALoadAreTheSameWhetherTheKeysWereKeptOrReadBack(removingOne: Bool, withTable: Bool) {
        let records = IndexedRecords(field: "day", isUnique: withTable)
        let index = records.index!
        var generator = SplitMix64(state: 7)
        let ids = (1...2_000).map(Int64.init).shuffled(using: &generator)
        index.beginLoading(expectedRecords: ids.count)
        var expected: [(Int64, Int64)] = []
        for id in ids {
            let day = Int64(generator.next() % 1_500)  // some days twice or more
            records.insert(id, ["day": .int(day)])
            expected.append((day, id))
        }
        if removingOne {
            records.remove(ids[0])
            expected.removeAll { $0.1 == ids[0] }
        }
        expected.sort { $0.0 < $1.0 || ($0.0 == $1.0 && $0.1 < $1.1) }
        let entries = index.sortedEntries()
        #expect(entries.map(\.id) == expected.map(\.1))
        #expect(entries.map(\.key) == expected.map { QueryKey.int($0.0) })
        // After the load the index sorts from its table again, with the same result.
        records.update(ids[1], ["day": .int(-1)])
        #expect(index.sortedEntries().first?.id == ids[1])
        #expect(index.sortedEntries().count == expected.count)
    }

    /// Many changes in random order against a plain table, for each kind of index: every key's records,
    /// the key count, the counts per key and the sorted entries agree every few steps.
    @Test(arguments: FieldIndexKind.allCases)
    func randomInsertsUpdatesAndRemovalsAgreeWithAPlainTable(kind: FieldIndexKind) {
        var generator = SplitMix64(state: 42)
        let records = kind.records(field: "k")
        let index = records.index!
        var table: [Int64: Int] = [:]
        for step in 0..<4_000 {
            let id = Int64(generator.next() % 300) + 1
            let key = Int(generator.next() % 40)
            if generator.next() % 3 == 0 {
                records.remove(id)
                table[id] = nil
            } else {
                records.update(id, ["k": .int(Int64(key))])
                table[id] = key
            }
            guard step % 97 == 0 || step == 3_999 else { continue }
            var expected: [Int: [Int64]] = [:]
            for (id, key) in table { expected[key, default: []].append(id) }
            for key in 0..<40 {
                #expect(Array(index.lookup(.int(Int64(key)))) == (expected[key] ?? []).sorted(), "key \(key) at step \(step)")
            }
            #expect(index.keyCount == expected.count)
            #expect(index.keyCounts().map(\.count).sorted() == expected.values.map(\.count).sorted())
            let entries = index.sortedEntries()
            let expectedEntries = expected.keys.sorted().flatMap { key in expected[key, default: []].sorted().map { (Int64(key), $0) } }
            #expect(entries.map(\.id) == expectedEntries.map(\.1))
            #expect(entries.map(\.key) == expectedEntries.map { QueryKey.int($0.0) })
        }
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
            context.insert(
                Trip(
                    name: "trip \(number)", destination: "City\(number % 20)",
                    startDate: Date(timeIntervalSince1970: 1_700_000_000 + Double(number % 5_000) * 60), price: 1))
        }
        try context.save()
    }

    /// `Trip`'s `#Index`es on `startDate` and `destination` are not unique: they keep their pairs in key
    /// order and no hash table, and answer equalities, counts per key and ranges from those pairs.
    @Test func aDeclaredIndexOfAFieldThatIsNotUniqueKeepsNoTableAndStillAnswersEqualities() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        try storeWithTrips(store)

        let container = try store.container(Trip.self)
        try container.loadRecords()
        let index = try container.index
        let byDate = try #require(index.fieldIndex("Trip", "startDate"))
        let byCity = try #require(index.fieldIndex("Trip", "destination"))
        #expect(!byDate.keepsTable && !byCity.keepsTable)
        #expect(byDate.keyCapacity == 0 && byCity.keyCapacity == 0)
        #expect(byDate.keyCount == 5_000)
        #expect(byCity.keyCount == 20)
        #expect(byCity.keyCounts().map(\.count) == Array(repeating: 500, count: 20))

        let context = ModelContext(container)
        let day = Date(timeIntervalSince1970: 1_700_000_000 + 4_999 * 60)
        let trips = try context.fetch(
            FetchDescriptor<Trip>(
                predicate: #Predicate { $0.startDate == day },
                sortBy: [SortDescriptor(\.name)]))
        #expect(trips.map(\.name) == ["trip 4999", "trip 9999"])
        #expect(try context.fetchCount(FetchDescriptor<Trip>(predicate: #Predicate { $0.destination == "City7" })) == 500)
        #expect(try context.fetchCount(FetchDescriptor<Trip>(predicate: #Predicate { $0.destination == "Nowhere" })) == 0)
        let counts = try context.count(Trip.self, groupedBy: \.destination)
        #expect(counts.count == 20 && counts.allSatisfy { $0.value == 500 })

        // A change moves the record between keys; the next read applies it.
        trips[0].destination = "City7"
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<Trip>(predicate: #Predicate { $0.destination == "City7" })) == 501)
    }

    /// A load of a field whose keys repeat gathers each key's records and sorts only the keys, and so
    /// does the first read after many inserts; in record order or not, with a removal and changes
    /// before that read, the pairs are a sort of them all.
    @Test(arguments: [false, true], [false, true])
    func aLoadOfRepeatedKeysGivesTheSortedPairsOfEveryRecord(inRecordOrder: Bool, asALoad: Bool) {
        let records = IndexedRecords(field: "city")
        let index = records.index!
        var generator = SplitMix64(state: 11)
        var ids = (1...Int64(10_000)).map { $0 }
        if !inRecordOrder { ids.shuffle(using: &generator) }
        if asALoad { index.beginLoading(expectedRecords: ids.count) }
        for id in ids { records.insert(id, ["city": .string("City\(generator.next() % 30)")]) }
        records.remove(ids[5_000])
        records.update(ids[6_000], ["city": .string("Aaa")])
        let expected = records.values.map { (key: QueryKey($0.value["city"], .plain), id: $0.key) }.sorted(by: SortedEntries.precedes)
        let entries = index.sortedEntries()
        #expect(entries.map(\.id) == expected.map(\.id))
        #expect(entries.map(\.key) == expected.map(\.key))
        #expect(entries.keepsKeysPerRun)
        #expect(index.keyCount == 31)
        #expect(Array(index.lookup(.string("Aaa"))) == [ids[6_000]])
    }

    /// Without a table, changes no read applies are kept only until they outnumber the sorted pairs.
    @Test func anIndexWithoutATableAppliesItsKeptChangesOnceTheyOutnumberItsPairs() {
        let records = IndexedRecords(field: "day")
        let index = records.index!
        for id in 1...Int64(100) { records.insert(id, ["day": .int(id)]) }
        _ = index.sortedEntries()
        for step in 1...20_000 {
            let id = Int64(step % 100) + 1
            records.update(id, ["day": .int(Int64(step))])
        }
        #expect(index.keptChangeCount <= 2 * (100 + 4_096) + 2)
        #expect(index.sortedEntries().count == 100)
        #expect(Array(index.lookup(.int(20_000))) == [1])
        #expect(index.keyCount == 100)
    }

    @Test func aFieldIndexIsSizedFromItsSampleOnlyWhenAtLeastHalfTheSampledRecordsHadTheirOwnKey() {
        let halfDistinctRecords = IndexedRecords(field: "day", isDeclared: false)
        let fewValuedRecords = IndexedRecords(field: "city", isDeclared: false)
        let halfDistinct = halfDistinctRecords.index!, fewValued = fewValuedRecords.index!
        for id in 0..<Int64(100) {
            halfDistinctRecords.insert(id, ["day": .int(id / 2)])  // 50 keys in 100 records
            fewValuedRecords.insert(id, ["city": .int(id % 49)])  // 49 keys: fewer than half
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
