import Foundation
import FolioStorage
import Testing

/// The Trip generator of `../shared/bench/README.md`, written again from its recipe, so that what
/// `folio-bench` reports can be checked against an independent count.
private enum TripRecipe {
    static func mix(_ value: UInt64) -> UInt64 {
        var z = value
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    static func draw(_ record: Int, _ field: Int) -> UInt64 {
        mix(0x5EED_C0FF_EE12_3457 &+ (UInt64(record) &* 8 &+ UInt64(field) &+ 1) &* 0x9E37_79B9_7F4A_7C15)
    }

    /// The number of the city record `record` goes to (`"City" + number`).
    static func city(_ record: Int) -> Int { Int(draw(record, 3) % 200) }

    static func price(_ record: Int) -> Double { Double(draw(record, 5) % 500_001) / 100.0 }
}

/// What one step printed: its rows by workload (`"W3"`, or `"W7 set_based_sql"` for a variant).
private struct BenchRows {
    var rows: [String: [String: JSONValue]] = [:]

    init(_ run: FolioRun) throws {
        #expect(run.status == 0, "\(run)")
        for line in try run.jsonLines() {
            let row = try #require(line.objectValue)
            #expect(row["peer"]?.stringValue == "folio")
            let workload = try #require(row["w"]?.stringValue)
            let key = row["variant"]?.stringValue.map { "\(workload) \($0)" } ?? workload
            #expect(rows[key] == nil, "one row per workload and variant")
            rows[key] = row
        }
    }

    func int(_ key: String, _ field: String) -> Int64? { rows[key]?[field]?.intValue }
    func number(_ key: String, _ field: String) -> Double? { rows[key]?[field]?.doubleValue }
}

@Suite("folio-bench, the Trip workloads against SQLite")
struct FolioBenchTests {
    @Test func genPrintsTheCheckValuesOfTheSharedGenerator() throws {
        let run = try folioBench("gen", "1000000")
        #expect(run.status == 0, "\(run)")
        let lines = run.stdout.split(separator: "\n").map(String.init)
        #expect(
            lines.first
                == "record 0: id=78F38742-1171-4AEF-B568-246C7ECB9E75 name=fmkchpphjxbd destination=City73 startDate=1658294359.323 price=1045.44 mapItem=Iff5432e42cce87fa"
        )
        #expect(lines.last == "n=1000000 fnv=ed47129cef2fbeed price_sum=2500806243.57")
    }

    @Test func eachStepPrintsTheRowsCompareReadsWithTheCountsTheRecipeGives() throws {
        let scratch = ScratchDirectory()
        defer { scratch.remove() }
        let store = scratch.appending("trips").path
        let loaded = 3000, singles = 20

        let load = try BenchRows(folioBench("load", store, String(loaded), "FULL", "1000"))
        #expect(load.int("W1", "n") == Int64(loaded))
        #expect((load.number("W1", "records_per_s") ?? 0) > 0)
        #expect((load.int("W1", "store_after_load_bytes") ?? 0) > 0)
        // Only the compaction mark: a line naming the last transaction the snapshots hold.
        #expect((1...200).contains(load.int("W1", "store_after_compact_journal_bytes") ?? 0))

        let count = try BenchRows(folioBench("count", store))
        #expect(count.int("W2", "count") == Int64(loaded))

        let first = try BenchRows(folioBench("first", store))
        #expect(first.int("W9", "rows") == Int64((0..<loaded).filter { TripRecipe.city($0) == 0 }.count))
        #expect((first.number("W9", "first_query_seconds") ?? 0) > 0)
        #expect((first.int("W9", "maxrss_kib") ?? 0) > 0)

        // W3 asks for City0, City7, City14, ... (q * 7 % 200 for q < 100, a hundred different cities);
        // W4 for prices in [45 q, 45 q + 500], at most 20 each; W5 groups every record by city.
        let read = try BenchRows(folioBench("read", store))
        let w3Cities = Set((0..<100).map { $0 * 7 % 200 })
        #expect(read.int("W3", "rows_total") == Int64((0..<loaded).filter { w3Cities.contains(TripRecipe.city($0)) }.count))
        let w4Rows = (0..<100).map { q in
            let low = 45.0 * Double(q)
            return min(20, (0..<loaded).filter { low <= TripRecipe.price($0) && TripRecipe.price($0) <= low + 500 }.count)
        }.reduce(0, +)
        #expect(read.int("W4 no_startDate_index", "rows_total") == Int64(w4Rows))
        #expect(read.int("W4 with_startDate_index", "rows_total") == Int64(w4Rows))
        #expect(read.rows["W4 with_startDate_index"]?["plan"]?.stringValue?.contains("startDate") == true)
        let cities = Set((0..<loaded).map(TripRecipe.city)).count
        #expect(read.int("W5", "groups") == Int64(cities))
        #expect(read.int("W5", "sections") == Int64(cities))
        #expect(read.int("W5", "rows_fetched") == Int64(loaded))

        let single = try BenchRows(folioBench("single", store, String(loaded), "FULL", String(singles)))
        #expect(single.int("W6", "inserts") == Int64(singles))

        // W7 updates City0–19 and City60–79, W8 deletes City20–39 and City40–59, over every record
        // so far (the single saves' too).
        let all = 0..<(loaded + singles)
        func inCities(_ range: Range<Int>) -> Int64 { Int64(all.filter { range.contains(TripRecipe.city($0)) }.count) }
        let modify = try BenchRows(folioBench("modify", store, "FULL"))
        #expect(modify.int("W7 set_based_sql", "rows") == inCities(0..<20))
        #expect(modify.int("W7 object_fetch_then_update_by_id", "rows") == inCities(60..<80))
        #expect(modify.int("W8 set_based_sql", "rows") == inCities(20..<40))
        #expect(modify.int("W8 object_fetch_then_delete_by_id", "rows") == inCities(40..<60))
        #expect(modify.int("W8-check", "remaining_rows") == Int64(all.count) - inCities(20..<60))
    }

    @Test func theMergeStepMergesEveryFileBothCopiesChanged() throws {
        let scratch = ScratchDirectory()
        defer { scratch.remove() }
        let store = scratch.appending("trips").path
        _ = try BenchRows(folioBench("load", store, "2000", "NORMAL"))
        for (mode, files) in [("journal", 1...1), ("compacted", 3...4)] {
            let prepared = try BenchRows(folioBench("merge", store, "prepare", mode))
            #expect(prepared.int("G1", "changed") == 40)
            let open = try BenchRows(folioBench("merge", store, "open"))
            #expect(open.int("G1", "records") == 2000)
            // journal.jsonl alone; or it, history.jsonl, snapshots/Trip.jsonl and the manifest (which both
            // sides may have written alike: the same sequence, and snapshots of the same size).
            let merged = try BenchRows(folioBench("merge", store, "merge"))
            #expect(files.contains(Int(merged.int("G1", "files") ?? 0)), "\(mode)")
        }
    }

    @Test func pageCostReportsThePriceOfEachQuarterGibibyteItTouches() throws {
        let rows = try BenchRows(folioBench("page-cost", "300"))
        #expect(rows.int("page-cost", "mib") == 300)
        #expect(rows.int("page-cost", "pages") == Int64(300 << 20) / Int64(sysconf(Int32(_SC_PAGESIZE))))
        let slices = try #require(rows.rows["page-cost"]?["us_per_page_by_256_mib"]?.arrayValue)
        // 256 MiB, then the last 44.
        #expect(slices.count == 2)
        #expect(slices.allSatisfy { ($0.doubleValue ?? 0) > 0 })
    }
}
