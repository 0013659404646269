import Foundation
import FolioStorage
import Testing

/// A store holding a value of each legal stored form at the ends of its type, with a schema that
/// declares the types: what the model layer writes for `Int.min`, `-0.0`, NaN, a date a million years
/// away or a string of combining marks.
enum ExtremeStore {
    static let schema: JSONValue = {
        func attribute(_ type: String) -> JSONValue {
            .object(["kind": .string("attribute"), "type": .string(type), "optional": .bool(true)])
        }
        return .object([
            "version": .string("1.0.0"),
            "entities": .object([
                "Extreme": .object([
                    "properties": .object([
                        "int": attribute("Int"), "int64": attribute("Int64"), "uint64": attribute("UInt64"), "double": attribute("Double"),
                        "float": attribute("Float"), "text": attribute("String"), "date": attribute("Date"), "decimal": attribute("Decimal"),
                    ])
                ])
            ]),
        ])
    }()

    /// One record per value: every legal stored form of each declared type, at the ends of its range.
    static let records: [[String: JSONValue]] = {
        let ints: [JSONValue] = [.int(.min), .int(.max), .int(0), .int(-1), .int(9_007_199_254_740_993)]
        let doubles: [JSONValue] = [
            .double(-0.0), .double(.greatestFiniteMagnitude), .double(-.greatestFiniteMagnitude), .double(.leastNonzeroMagnitude),
            .double(Double.greatestFiniteMagnitude.nextDown), .string("NaN"), .string("Infinity"), .string("-Infinity"), .int(3),
            .int(.min), .int(.max), .double(9_223_372_036_854_775_808.0),
        ]
        let texts: [JSONValue] = [
            .string("cafe\u{301}"), .string("caf\u{E9}"), .string("\u{301}"), .string("\u{301}\u{308}\u{20DD}"),
            .string("👩‍👩‍👧‍👦"), .string("🇫🇷🇩🇪"), .string("\u{1F1EB}"), .string("a\u{0}b\u{2028}c\u{7F}"), .string(""),
            .string("-9223372036854775808"), .string("1e400"),
        ]
        let dates: [JSONValue] = [
            .string("0001-01-01T00:00:00Z"), .string("9999-12-31T23:59:59.999Z"), .string("2001-01-01T00:00:00Z"),
            .double(-1e15), .double(1e15), .double(-0.0), .double(.greatestFiniteMagnitude), .double(-.greatestFiniteMagnitude),
            .int(.min), .int(.max), .double(-63_114_076_800.5),
        ]
        var records: [[String: JSONValue]] = []
        for value in ints { records.append(["int": value, "int64": value]) }
        records.append(["uint64": .string("18446744073709551615")])
        records.append(["uint64": .int(.max)])
        for value in doubles { records.append(["double": value, "float": value]) }
        for value in texts { records.append(["text": value]) }
        for value in dates { records.append(["date": value]) }
        // What `Decimal.description` writes at the ends of Decimal's range, and for `Decimal.nan`.
        let decimals = [
            Decimal.nan, .greatestFiniteMagnitude, .leastFiniteMagnitude, .leastNonzeroMagnitude, Decimal(Int64.min), Decimal(UInt64.max),
        ]
        for value in decimals { records.append(["decimal": .string(value.description)]) }
        records.append(["decimal": .int(.min)])
        return records
    }()

    /// Writes the store with FolioStorage alone.
    static func write(to url: URL) throws {
        let store = try Store.open(at: url, configuration: StoreConfiguration(compactionThreshold: nil))
        defer { store.close() }
        try store.write(author: "extremes") { tx in
            tx.setSchema(schema)
            for values in records { try tx.insert(entity: "Extreme", id: tx.allocateID(), values: values) }
        }
    }
}

