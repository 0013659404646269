import Foundation
import FolioStorage
import Testing
@testable import folio

/// What `folio serve` keeps between pages (``StoreViews``) answers exactly as `folio cat` and
/// `folio show` read the store afresh, whatever the query and after any write. Seeded: set
/// `FOLIO_DIFFERENTIAL_SEED` to replay a failure.
@Suite("folio serve: kept orders and indexes")
struct ServeViewsTests {
    static func seed() -> UInt64 {
        ProcessInfo.processInfo.environment["FOLIO_DIFFERENTIAL_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 1...UInt64.max)
    }

    /// The order the served tables document, written plainly: null, Booleans (false first), numbers
    /// (exactly, NaN last), text, other values by their JSON; in a field of dates, values that read as
    /// dates in the numbers' place, by date.
    static func referenceOrder(_ a: JSONValue, _ b: JSONValue, date: Bool) -> ComparisonResult {
        func asNumber(_ value: JSONValue) -> JSONValue {
            guard date, let seconds = DateText.stored(value)?.timeIntervalSinceReferenceDate else { return value }
            return .double(seconds)
        }
        let (a, b) = (asNumber(a), asNumber(b))
        func rank(_ value: JSONValue) -> Int {
            switch value {
            case .null: 0
            case .bool: 1
            case .int, .double: 2
            case .string: 3
            default: 4
            }
        }
        if rank(a) != rank(b) { return rank(a) < rank(b) ? .orderedAscending : .orderedDescending }
        switch (a, b) {
        case (.bool(let x), .bool(let y)): return x == y ? .orderedSame : (x ? .orderedDescending : .orderedAscending)
        case (.string(let x), .string(let y)): return composedOrder(x, y)
        case (.null, .null): return .orderedSame
        case (.int(let x), .int(let y)): return x == y ? .orderedSame : (x < y ? .orderedAscending : .orderedDescending)
        case (.int(let x), .double(let y)): return integerOrder(x, y)
        case (.double(let x), .int(let y)):
            let order = integerOrder(y, x)
            return order == .orderedSame ? order : (order == .orderedAscending ? .orderedDescending : .orderedAscending)
        case (.double(let x), .double(let y)):
            if x.isNaN || y.isNaN { return x.isNaN && y.isNaN ? .orderedSame : (x.isNaN ? .orderedDescending : .orderedAscending) }
            return x == y ? .orderedSame : (x < y ? .orderedAscending : .orderedDescending)
        default:
            return composedOrder(ValueFormatting.json(a), ValueFormatting.json(b))
        }
    }

    /// An integer against a double, exactly: by the double's floor, then its fraction. NaN last.
    static func integerOrder(_ x: Int64, _ y: Double) -> ComparisonResult {
        if y.isNaN { return .orderedAscending }
        if y >= 0x1p63 { return .orderedAscending }
        if y < -0x1p63 { return .orderedDescending }
        let floor = Int64(y.rounded(.down))
        if x != floor { return x < floor ? .orderedAscending : .orderedDescending }
        return y == y.rounded(.down) ? .orderedSame : .orderedAscending
    }

    /// Texts by the scalars of their canonical composition, checked against Swift's `==` and `<`
    /// wherever those are an order.
    static func composedOrder(_ x: String, _ y: String) -> ComparisonResult {
        let (p, q) = (x.canonicalComposition.unicodeScalars.map(\.value), y.canonicalComposition.unicodeScalars.map(\.value))
        let order: ComparisonResult = p == q ? .orderedSame : (p.lexicographicallyPrecedes(q) ? .orderedAscending : .orderedDescending)
        #expect((order == .orderedSame) == (x == y), "\(x.debugDescription) and \(y.debugDescription)")
        if x.canonicalComposition.utf8.elementsEqual(x.utf8), y.canonicalComposition.utf8.elementsEqual(y.utf8) {
            #expect((order == .orderedAscending) == (x < y), "\(x.debugDescription) < \(y.debugDescription)")
        }
        return order
    }

    static func randomValue(_ random: inout SplitMix64, storable: Bool = false) -> JSONValue {
        switch random.next() % 11 {
        case 4 where storable: return .double([-0.0, 0.0, 1.5, 2.0, 1e300][Int(random.next() % 5)])
        case 0: return .null
        case 1: return .bool(random.next() % 2 == 0)
        case 2: return .int(Int64(bitPattern: random.next()) >> Int64(random.next() % 64))
        case 3: return .int([0, 1, 2, 3, 4, 1 << 53, (1 << 53) + 1, .max, .min][Int(random.next() % 9)])
        case 4: return .double([Double.nan, .infinity, -.infinity, -0.0, 0.0, 1.5, 2.0, 1e300, 0x1p53, 0x1p63, -0x1p63][Int(random.next() % 11)])
        case 5: return .string(["a", "B", "é", "e\u{301}", "", "ab", "a\u{0}", "garbage-10", "1968-11-01T00:00:00Z"][Int(random.next() % 9)])
        case 6: return .string("19\(60 + random.next() % 10)-0\(1 + random.next() % 9)-01T00:00:00Z")
        case 7: return .double(Double(random.next() % 1000) * 86400 - 1e9)
        case 8: return .array([.int(Int64(random.next() % 3))])
        case 9: return .object(["k": .int(Int64(random.next() % 3))])
        case 10 where !storable: return randomText(&random)
        default: return .string("garbage-\(random.next() % 4)")
        }
    }

    /// Texts whose order the first 16 bytes do not decide, and texts stored by their shape (dates with
    /// 0 to 5 fraction digits, UUIDs), beside ASCII control characters, NUL and text beyond ASCII.
    static func randomText(_ random: inout SplitMix64) -> JSONValue {
        let digit = { (random: inout SplitMix64) in String(random.next() % 3) }
        switch random.next() % 6 {
        case 0: return .string("a long shared beginning \(digit(&random))\(digit(&random))")
        case 1:
            let fraction = ["", ".5", ".25", ".125", ".0625", ".03125"][Int(random.next() % 6)]
            return .string("2024-0\(1 + random.next() % 2)-01T00:00:0\(digit(&random))\(fraction)Z")
        case 2: return .string("\(["6F9619FF", "6F9619FE", "00000000"][Int(random.next() % 3)])-8B86-D011-B42D-00C04FC964F\(digit(&random))")
        case 3: return .string(["a long shared beginning\u{0}", "a long shared beginning\t", "a long shared \"quoted\""][Int(random.next() % 3)])
        case 4: return .string("a long shared beginning é\(digit(&random))")
        default: return .string(["a long shared beginning e\u{301}", "\u{1F600} \(digit(&random))", "Z"][Int(random.next() % 3)])
        }
    }

    @Test func aKeptOrderIsTheOrderOfAPlainSortAscendingAndDescending() {
        let seed = Self.seed()
        var random = SplitMix64(seed: seed)
        for round in 0..<30 {
            let count = Int(random.next() % 200)
            let records = (0..<count).map { index in
                StoredRecord(
                    entity: ["E", "Eb", "A"][index % 3], id: Int64(index * 2 + 1),
                    values: ["a": Self.randomValue(&random), "b": Self.randomValue(&random)])
            }
            let date = random.next() % 2 == 0
            let keyLists = [
                [("a", false)], [("a", true)], [("a", true), ("b", false)], [("b", false), ("a", true)], [("entity", true), ("id", true)],
            ]
            for keys in keyLists {
                let sortKeys = keys.map { RecordQuery.SortKey(field: $0.0, descending: $0.1) }
                let expected = records.sorted { x, y in
                    for key in sortKeys {
                        let order = Self.referenceOrder(
                            Filter.value(at: [key.field], in: x), Filter.value(at: [key.field], in: y), date: date)
                        if order != .orderedSame { return key.descending ? order == .orderedDescending : order == .orderedAscending }
                    }
                    return x.id < y.id
                }.map(\.id)
                let sorted = OrderedRecords.sorted(records, by: sortKeys, isDate: { _ in date })
                #expect(sorted.map(\.id) == expected, "seed \(seed) round \(round) keys \(keys) date \(date)")
                for _ in 0..<4 {
                    let start = Int(random.next() % UInt64(count + 5))
                    let positions = start..<(start + Int(random.next() % 60))
                    let window = OrderedRecords.window(of: records, by: sortKeys, positions: positions, isDate: { _ in date })
                    let slice = expected[min(start, count)..<min(positions.upperBound, count)]
                    #expect(window.map(\.id) == Array(slice), "seed \(seed) round \(round) keys \(keys) date \(date) window \(positions)")
                }
            }
            let ascending = OrderedRecords.sorted(records, by: [RecordQuery.SortKey(field: "a", descending: false)], isDate: { _ in date })
            let derived = OrderedRecords.descending(ascending, values: SortColumn(of: records, field: "a", isDate: date))
            let direct = OrderedRecords.sorted(records, by: [RecordQuery.SortKey(field: "a", descending: true)], isDate: { _ in date })
            #expect(derived.map(\.id) == direct.map(\.id), "seed \(seed) round \(round): descending from ascending")
        }
    }

    @Test func aSelectedWindowHoldsWhatASortPutsThereWhateverTheInputsShape() {
        let seed = Self.seed()
        var random = SplitMix64(seed: seed)
        for count in [0, 1, 2, 17, 100, 1_000, 5_000] {
            let shapes: [(String, [Int])] = [
                ("ascending", Array(0..<count)), ("descending", Array((0..<count).reversed())), ("equal", Array(repeating: 7, count: count)),
                ("organ pipe", (0..<count).map { min($0, count - $0) }), ("random", (0..<count).map { _ in Int(random.next() % 50) }),
            ]
            for (shape, keys) in shapes {
                // Ties broken by position, as the record orders break them by identifier.
                let precedes: (Int, Int) -> Bool = { a, b in keys[a] != keys[b] ? keys[a] < keys[b] : a < b }
                let sorted = Array(keys.indices).sorted(by: precedes)
                for _ in 0..<4 where count > 0 {
                    let k = Int(random.next() % UInt64(count))
                    let end = k + 1 + Int(random.next() % UInt64(min(120, count - k)))
                    var order = Array(keys.indices).shuffled(using: &random)
                    OrderSelection.sort(k..<end, in: &order, by: precedes)
                    #expect(order[k..<end] == sorted[k..<end], "seed \(seed): \(shape) of \(count), window \(k)..<\(end)")
                    #expect(Set(order) == Set(keys.indices), "seed \(seed): \(shape) of \(count): a permutation")
                }
            }
        }
    }

    /// A store of the library's schema with `count` random books and authors, then random changes.
    static func writeRandomStore(at url: URL, _ random: inout SplitMix64, transactions: Int) throws {
        let store = try Store.open(at: url, configuration: StoreConfiguration(compactionThreshold: nil))
        defer { store.close() }
        try store.write(author: "setup") { $0.setSchema(LibraryStore.schema) }
        try change(store, &random, transactions: transactions)
    }

    static func change(_ store: Store, _ random: inout SplitMix64, transactions: Int) throws {
        for _ in 0..<transactions {
            try store.write(author: "writer \(random.next() % 3)") { t in
                let authors = t.records(of: "Author").map(\.id)
                let books = t.records(of: "Book").map(\.id)
                for _ in 0..<(1 + random.next() % 6) {
                    switch random.next() % 5 {
                    case 0, 1:
                        let author = authors.isEmpty ? JSONValue.null : .int(authors[Int(random.next() % UInt64(authors.count))])
                        try t.insert(
                            entity: "Book", id: t.allocateID(),
                            values: [
                                "title": Self.randomValue(&random, storable: true), "pages": .int(Int64(random.next() % 400)),
                                "price": Self.randomValue(&random, storable: true), "published": Self.randomValue(&random, storable: true),
                                "author": author,
                            ])
                    case 2:
                        try t.insert(
                            entity: "Author", id: t.allocateID(),
                            values: [
                                "name": .string("Author \(random.next())"), "books": .array(books.prefix(Int(random.next() % 3)).map { .int($0) }),
                            ])
                    case 3 where !books.isEmpty:
                        let id = books[Int(random.next() % UInt64(books.count))]
                        if t.record(id: id) != nil {
                            try t.update(entity: "Book", id: id, values: ["price": Self.randomValue(&random, storable: true)])
                        }
                    default:
                        if let id = (books + authors).randomElement(using: &random), t.record(id: id) != nil {
                            try t.delete(entity: t.record(id: id)?.entity ?? "Book", id: id)
                        }
                    }
                }
            }
        }
    }

    static func randomQuery(_ random: inout SplitMix64) -> RecordQuery {
        var query = RecordQuery(entity: random.next() % 4 == 0 ? "Author" : "Book")
        let fields = query.entity == "Book" ? ["title", "pages", "price", "published", "id"] : ["name", "id"]
        query.sortKeys = (0..<Int(random.next() % 3)).map { _ in
            RecordQuery.SortKey(field: fields[Int(random.next() % UInt64(fields.count))], descending: random.next() % 2 == 0)
        }
        let filters = [
            "pages > \(random.next() % 400)", "price < \(random.next() % 5)", "title contains \(random.next() % 10)",
            "not pages > \(random.next() % 400) or price == null",
        ]
        if query.entity == "Book", random.next() % 2 == 0, let filter = try? Filter.parse(filters[Int(random.next() % 4)]) {
            query.filters = [filter]
        }
        query.offset = Int(random.next() % 20)
        query.limit = random.next() % 4 == 0 ? nil : Int(random.next() % 15)
        return query
    }

    @Test func aFilteredPageOfATableLargeEnoughToSplitIsWhatFolioCatReads() throws {
        let seed = Self.seed()
        var random = SplitMix64(seed: seed)
        let scratch = ScratchDirectory()
        defer { scratch.remove() }
        let url = scratch.appending("store")
        let store = try Store.open(at: url, configuration: StoreConfiguration(compactionThreshold: nil))
        try store.write(author: "setup") { t in
            t.setSchema(LibraryStore.schema)
            // More records than ParallelRuns splits from: the filters run on several threads.
            for _ in 0..<(3 * ParallelRuns.minimumCount) {
                try t.insert(
                    entity: "Book", id: t.allocateID(),
                    values: ["title": Self.randomValue(&random, storable: true), "pages": .int(Int64(random.next() % 400))])
            }
        }
        store.close()
        let served = try StoreAccess.openReadOnly(url.path)
        defer { served.close() }
        let schema = SchemaInfo(served.schema)
        let selecting = StoreViews(store: served, selectionRecordCount: 0)
        for step in 0..<20 {
            var query = Self.randomQuery(&random)
            while query.entity != "Book" { query = Self.randomQuery(&random) }
            query.filters = [try Filter.parse(["pages > \(random.next() % 400)", "title contains \(random.next() % 10)"][step % 2])]
            let expected = try query.run(on: served, schema: schema)
            let selected = try query.run(on: served, schema: schema, source: selecting)
            #expect(
                selected.records == expected.records && selected.matched == expected.matched,
                "seed \(seed) step \(step): \(query.filters) sort \(query.sortKeys) offset \(query.offset)")
        }
    }

