import Foundation
import Testing
@testable import Folio
@_spi(FolioEngine) import FolioStorage

@Suite("Sorted index maintenance")
struct SortedIndexMaintenanceTests {
    /// Every pair of `records`, sorted by brute force: what the sorted index must hold.
    static func bruteForce(_ records: IndexedRecords, _ field: String) -> [(key: QueryKey, id: Int64)] {
        records.values.map { (QueryKey($0.value[field], .plain), $0.key) }.sorted(by: SortedEntries.precedes)
    }

    /// Where two lists of pairs first differ (their common length when one is longer), or nil.
    static func firstDifference(_ lhs: [(key: QueryKey, id: Int64)], _ rhs: [(key: QueryKey, id: Int64)]) -> Int? {
        for position in 0..<min(lhs.count, rhs.count) where lhs[position].id != rhs[position].id || lhs[position].key != rhs[position].key {
            return position
        }
        return lhs.count == rhs.count ? nil : min(lhs.count, rhs.count)
    }

    /// Random inserts, updates and deletes, read back after batches of every size from one change to
    /// many: a few keys shared by many records, and (with few hash bits) keys whose hashes collide. An
    /// index with a table sorts its pairs once; one without never sorts them all again after its load.
    @Test(arguments: FieldIndexKind.allCases)
    func sortedEntriesFollowInterleavedChangesWithoutASortOfEveryPair(kind: FieldIndexKind) {
        var generator = SplitMix64(state: 26)
        let records = kind.records(field: "city")
        let index = records.index!
        func randomValues() -> RecordValues {
            switch Int.random(in: 0..<10, using: &generator) {
            case 0: return [:]  // nil key
            case 1: return ["city": .int(Int64.random(in: 0..<5, using: &generator))]
            case 2: return ["city": .double(Double(Int.random(in: 0..<5, using: &generator)))]  // equal to an int
            case 3, 4: return ["city": .string("unique \(generator.next())")]
            default: return ["city": .string("city \(Int.random(in: 0..<8, using: &generator))")]
            }
        }
        for id in 0..<300 { records.insert(Int64(id), randomValues()) }
        #expect(Self.firstDifference(Array(index.sortedEntries()), Self.bruteForce(records, "city")) == nil)
        var nextID: Int64 = 300
        for round in 0..<200 {
            let changes = round % 3 == 0 ? Int.random(in: 1...4, using: &generator) : Int.random(in: 5...60, using: &generator)
            for _ in 0..<changes {
                let existing = records.values.keys.randomElement(using: &generator)
                switch (Int.random(in: 0..<3, using: &generator), existing) {
                case (0, let id?):
                    records.update(id, randomValues())
                case (1, let id?):
                    records.remove(id)
                    if Bool.random(using: &generator) { records.insert(id, randomValues()) }  // back under a new key
                default:
                    records.insert(nextID, randomValues())
                    nextID += 1
                }
            }
            let expected = Self.bruteForce(records, "city")
            #expect(Self.firstDifference(Array(index.sortedEntries()), expected) == nil, "round \(round)")
        }
        #expect(index.sortedRebuilds == (kind == .sortedOnly ? 0 : 1))
    }