/// A directory where a sparse file may claim `Int64.max` bytes (Linux's tmpfs), or nil.
private func sparseCapableDirectory() -> URL? {
    let base = URL(fileURLWithPath: "/dev/shm")
    let probe = base.appendingPathComponent("folio-cli-sparse-probe-\(UUID().uuidString)")
    guard FileManager.default.createFile(atPath: probe.path, contents: nil), let handle = try? FileHandle(forWritingTo: probe) else { return nil }
    defer {
        try? handle.close()
        try? FileManager.default.removeItem(at: probe)
    }
    return (try? handle.truncate(atOffset: UInt64(Int64.max))) != nil ? base : nil
}

/// `folio` given numbers at the ends of their types, on its command line and in the stores and files it
/// reads: each is a usage error, a typed failure or a defined result, never a crash.
@Suite("Extreme arguments and values on the command line", .serialized)
struct ExtremeArgumentTests {
    static let sparseBase = sparseCapableDirectory()

    static func expectUsageError(_ run: FolioRun, quoting text: String) {
        #expect(run.status == 64, "\(run)")
        #expect(run.stderr.contains("The value '\(text)' is invalid"), "\(run)")
    }

    @Test func countsAndOffsetsAtTheEndsOfIntAreUsedOrRefusedAsUsageErrors() throws {
        let store = DemoStore.path
        #expect(try folio("cat", store, "Trip", "--limit", "9223372036854775807", "--count").stdout == "3000\n")
        #expect(try folio("cat", store, "Trip", "--offset", "9223372036854775807", "--count").stdout == "0\n")
        #expect(try folio("cat", store, "Trip", "--offset", "2999", "--limit", "9223372036854775807").stdout.split(separator: "\n").count == 1)
        Self.expectUsageError(try folio("cat", store, "Trip", "--limit", "-9223372036854775808"), quoting: "-9223372036854775808")
        Self.expectUsageError(try folio("cat", store, "Trip", "--limit=9223372036854775808"), quoting: "9223372036854775808")
        Self.expectUsageError(try folio("cat", store, "Trip", "--offset", "-1"), quoting: "-1")
        #expect(try folio("log", store, "--max-count", "9223372036854775807", "--oneline").stdout.split(separator: "\n").count == 4)
        Self.expectUsageError(try folio("log", store, "-n", "-9223372036854775808"), quoting: "-9223372036854775808")
        let compacted = try folio("compact", try DemoStore.copy(into: ScratchDirectory()).path, "--keep-history", "9223372036854775807")
        #expect(compacted.status == 0, "\(compacted)")
    }

    @Test func identifiersAndDatesAtTheEndsOfTheirTypesFindNothingOrEverything() throws {
        let store = DemoStore.path
        for id in ["-9223372036854775808", "9223372036854775807", "0"] {
            let show = try folio("show", store, id)
            #expect(show.status == 1 && show.stderr.contains("No record with identifier \(id)"), "\(show)")
            let log = try folio("log", store, "--id", id, "--oneline")
            #expect(log.status == 0 && log.stdout.isEmpty, "\(log)")
        }
        Self.expectUsageError(try folio("show", store, "9223372036854775808"), quoting: "9223372036854775808")
        Self.expectUsageError(try folio("log", store, "--id", "-9223372036854775809"), quoting: "-9223372036854775809")
        for since in ["1e308d", "infd", "1.7976931348623157e308w", "0001-01-01"] {
            let log = try folio("log", store, "--since", since, "--oneline")
            #expect(log.status == 0 && log.stdout.split(separator: "\n").count == 4, "--since \(since): \(log)")
        }
        #expect(try folio("log", store, "--until", "0001-01-01", "--oneline").stdout.isEmpty)
        for invalid in ["nand", "-1d", "-infd", "99999-01-01"] {
            Self.expectUsageError(try folio("log", store, "--since", invalid), quoting: invalid)
        }
    }