    @Test func aServedTableIsWhatFolioCatReadsForAnyQueryAfterAnyWrite() throws {
        let seed = Self.seed()
        var random = SplitMix64(seed: seed)
        let scratch = ScratchDirectory()
        defer { scratch.remove() }
        let url = scratch.appending("store")
        try Self.writeRandomStore(at: url, &random, transactions: 30)
        let writer = try Store.open(at: url, configuration: StoreConfiguration(compactionThreshold: nil))
        defer { writer.close() }
        let served = try StoreAccess.openReadOnly(url.path)
        defer { served.close() }
        let views = StoreViews(store: served)
        // Selecting every window rather than sorting: what a large table does before its orders are made.
        let selecting = StoreViews(store: served, selectionRecordCount: 0)
        for round in 0..<12 {
            try served.refresh()
            let schema = SchemaInfo(served.schema)
            for step in 0..<25 {
                let query = Self.randomQuery(&random)
                let expected = try query.run(on: served, schema: schema)
                let kept = try query.run(on: served, schema: schema, source: views)
                let selected = try query.run(on: served, schema: schema, source: selecting)
                let context =
                    "seed \(seed) round \(round) step \(step): \(query.entity) sort \(query.sortKeys) offset \(query.offset) limit \(String(describing: query.limit))"
                #expect(kept.records == expected.records, "\(context)")
                #expect(selected.records == expected.records && selected.matched == expected.matched, "\(context), selected")
                #expect(kept.matched == expected.matched, "\(context)")
                #expect(kept.fieldNames == expected.fieldNames, "\(context)")
            }
            for id in 1...Int64(served.lastSequence + 80) {
                let expected = try RecordDetails.load(id: id, store: served, schema: schema)
                let kept = try RecordDetails.load(id: id, store: served, schema: schema, views: views)
                #expect(kept?.json == expected?.json, "seed \(seed) round \(round): record \(id)")
            }
            try Self.change(writer, &random, transactions: Int(random.next() % 3))
            if round == 6 { try writer.compact() }
        }
    }

