import Foundation
import Testing
@testable import FolioStorage

/// Numbers at the ends of what a store can hold: every legal one is read and written back bit for bit,
/// through the JSON layer, the journal, the snapshots and the snapshot cache; every other one is a typed
/// error, never a trap.
@Suite("Extreme numbers in JSON and store files")
struct ExtremeNumberTests {
    /// Doubles whose canonical text is a sign, an exponent near a limit, or both.
    static let extremeDoubles: [Double] = [
        -0.0, .greatestFiniteMagnitude, -.greatestFiniteMagnitude, Double.greatestFiniteMagnitude.nextDown,
        -Double.greatestFiniteMagnitude.nextDown, .leastNonzeroMagnitude, -.leastNonzeroMagnitude, .leastNormalMagnitude,
        9_223_372_036_854_775_808.0, 1e308, -1e-308,
    ]

    /// The values every round trip below writes, by member name.
    static let extremeValues: [String: JSONValue] = {
        var values: [String: JSONValue] = [
            "min": .int(.min), "max": .int(.max), "beyondDouble": .int(9_007_199_254_740_993), "negativeBeyondDouble": .int(-9_007_199_254_740_993),
            "minusOne": .int(-1), "zero": .int(0),
            "list": .array([.int(.min), .int(.max), .double(-0.0), .double(.greatestFiniteMagnitude)]),
            "nested": .object(["min": .int(.min), "negativeZero": .double(-0.0)]),
        ]
        for (index, double) in extremeDoubles.enumerated() { values["double\(index)"] = .double(double) }
        return values
    }()

    /// The canonical bytes of a value: equal bytes are equal bits for every finite double (the shortest
    /// round-trip text names one double), which `==` is not (`0.0 == -0.0`).
    static func bytes(_ value: JSONValue) throws -> [UInt8] { try CanonicalJSONWriter().bytes(value) }

    static func expectBitExact(_ values: RecordValues?, _ place: String) throws {
        let values = try #require(values, "\(place): no record")
        #expect(try bytes(.object(values.dictionary)) == bytes(.object(extremeValues)), "\(place)")
        guard case .double(let zero)? = values["double0"] else {
            Issue.record("\(place): -0.0 did not read as a double")
            return
        }
        #expect(zero.bitPattern == (-0.0 as Double).bitPattern, "\(place): the sign of -0.0 was lost")
    }

    // MARK: The JSON layer

    @Test(arguments: [Int64.min, .max, 0, -1, 9_007_199_254_740_993, -9_007_199_254_740_993, Int64.min + 1, Int64.max - 1])
    func integersAtTheEndsOfInt64ReadAsThemselvesAndWriteBackTheSameText(value: Int64) throws {
        let text = String(value)
        #expect(try JSONReader().parse(text) == .int(value))
        #expect(try JSONValue.int(value).canonicalString() == text)
        #expect(try JSONReader().parse("[\(text)]") == .array([.int(value)]))
    }

    @Test func integersPastInt64AreTheirExactDoubleOrRefused() throws {
        #expect(try JSONReader().parse("9223372036854775808") == .double(9_223_372_036_854_775_808.0))
        #expect(try JSONReader().parse("-9223372036854775808") == .int(.min))
        #expect(try JSONReader().parse("18446744073709551616") == .double(18_446_744_073_709_551_616.0))
        for text in ["-9223372036854775809", "9223372036854775809", "18446744073709551615", "123456789012345678901234567890"] {
            #expect(throws: StorageError.self, "\(text)") { try JSONReader().parse(text) }
        }
    }

    @Test(arguments: ["1e400", "-1e400", "1E+400", "1e999999999999999999999999", "-1e99999", "1e-400", "-2.5e-99999999999999"])
    func numbersNoDoubleHoldsAreATypedErrorAtTheirOffset(text: String) throws {
        let line = "{\"a\":[1,\(text)]}"
        do {
            let value = try JSONReader().parse(line)
            Issue.record("\(text) read as \(value)")
        } catch {
            #expect(error.code == .invalidJSON)
            #expect(error.offset == 8, "\(error)")
            #expect(error.message.contains(text), "\(error)")
        }
    }

    @Test func zerosKeepTheirSignAndHugeExponentsOfZeroReadAsZero() throws {
        guard case .double(let negative) = try JSONReader().parse("-0.0") else {
            Issue.record("-0.0 did not read as a double")
            return
        }
        #expect(negative.bitPattern == (-0.0 as Double).bitPattern)
        #expect(try JSONValue.double(-0.0).canonicalString() == "-0.0")
        #expect(try JSONReader().parse("-0") == .int(0))
        for text in ["0e999999999999999999", "0.0E-99999999999999999999", "-0e400"] {
            guard case .double(let zero) = try JSONReader().parse(text) else {
                Issue.record("\(text) did not read as a double")
                continue
            }
            #expect(zero == 0 && zero.sign == (text.hasPrefix("-") ? .minus : .plus), "\(text)")
        }
    }