    @Test func filterNumbersAtTheEndsOfDoubleCompareWithoutATrap() throws {
        let store = DemoStore.path
        let filters: [(String, String?)] = [
            ("price < 1e400", "3000"), ("price > -1e400", "3000"), ("price == 9223372036854775807", "0"),
            ("nights < -9223372036854775808", "0"), ("nights > 9223372036854775808", "0"), ("price >= 1e-400", "3000"),
            ("name contains 1e400", nil), ("startDate < 1e400", nil), ("price < nan", nil),
        ]
        for (filter, count) in filters {
            let run = try folio("cat", store, "Trip", "--where", filter, "--count")
            #expect(run.status == 0, "\(filter): \(run)")
            if let count { #expect(run.stdout == "\(count)\n", "\(filter)") }
        }
    }

    @Test func filtersNestedDeeperThanTheLimitAreAUsageErrorNotACrash() throws {
        let store = DemoStore.path
        let deepest = String(repeating: "(", count: 256) + "price < 1000" + String(repeating: ")", count: 256)
        let accepted = try folio("cat", store, "Trip", "--where", deepest, "--count")
        #expect(accepted.status == 0 && accepted.stdout != "0\n", "\(accepted)")
        for filter in [
            String(repeating: "(", count: 257) + "price < 1000" + String(repeating: ")", count: 257),
            String(repeating: "(", count: 50_000) + "price < 1000" + String(repeating: ")", count: 50_000),
            String(repeating: "not ", count: 30_000) + "price < 1000",
            String(repeating: "(not ", count: 20_000) + "price < 1000",
        ] {
            let run = try folio("cat", store, "Trip", "--where", filter, "--count")
            #expect(run.status == 64, "\(run.status): \(run.stderr.prefix(300))")
            #expect(run.stderr.contains("nested more than 256 deep"), "\(run.stderr.prefix(300))")
        }
    }

    /// `folio demo --sample-data DIR` reads whatever DIR holds: a caffeine amount of 1e300 is shown, not
    /// converted to an `Int`.
    @Test func sampleDataHoldingAHugeAmountRunsTheDemo() throws {
        let scratch = ScratchDirectory()
        defer { scratch.remove() }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let sample = scratch.appending("SampleData")
        try FileManager.default.copyItem(at: root.appendingPathComponent("SampleData"), to: sample)
        let recipes = sample.appendingPathComponent("recipes.jsonl")
        var edited = false
        let lines = try fileLines(recipes).map { line -> [UInt8] in
            guard !edited, case .object(var members) = try JSONReader().parse(line), (members["caffeine"]?.doubleValue ?? 0) > 0 else { return line }
            edited = true
            members["caffeine"] = .double(1e300)
            members["name"] = .string("Aaa Extreme Espresso")
            return try CanonicalJSONWriter().bytes(.object(members))
        }
        #expect(edited)
        try Data(lines.flatMap { $0 + [0x0A] }).write(to: recipes)
        let run = try folio("demo", "--sample-data", sample.path, "--store", scratch.appending("store").path)
        #expect(run.status == 0, "\(run.status): \(run.stderr)")
        #expect(run.stdout.contains("Aaa Extreme Espresso, "), "\(run.stdout.prefix(2000))")
        #expect(run.stdout.contains(" — 1e+300 mg caffeine"), "\(run.stdout.prefix(2000))")
    }

    /// Files that claim `Int64.max` bytes (sparse files on tmpfs): `info` and `compact` add the sizes up
    /// without overflowing.
    @Test(.enabled(if: sparseBase != nil, "needs a file system that holds a sparse file of Int64.max bytes (tmpfs)"))
    func sparseFilesOfInt64MaxBytesAreAddedUpWithoutATrap() throws {
        let directory = try #require(Self.sparseBase).appendingPathComponent("folio-cli-sparse-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = directory.appendingPathComponent("library")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try LibraryStore.write(to: store)
        // Files the loader never reads, but whose sizes `info` and `compact` report.
        try FileManager.default.createDirectory(at: store.appendingPathComponent("snapshots"), withIntermediateDirectories: true)
        for name in ["snapshots/notes.bin", "snapshots/more.bin"] {
            let url = store.appendingPathComponent(name)
            #expect(FileManager.default.createFile(atPath: url.path, contents: nil))
            let handle = try FileHandle(forWritingTo: url)
            try handle.truncate(atOffset: UInt64(Int64.max))
            try handle.close()
        }
        let info = try folio("info", store.path, "--json")
        #expect(info.status == 0, "\(info)")
        let object = try JSONReader().parse(info.stdout)
        #expect(object["totalBytes"] == .int(.max), "\(info.stdout)")
        #expect(object["files"]?["snapshots/notes.bin"] == .int(.max))
        let text = try folio("info", store.path)
        #expect(text.status == 0 && text.stdout.contains("8388608.0 TB"), "\(text)")
        let compact = try folio("compact", store.path)
        #expect(compact.status == 0, "\(compact)")
        #expect(compact.stdout.contains("size: 8388608.0 TB → "), "\(compact.stdout)")
    }

    /// A store holding every legal stored form at the ends of its type: `verify` finds nothing wrong, and
    /// `cat`, `export`, `show`, `log` and `info` show it; an export imported into a new store gives the
    /// same bytes back.
    @Test func aStoreOfExtremeValuesIsShownExportedAndVerifiedWithoutComplaint() throws {
        let scratch = ScratchDirectory()
        defer { scratch.remove() }
        let store = scratch.appending("extreme")
        try ExtremeStore.write(to: store)

        let verify = try folio("verify", store.path)
        #expect(verify.status == 0, "\(verify)")
        #expect(!verify.stdout.contains("problem  ") && !verify.stdout.contains("warning  "), "\(verify.stdout)")
        #expect(verify.stdout.contains("\(ExtremeStore.records.count) records, 1 entity"), "\(verify.stdout)")
        #expect(verify.stdout.hasSuffix("OK: no problems.\n"), "\(verify.stdout)")

        let cat = try folio("cat", store.path, "Extreme")
        #expect(cat.status == 0, "\(cat)")
        let shown = try cat.jsonLines().compactMap { $0["values"] }
        let written = try ExtremeStore.records.map { try CanonicalJSONWriter().bytes(.object($0)) }
        #expect(try shown.map { try CanonicalJSONWriter().bytes($0) } == written, "cat shows every value as stored, bit for bit")
        for fragment in [
            "\"int\":-9223372036854775808", "\"double\":-0.0", "\"double\":1.7976931348623157e+308", "\"date\":-1000000000000000.0",
            "\"double\":\"NaN\"", "\"uint64\":\"18446744073709551615\"", "\"double\":5e-324",
        ] {
            #expect(cat.stdout.contains(fragment), "\(fragment)")
        }
        for arguments in [
            ["cat", store.path, "Extreme", "--table"], ["cat", store.path, "Extreme", "--sort", "-double,date,int", "--table"],
            ["cat", store.path, "Extreme", "--where", "date < 2000-01-01 or double > 1e308 or int < -9223372036854775807"],
            ["export", store.path, "--format", "json"], ["export", store.path, "--format", "csv", "--entity", "Extreme"],
            ["log", store.path, "-p"], ["log", store.path, "--json", "-p"], ["info", store.path], ["schema", store.path],
        ] {
            let run = try folio(arguments: arguments)
            #expect(run.status == 0 && run.stderr.isEmpty, "\(arguments): \(run)")
        }
        for id in 1...ExtremeStore.records.count {
            let show = try folio("show", store.path, String(id))
            #expect(show.status == 0, "\(id): \(show)")
        }

        let export = try folio("export", store.path)
        #expect(export.status == 0 && export.stdout == cat.stdout, "export writes the lines cat writes")
        let copy = scratch.appending("copy")
        let imported = try folio("import", copy.path, "-", input: Data(export.stdout.utf8))
        #expect(imported.status == 0, "\(imported)")
        #expect(try folio("export", copy.path).stdout == export.stdout)
    }
}