    @Test func pagesAskingForAnOrderBeingMadeWaitForItAndGetTheSameRecords() throws {
        let seed = Self.seed()
        var random = SplitMix64(seed: seed)
        let scratch = ScratchDirectory()
        defer { scratch.remove() }
        let url = scratch.appending("store")
        try Self.writeRandomStore(at: url, &random, transactions: 40)
        let served = try StoreAccess.openReadOnly(url.path)
        defer { served.close() }
        let schema = SchemaInfo(served.schema)
        let views = StoreViews(store: served)
        let queries = (0..<4).map { index in
            var query = RecordQuery(entity: "Book")
            query.sortKeys = [RecordQuery.SortKey(field: ["price", "title"][index % 2], descending: index >= 2)]
            return query
        }
        let expected = try queries.map { try $0.run(on: served, schema: schema).records }
        let results = LockedResults()
        views.prepareAhead(schema: schema)
        DispatchQueue.concurrentPerform(iterations: 16) { iteration in
            let records = (try? queries[iteration % 4].run(on: served, schema: schema, source: views).records) ?? []
            results.append(iteration % 4, records)
        }
        for (index, records) in results.all {
            #expect(records == expected[index], "seed \(seed): query \(index)")
        }
        #expect(results.all.count == 16)
    }

    /// What the concurrent pages read, gathered under a lock.
    final class LockedResults: Sendable {
        private let results = LockedState<[(Int, [StoredRecord])]>([])
        func append(_ index: Int, _ records: [StoredRecord]) { results.withLock { $0.append((index, records)) } }
        var all: [(Int, [StoredRecord])] { results.withLock { $0 } }
    }
}