    @Test(arguments: ExtremeNumberTests.extremeDoubles)
    func doublesNearTheirLimitsRoundTripBitForBit(value: Double) throws {
        let text = try JSONValue.double(value).canonicalString()
        guard case .double(let read) = try JSONReader().parse(text) else {
            Issue.record("\(text) did not read as a double")
            return
        }
        #expect(read.bitPattern == value.bitPattern, "\(text)")
        let packed = RecordValues(["x": .double(value)])
        var written: [UInt8] = []
        try CanonicalJSONWriter().write(packed, into: &written)
        #expect(String(decoding: written, as: UTF8.self) == "{\"x\":\(text)}")
    }

    @Test(arguments: [Double.nan, .infinity, -.infinity, -Double.nan])
    func nonFiniteDoublesAreATypedErrorWhenWritten(value: Double) {
        #expect(throws: StorageError.self) { try JSONValue.double(value).canonicalBytes() }
        var output: [UInt8] = []
        #expect(throws: StorageError.self) { try CanonicalJSONWriter().write(RecordValues(["x": .double(value)]), into: &output) }
    }

    @Test func packedValuesHoldEveryExtremeValueExactly() throws {
        let packed = RecordValues(Self.extremeValues)
        for (name, value) in Self.extremeValues {
            #expect(try Self.bytes(packed[name] ?? .null) == Self.bytes(value), "\(name)")
        }
        try Self.expectBitExact(packed, "packed")
    }

    // MARK: Through the store's files

    @Test func aStoreHoldingExtremeValuesReadsThemBackBitExactFromJournalSnapshotAndCache() throws {
        try withTemporaryDirectory { directory in
            var configuration = StoreConfiguration(compactionThreshold: nil)
            var store = try Store.open(at: directory, configuration: configuration)
            var id: Int64 = 0
            try store.write(author: "tests") { tx in
                id = tx.allocateID()
                try tx.insert(entity: "Extreme", id: id, values: Self.extremeValues)
                try tx.insert(entity: "Extreme", id: tx.allocateID(), values: ["min": .int(0), "double0": .double(0.0)])
            }
            try Self.expectBitExact(store.record(id: id)?.values, "in memory")
            store.close()

            // The journal.
            let journal = try String(decoding: readBytes(directory.appending("journal.jsonl")), as: UTF8.self)
            #expect(journal.contains("\"min\":-9223372036854775808"))
            #expect(journal.contains("\"max\":9223372036854775807"))
            #expect(journal.contains("\"double0\":-0.0"))
            store = try Store.open(at: directory, configuration: configuration)
            try Self.expectBitExact(store.record(id: id)?.values, "from the journal")
            try Self.expectBitExact(try store.history(after: 0).first?.inserted.first { $0.id == id }?.values, "from the history")

            // The snapshot.
            try store.compact()
            store.close()
            store = try Store.open(at: directory, configuration: configuration)
            try Self.expectBitExact(store.record(id: id)?.values, "from the snapshot")
            store.close()

            // The snapshot cache, built from the snapshot and read without loading the records.
            let paths = StorePaths(directory: directory.path)
            try SnapshotCacheBuilder.write(
                snapshotAt: paths.snapshot("Extreme"), members: ["min", "double0", "max"], fileSystem: PosixFileSystem(),
                to: paths.snapshotCache("Extreme"))
            let cache = try SnapshotCache.open(
                at: paths.snapshotCache("Extreme"), snapshotAt: paths.snapshot("Extreme"),
                fileSystem: PosixFileSystem()
            ).get()
            let byMin = try #require(try cache.lookup(member: "min", key: .int(.min)))
            #expect(byMin.map(\.id) == [id])
            try Self.expectBitExact(try cache.readRecords(byMin).first?.values, "through the cache")
            #expect(try cache.lookup(member: "double0", key: .double(-0.0))?.map(\.id) == [id])
            #expect(try cache.lookup(member: "double0", key: .double(0.0))?.map(\.id) == [id + 1], "0.0 and -0.0 are distinct keys")
            #expect(try cache.lookup(member: "max", key: .int(.max))?.map(\.id) == [id])

            configuration.defersLoadingRecords = true
            configuration.cachedMembers = ["Extreme": ["min", "double0", "max"]]
            store = try Store.open(at: directory, configuration: configuration)
            defer { store.close() }
            let unloaded = try #require(try store.recordsWithoutLoading(of: "Extreme", member: "min", mayEqual: .int(.min)))
            #expect(unloaded.map(\.id) == [id])
            try Self.expectBitExact(unloaded.first?.values, "without loading")
        }
    }
}
