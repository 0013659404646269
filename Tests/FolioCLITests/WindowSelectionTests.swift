import Foundation
import FolioStorage
import Testing
@testable import folio

/// A page of a large table whose order is not made yet is selected: the records are narrowed by keys
/// of their first sort key's values before any is compared. What is selected is what a whole sort puts
/// in the window, wherever the narrowing stops. Seeded: set `FOLIO_DIFFERENTIAL_SEED` to replay a
/// failure.
@Suite("folio serve: selecting a window of a table")
struct WindowSelectionTests {
    @Test func orderKeysNeverContradictTheColumnsOrder() {
        let seed = ServeViewsTests.seed()
        var random = SplitMix64(seed: seed)
        for round in 0..<16 {
            let date = round % 2 == 0
            let records = (0..<300).map { index in
                StoredRecord(entity: "E", id: Int64(index + 1), values: ["a": ServeViewsTests.randomValue(&random)])
            }
            let column = SortColumn(of: records, field: "a", isDate: date)
            let keys = SortColumn.orderKeys(of: records, at: nil, field: "a", isDate: date)
            let positions = records.indices.filter { _ in random.next() % 3 == 0 }
            #expect(
                SortColumn.orderKeys(of: records, at: positions, field: "a", isDate: date) == positions.map { keys[$0] },
                "seed \(seed) round \(round): the keys of some records")
            var contradictions: [String] = []
            var parted = 0
            for a in records.indices {
                for b in records.indices {
                    switch column.compare(a, b) {
                    case .orderedSame where keys[a] != keys[b], .orderedAscending where keys[a] > keys[b]:
                        contradictions.append("\(records[a].values["a"] ?? .null) and \(records[b].values["a"] ?? .null)")
                    case .orderedAscending: parted += keys[a] < keys[b] ? 1 : 0
                    default: break
                    }
                }
            }
            #expect(contradictions.isEmpty, "seed \(seed) round \(round) date \(date): keys contradict \(contradictions.prefix(3))")
            // Keys that parted nothing would narrow nothing: most unequal pairs are parted.
            let unequal = records.indices.reduce(0) { sum, a in sum + records.indices.filter { column.compare(a, $0) == .orderedAscending }.count }
            #expect(parted * 10 >= unequal * 8, "seed \(seed) round \(round): keys part \(parted) of \(unequal) pairs")
        }
    }

    @Test func narrowingKeepsTheWindowAndCountsWhatSortsBeforeIt() {
        let seed = ServeViewsTests.seed()
        var random = SplitMix64(seed: seed)
        for count in [1, 2, 17, 1_000, 20_000] {
            let shapes: [(String, [UInt64])] = [
                ("equal", Array(repeating: 0xABCD_0000_1234_0000, count: count)),
                ("distinct", (0..<count).map { _ in random.next() }),
                ("few", (0..<count).map { _ in [0, 1, 0xFFFF, 0x1_0000, 0xFFFF_FFFF_FFFF_FFFF][Int(random.next() % 5)] }),
                ("shared high bits", (0..<count).map { _ in 0x7FF0_0000_0000_0000 | random.next() % 300 << 16 | random.next() % 3 }),
                ("ascending", (0..<count).map { UInt64($0) << 20 }),
            ]
            for (shape, keys) in shapes {
                let sorted = keys.indices.sorted { keys[$0] != keys[$1] ? keys[$0] < keys[$1] : $0 < $1 }
                for limit in [0, 1, 100, Int.max] {
                    let start = Int(random.next() % UInt64(count))
                    let window = start..<(start + 1 + Int(random.next() % UInt64(min(60, count - start))))
                    let (before, left) = OrderSelection.narrow(keys, to: window, limit: limit)
                    let place = "seed \(seed): \(shape) of \(count), window \(window), limit \(limit)"
                    #expect(before <= window.lowerBound && window.upperBound <= before + left.count, "\(place): the window is left")
                    #expect(left == sorted[before..<min(count, before + left.count)].sorted(), "\(place): what is left sorts together")
                    if shape == "distinct", limit == 0, count >= 1_000 {
                        #expect(left.count <= window.count + 16, "\(place): distinct keys narrow to the window, not \(left.count)")
                    }
                }
            }
        }
    }

    @Test func aSelectedWindowIsTheSortsWindowWhereverTheNarrowingStops() {
        let seed = ServeViewsTests.seed()
        var random = SplitMix64(seed: seed)
        for round in 0..<6 {
            let count = 200 + Int(random.next() % 1_300)
            let records = (0..<count).map { index in
                StoredRecord(
                    entity: "E", id: Int64(index * 3 + 1),
                    values: [
                        "a": ServeViewsTests.randomValue(&random), "b": ServeViewsTests.randomValue(&random),
                        "c": .int(Int64(random.next() % 4)), "d": .double(Double(random.next() % 100_000) / 100),
                    ])
            }
            let date = round % 3 == 0
            let keyLists = [[("a", false)], [("a", true)], [("c", false), ("d", true)], [("c", true), ("a", false), ("b", true)], [("d", false)]]
            for keys in keyLists {
                let sortKeys = keys.map { RecordQuery.SortKey(field: $0.0, descending: $0.1) }
                let expected = Self.referenceSorted(records, by: sortKeys, date: date)
                for _ in 0..<3 {
                    let candidates: [Int]? = random.next() % 2 == 0 ? nil : records.indices.filter { _ in random.next() % 4 != 0 }
                    let kept = candidates.map { Set($0.map { records[$0].id }) }
                    let expectedAmong = kept.map { kept in expected.filter(kept.contains) } ?? expected
                    let start = Int(random.next() % UInt64(count + 3))
                    let positions = start..<(start + Int(random.next() % 80))
                    let slice = Array(expectedAmong[min(start, expectedAmong.count)..<min(positions.upperBound, expectedAmong.count)])
                    for limit in [0, 1, 50, 2_048] {
                        let window = OrderedRecords.window(
                            of: records, among: candidates, by: sortKeys, positions: positions, isDate: { _ in date }, narrowingTo: limit)
                        #expect(
                            window.map(\.id) == slice,
                            "seed \(seed) round \(round) keys \(keys) date \(date) window \(positions) limit \(limit) filtered \(candidates != nil)")
                    }
                }
            }
        }
    }

    /// The identifiers of `records` sorted by `keys` in the order the served tables document, then by
    /// identifier.
    static func referenceSorted(_ records: [StoredRecord], by keys: [RecordQuery.SortKey], date: Bool) -> [Int64] {
        records.sorted { x, y in
            for key in keys {
                let order = ServeViewsTests.referenceOrder(Filter.value(at: [key.field], in: x), Filter.value(at: [key.field], in: y), date: date)
                if order != .orderedSame { return key.descending ? order == .orderedDescending : order == .orderedAscending }
            }
            return x.id < y.id
        }.map(\.id)
    }
}