    /// The columns of sorted pairs, with keys per run (few keys) and per pair (mostly distinct keys),
    /// against an array of pairs, through random inserts and removals at their places.
    @Test(arguments: [8, 100_000])
    func sortedPairsInColumnsAgreeWithAnArrayOfPairs(keyRange: Int) {
        var generator = SplitMix64(state: UInt64(keyRange))
        var array: [(key: QueryKey, id: Int64)] = (0..<Int64(5_000)).map { (.int(Int64(generator.next() % UInt64(keyRange))), $0) }
        array.sort(by: SortedEntries.precedes)
        var pairs = SortedPairs(array)
        #expect(pairs.keepsKeysPerRun == (keyRange == 8))
        var nextID: Int64 = 5_000
        for step in 0..<3_000 {
            if generator.next() % 2 == 0, !array.isEmpty {
                let position = Int(generator.next() % UInt64(array.count))
                array.remove(at: position)
                pairs.remove(at: position)
            } else {
                // A key of its own now and then, so that runs also start and end at the edges.
                let key: QueryKey = generator.next() % 10 == 0 ? .int(-Int64(step)) : .int(Int64(generator.next() % UInt64(keyRange)))
                let pair = (key: key, id: nextID)
                nextID += 1
                let position = SortedEntries.firstPosition(notBefore: pair, in: pairs)
                array.insert(pair, at: position)
                pairs.insert(pair, at: position)
            }
            guard step % 250 == 0 || step == 2_999 else { continue }
            #expect(Self.firstDifference(Array(pairs), array) == nil, "step \(step)")
            #expect(zip(array, array.dropFirst()).allSatisfy { SortedEntries.precedes($0, $1) }, "step \(step)")
            var runs: [(QueryKey, Int)] = []
            pairs.forEachRun { key, positions in runs.append((key, positions.count)) }
            #expect(runs.reduce(0) { $0 + $1.1 } == array.count)
            #expect(zip(runs, runs.dropFirst()).allSatisfy { $0.0 < $1.0 })
            // A lookup's positions: keys present, absent between others, and past either end.
            for probe in [QueryKey.int(-1_000_000), .int(-Int64(step)), .int(0), .int(3), .int(7), .int(50_000), .int(Int64.max)] {
                let expected = array.indices.filter { array[$0].key == probe }
                let found = pairs.positions(of: probe)
                #expect(Array(found) == expected, "key \(probe) at step \(step)")
            }
        }
    }

    /// With a table, which tells a pair it holds already from a new one.
    @Test func aRecordInsertedAndRemovedBetweenReadsLeavesNoEntry() {
        let records = IndexedRecords(field: "code", isDeclared: false)
        let index = records.index!
        records.insert(1, ["code": .string("b")])
        #expect(index.sortedEntries().map(\.id) == [1])
        records.insert(2, ["code": .string("a")])
        records.remove(2)
        records.update(1, ["code": .string("b")])  // removed and added under the same key
        #expect(index.sortedEntries().map(\.id) == [1])
        records.insert(3, ["code": .string("c")])
        index.insert(3, ["code": .string("c")])  // again: the table already has it
        #expect(index.sortedEntries().map(\.id) == [1, 3])
        #expect(index.sortedRebuilds == 1)
    }

    /// Saves move records in a store's declared sorted index; ranges and ordered walks over it must
    /// match a sort of every model after each save.
    @Test func rangesAndOrderedWalksStayRightAcrossSaves() throws {
        var generator = SplitMix64(state: 7)
        let (container, context) = try QueryTests.tripContainer(count: 200)
        let base = QueryTests.base
        func day() -> Date { base.addingTimeInterval(Double(Int.random(in: 0..<400, using: &generator)) * QueryTests.day) }
        for round in 0..<12 {
            let all = try context.fetch(FetchDescriptor<Trip>())
            for trip in all.shuffled(using: &generator).prefix(15) { trip.startDate = day() }
            for trip in all.shuffled(using: &generator).prefix(5) { context.delete(trip) }
            for number in 0..<8 {
                context.insert(Trip(name: "New \(round)-\(number)", destination: "Oslo", startDate: day(), price: 1))
            }
            try context.save()

            let remaining = try context.fetch(FetchDescriptor<Trip>())
            let cutoff = base.addingTimeInterval(150 * QueryTests.day)
            let early = FetchDescriptor<Trip>(predicate: #Predicate { $0.startDate < cutoff })
            #expect(try context.queryPlan(for: early).access == .index("startDate"))
            #expect(Set(try context.fetch(early).map(\.name)) == Set(remaining.filter { $0.startDate < cutoff }.map(\.name)))

            var latest = FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.startDate, order: .reverse)])
            latest.fetchLimit = 10
            #expect(try context.queryPlan(for: latest).access == .orderedIndex("startDate"))
            let byDate = remaining.map { ($0.startDate, $0.persistentModelID.recordNumber ?? 0, $0.name) }
                .sorted { $0.0 != $1.0 ? $0.0 > $1.0 : $0.1 < $1.1 }
            #expect(try context.fetch(latest).map(\.name) == byDate.prefix(10).map(\.2), "round \(round)")
        }
        // A declared index of a field that is not unique: its pairs, sorted once at the load, only move.
        let startDates = try #require(container.index.fieldIndex("Trip", "startDate"))
        #expect(!startDates.keepsTable && startDates.sortedRebuilds == 0)
    }
}
