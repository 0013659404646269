import Foundation
import FolioStorage
import Testing
@testable import folio

/// Two small stores written with FolioStorage alone: A, and B = A plus one transaction that inserts,
/// changes and deletes records of two entities.
enum TripStores {
    static func schema(_ version: String) -> JSONValue {
        let text: JSONValue = .object(["kind": .string("attribute"), "type": .string("String")])
        let number: JSONValue = .object(["kind": .string("attribute"), "type": .string("Double")])
        return .object([
            "version": .string(version),
            "entities": .object([
                "Trip": .object(["properties": .object(["name": text, "price": number])]),
                "City": .object(["properties": .object(["name": text])]),
            ]),
        ])
    }

    static let configuration = StoreConfiguration(compactionThreshold: nil)

    /// A: Trip 3 Oslo 80.0, Trip 7 Rome 99.0, City 9 Lima (identifiers 1–11 allocated).
    static func writeA(to url: URL) throws {
        let store = try Store.open(at: url, configuration: configuration)
        defer { store.close() }
        try store.write(author: "setup") { t in
            t.setSchema(schema("1.0.0"))
            for _ in 1...11 { _ = t.allocateID() }
            try t.insert(entity: "Trip", id: 3, values: ["name": .string("Oslo"), "price": .double(80.0)])
            try t.insert(entity: "Trip", id: 7, values: ["name": .string("Rome"), "price": .double(99.0)])
            try t.insert(entity: "City", id: 9, values: ["name": .string("Lima")])
        }
    }

    /// B: A, then Trip 12 inserted, Trip 7 changed (price, and nights added), City 9 renamed, Trip 3 deleted.
    static func writeB(to url: URL, from a: URL) throws {
        try FileManager.default.copyItem(at: a, to: url)
        let store = try Store.open(at: url, configuration: configuration)
        defer { store.close() }
        try store.write(author: "editor") { t in
            try t.insert(entity: "Trip", id: t.allocateID(), values: ["name": .string("Lisbon"), "price": .double(120.0)])
            try t.update(entity: "Trip", id: 7, values: ["price": .double(120.0), "nights": .int(3)])
            try t.update(entity: "City", id: 9, values: ["name": .string("Cusco")])
            try t.delete(entity: "Trip", id: 3, tombstone: ["name": .string("Oslo")])
        }
    }

    /// A scratch directory holding stores `a` and `b`.
    static func make(_ scratch: ScratchDirectory) throws -> (a: URL, b: URL) {
        let a = scratch.appending("a"), b = scratch.appending("b")
        try writeA(to: a)
        try writeB(to: b, from: a)
        return (a, b)
    }

    static func write(to url: URL, _ body: (inout WriteTransaction) throws -> Void) throws {
        let store = try Store.open(at: url, configuration: configuration)
        defer { store.close() }
        try store.write(author: "test", body)
    }

    static func compact(_ url: URL) throws {
        let store = try Store.open(at: url, configuration: configuration)
        defer { store.close() }
        try store.compact()
    }

    /// The `time` member of each line of a journal or history file.
    static func times(_ url: URL) throws -> [String] {
        try fileLines(url).map { line in
            let members = try line.withUnsafeBufferPointer { try LineFraming.decode($0) }
            return try #require(members["time"]?.stringValue)
        }
    }
}

@Suite("folio diff")
struct DiffCommandTests {
    @Test func showsInsertedChangedAndDeletedRecordsPerEntityAndExits1() throws {
        let scratch = ScratchDirectory()
        defer { scratch.remove() }
        let (a, b) = try TripStores.make(scratch)
        let run = try folio("diff", a.path, b.path)
        #expect(run.status == 1, "\(run)")
        #expect(run.stderr.isEmpty, "\(run)")
        #expect(
            run.stdout == """
                City
                  ~ 9  name "Lima" → "Cusco"
                Trip
                  - 3   name "Oslo"
                  ~ 7   nights (none) → 3  price 99.0 → 120.0
                  + 12  name "Lisbon"  price 120.0
                1 inserted, 2 changed, 1 deleted in 2 entities; schema unchanged

                """)
        // The other way round: the insert is a delete, the attribute added is one removed.
        let back = try folio("diff", b.path, a.path, "--all")
        #expect(back.status == 1)
        #expect(back.stdout.contains("  + 3   name \"Oslo\"  price 80.0\n"), "\(back)")
        #expect(back.stdout.contains("  ~ 7   nights 3 → (none)  price 120.0 → 99.0\n"), "\(back)")
        #expect(back.stdout.contains("  - 12  name \"Lisbon\"  price 120.0\n"), "--all shows every value of a deleted record: \(back)")
    }

    @Test func markdownShowsATablePerEntityForAPullRequest() throws {
        let scratch = ScratchDirectory()
        defer { scratch.remove() }
        let (a, b) = try TripStores.make(scratch)
        let run = try folio("diff", a.path, b.path, "--markdown")
        #expect(run.status == 1, "\(run)")
        #expect(
            run.stdout == """
                ### Folio: `\(a.path) → \(b.path)`

                1 inserted, 2 changed, 1 deleted in 2 entities; schema unchanged.

                #### City: 1 changed

                | | id | attributes |
                |---|--:|---|
                | changed | 9 | `name` `"Lima"` → `"Cusco"` |

                #### Trip: 1 inserted, 1 changed, 1 deleted

                | | id | attributes |
                |---|--:|---|
                | deleted | 3 | `name` `"Oslo"`<br>`price` `80.0` |
                | changed | 7 | `nights` _(none)_ → `3`<br>`price` `99.0` → `120.0` |
                | inserted | 12 | `name` `"Lisbon"`<br>`price` `120.0` |

                """, "\(run)")
        let both = try folio("diff", a.path, b.path, "--markdown", "--json")
        #expect(both.status == 64 && both.stderr.contains("not both"), "\(both)")
    }

    @Test func markdownIsBoundedAndShowsHostileValuesAsText() throws {
        let scratch = ScratchDirectory()
        defer { scratch.remove() }
        let a = scratch.appending("a"), b = scratch.appending("b")
        try TripStores.writeA(to: a)
        try FileManager.default.copyItem(at: a, to: b)
        let hostile = "a|b `code` <script>alert(1)</script>\nnext line"
        try TripStores.write(to: b) { t in
            try t.update(entity: "Trip", id: 7, values: ["name": .string(hostile), "price": .string(String(repeating: "x", count: 500))])
            for index in 0..<30 { try t.insert(entity: "City", id: t.allocateID(), values: ["name": .string("City \(index)")]) }
        }
        let run = try folio("diff", a.path, b.path, "--markdown", "--max-rows", "10")
        #expect(run.status == 1, "\(run)")
        let lines = run.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let rows = lines.filter { $0.hasPrefix("| inserted") || $0.hasPrefix("| changed") || $0.hasPrefix("| deleted") }
        #expect(rows.count == 10, "\(run.stdout)")
        #expect(lines.contains("_20 more records of City not shown._"), "\(run.stdout)")
        #expect(lines.contains("_1 record of Trip not shown._") && !lines.contains("#### Trip: 1 changed\n\n| | id | attributes |"), "\(run.stdout)")
        #expect(lines.contains("_Showing 10 of 31 changed records: run `folio diff` for all of them._"), "\(run.stdout)")

        let wide = try folio("diff", a.path, b.path, "--markdown", "--max-rows", "100")
        let trip = try #require(wide.stdout.split(separator: "\n").first { $0.hasPrefix("| changed | 7 |") }, "\(wide)")
        // Every cell separator is one the table put there: the value's own bar is escaped, its HTML and
        // line break stay inside a code span, and the long value is cut with its length said.
        #expect(trip.replacingOccurrences(of: "\\|", with: "").filter { $0 == "|" }.count == 4, "\(trip)")
        #expect(trip.contains(#"→ ``"a\|b `code` <script>alert(1)</script>\nnext line"``<br>"#), "\(trip)")
        #expect(trip.contains("… _(502 characters)_"), "\(trip)")
        #expect(!trip.contains(String(repeating: "x", count: 81)), "\(trip)")
    }

    @Test func identicalStoresExit0EvenWhenOneIsCompacted() throws {
        let scratch = ScratchDirectory()
        defer { scratch.remove() }
        let (_, b) = try TripStores.make(scratch)
        let copy = scratch.appending("copy")
        try FileManager.default.copyItem(at: b, to: copy)
        try TripStores.compact(copy)
        let run = try folio("diff", b.path, copy.path)
        #expect(run.status == 0, "\(run)")
        #expect(run.stdout == "No records differ; schema unchanged\n")
        let json = try folio("diff", b.path, copy.path, "--json")
        #expect(json.status == 0)
        #expect(try json.jsonLines().first?.objectValue?["equal"] == .bool(true))
    }

    @Test func aChangedSchemaIsReportedAndMakesTheStoresDiffer() throws {
        let scratch = ScratchDirectory()
        defer { scratch.remove() }
        let (a, _) = try TripStores.make(scratch)
        let c = scratch.appending("c")
        try FileManager.default.copyItem(at: a, to: c)
        try TripStores.write(to: c) { $0.setSchema(TripStores.schema("2.0.0")) }
        let run = try folio("diff", a.path, c.path)
        #expect(run.status == 1, "\(run)")
        #expect(run.stdout == "No records differ; schema 1.0.0 → 2.0.0\n")
    }

    @Test func jsonListsEveryChangeWithOldAndNewValues() throws {
        let scratch = ScratchDirectory()
        defer { scratch.remove() }
        let (a, b) = try TripStores.make(scratch)
        let run = try folio("diff", a.path, b.path, "--json")
        #expect(run.status == 1, "\(run)")
        let lines = try run.jsonLines()
        #expect(lines.count == 1)
        let expected = try JSONReader().parse(
            #"""
            {"changes":[
              {"entity":"City","id":9,"kind":"update","new":{"name":"Cusco"},"old":{"name":"Lima"}},
              {"entity":"Trip","id":3,"kind":"delete","values":{"name":"Oslo","price":80.0}},
              {"entity":"Trip","id":7,"kind":"update","new":{"nights":3,"price":120.0},"old":{"price":99.0}},
              {"entity":"Trip","id":12,"kind":"insert","values":{"name":"Lisbon","price":120.0}}],
             "deleted":1,"entities":["City","Trip"],"equal":false,"inserted":1,
             "schema":{"changed":false,"new":"1.0.0","old":"1.0.0"},"updated":2}
            """#)
        #expect(lines.first == expected)
    }

    @Test func entityOptionLimitsTheComparisonToThatEntity() throws {
        let scratch = ScratchDirectory()
        defer { scratch.remove() }
        let (a, b) = try TripStores.make(scratch)
        let city = try folio("diff", a.path, b.path, "--entity", "City")
        #expect(city.status == 1)
        #expect(
            city.stdout == """
                City
                  ~ 9  name "Lima" → "Cusco"
                0 inserted, 1 changed, 0 deleted in 1 entity; schema unchanged

                """, "\(city)")
        // Records of other entities that differ do not count.
        let c = scratch.appending("c")
        try FileManager.default.copyItem(at: a, to: c)
        try TripStores.write(to: c) { try $0.update(entity: "Trip", id: 7, values: ["price": .double(1.0)]) }
        let unchanged = try folio("diff", a.path, c.path, "--entity", "City")
        #expect(unchanged.status == 0, "\(unchanged)")
        #expect(unchanged.stdout == "No records differ; schema unchanged\n")
        let unknown = try folio("diff", a.path, b.path, "--entity", "Trp")
        #expect(unknown.status == 64)
        #expect(unknown.stderr.contains("Did you mean 'Trip'?"), "\(unknown)")
    }

    @Test func aDamagedStoreExits2NamingTheFileAndLine() throws {
        let scratch = ScratchDirectory()
        defer { scratch.remove() }
        let (a, b) = try TripStores.make(scratch)
        try editFile(b.appendingPathComponent("journal.jsonl")) { bytes in
            // A byte of the second line's values: the checksum no longer matches.
            let second = (bytes.firstIndex(of: 0x0A) ?? 0) + 60
            bytes[second] = bytes[second] == UInt8(ascii: "x") ? UInt8(ascii: "y") : UInt8(ascii: "x")
        }
        let run = try folio("diff", a.path, b.path)
        #expect(run.status == 2, "\(run)")
        #expect(run.stdout.isEmpty)
        #expect(run.stderr.contains("Error: The store at '\(b.path)' cannot be opened"), "\(run)")
        #expect(run.stderr.contains("journal.jsonl:2"), "\(run)")
        #expect(run.stderr.contains("[checksumMismatch]"), "\(run)")
        #expect(run.stderr.contains("Help: "))
        let missing = try folio("diff", scratch.appending("nothing").path, b.path)
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("Error: No store at"))
    }
}

@Suite("folio textconv")
struct TextconvCommandTests {
    static func textconv(_ url: URL) throws -> FolioRun {
        try folio("textconv", url.path)
    }

    /// B with a third transaction: a migration renaming `nights` to `stays`.
    static func migratedStore(_ scratch: ScratchDirectory) throws -> URL {
        let (_, b) = try TripStores.make(scratch)
        try TripStores.write(to: b) { t in
            try t.migrate(RecordMigration(entity: "Trip", renamedMembers: ["nights": "stays"], removedMembers: ["legacy"]))
        }
        return b
    }

    static func expectedTransactions(times: [String]) -> String {
        """
        transaction 1  \(times[0])  author setup
          insert Trip 3 name = "Oslo"
          insert Trip 3 price = 80.0
          insert Trip 7 name = "Rome"
          insert Trip 7 price = 99.0
          insert City 9 name = "Lima"
          schema changed
        transaction 2  \(times[1])  author editor
          insert Trip 12 name = "Lisbon"
          insert Trip 12 price = 120.0
          update Trip 7 nights = 3
          update Trip 7 price = 120.0
          update City 9 name = "Cusco"
          delete Trip 3
        transaction 3  \(times[2])  author test
          migrate Trip: remove legacy; rename nights → stays

        """
    }

    @Test func aJournalShowsOneChangedAttributePerLine() throws {
        let scratch = ScratchDirectory()
        defer { scratch.remove() }
        let store = try Self.migratedStore(scratch)
        let journal = store.appendingPathComponent("journal.jsonl")
        let run = try Self.textconv(journal)
        #expect(run.status == 0, "\(run)")
        #expect(run.stdout == Self.expectedTransactions(times: try TripStores.times(journal)), "\(run)")
        #expect(run.stderr.isEmpty)
    }

    @Test func aFileNamedLikeAnOptionIsReadAfterTheSeparator() throws {
        let scratch = ScratchDirectory()
        defer { scratch.remove() }
        let store = try Self.migratedStore(scratch)
        let journal = store.appendingPathComponent("journal.jsonl")
        let odd = store.appendingPathComponent("-n.jsonl")
        try FileManager.default.copyItem(at: journal, to: odd)
        // git runs the configured command with the path appended: `folio textconv -- -n.jsonl`.
        let run = try folio("textconv", "--", "-n.jsonl", directory: store)
        #expect(run.status == 0, "\(run)")
        #expect(run.stdout == Self.expectedTransactions(times: try TripStores.times(journal)), "\(run)")
    }

    @Test func snapshotHistoryAndManifestAfterACompaction() throws {
        let scratch = ScratchDirectory()
        defer { scratch.remove() }
        let store = try Self.migratedStore(scratch)
        let times = try TripStores.times(store.appendingPathComponent("journal.jsonl"))
        try TripStores.compact(store)

        let trip = try Self.textconv(store.appendingPathComponent("snapshots/Trip.jsonl"))
        #expect(trip.status == 0)
        #expect(
            trip.stdout == """
                snapshot Trip: 2 records at sequence 3
                Trip 7 name = "Rome"
                Trip 7 price = 120.0
                Trip 7 stays = 3
                Trip 12 name = "Lisbon"
                Trip 12 price = 120.0

                """, "\(trip)")
        let city = try Self.textconv(store.appendingPathComponent("snapshots/City.jsonl"))
        #expect(city.stdout == "snapshot City: 1 record at sequence 2\nCity 9 name = \"Cusco\"\n", "\(city)")

        let history = try Self.textconv(store.appendingPathComponent("history.jsonl"))
        #expect(history.status == 0)
        #expect(history.stdout == Self.expectedTransactions(times: times), "\(history)")

        func size(_ name: String) throws -> Int {
            try #require(try FileManager.default.attributesOfItem(atPath: store.appendingPathComponent(name).path)[.size] as? Int)
        }
        let manifest = try Self.textconv(store.appendingPathComponent("manifest.json"))
        #expect(manifest.status == 0)
        #expect(
            manifest.stdout == """
                format = "folio-store"
                nextID = 13
                schema entities = ["City","Trip"]
                schema version = "1.0.0"
                sequence = 3
                snapshotBytes City = \(try size("snapshots/City.jsonl"))
                snapshotBytes Trip = \(try size("snapshots/Trip.jsonl"))
                version = 1

                """, "\(manifest)")

        // Git's temporary copies keep only the file's name: the lines are recognised by their members.
        let copies = scratch.appending("git-blob-123456")
        try FileManager.default.createDirectory(at: copies, withIntermediateDirectories: true)
        for (file, copy) in [("snapshots/Trip.jsonl", "Trip.jsonl"), ("history.jsonl", "other.jsonl")] {
            try FileManager.default.copyItem(at: store.appendingPathComponent(file), to: copies.appendingPathComponent(copy))
        }
        #expect(try Self.textconv(copies.appendingPathComponent("Trip.jsonl")).stdout == trip.stdout)
        #expect(try Self.textconv(copies.appendingPathComponent("other.jsonl")).stdout == history.stdout)
    }

    @Test func linesItCannotReadArePrintedAsTheyAreAndItExits0() throws {
        let scratch = ScratchDirectory()
        defer { scratch.remove() }
        let store = try Self.migratedStore(scratch)
        let journal = store.appendingPathComponent("journal.jsonl")
        let times = try TripStores.times(journal)
        var lines = try fileLines(journal)
        // A flipped byte in the second line's values, a line of garbage, and a torn last line.
        lines[1][60] = lines[1][60] == UInt8(ascii: "x") ? UInt8(ascii: "y") : UInt8(ascii: "x")
        lines.insert(Array("not a folio line at all".utf8), at: 2)
        let damaged = scratch.appending("journal.jsonl")
        try Data(lines.joined(separator: [0x0A]) + [0x0A] + Array(#"{"$crc":"0000"#.utf8)).write(to: damaged)
        let run = try Self.textconv(damaged)
        #expect(run.status == 0, "\(run)")
        let expected = Self.expectedTransactions(times: times).split(separator: "\n", omittingEmptySubsequences: false)
        let secondLine = String(decoding: lines[1], as: UTF8.self)
        // Transaction 1 (7 lines), line 2 as it is, the garbage, transaction 3 (2 lines), the torn tail.
        let wanted =
            expected[0..<7].joined(separator: "\n") + "\n" + secondLine + "\nnot a folio line at all\n"
            + expected[14...].joined(separator: "\n") + "{\"$crc\":\"0000\n"
        #expect(run.stdout == wanted, "\(run)")

        let empty = scratch.appending("empty.jsonl")
        try Data().write(to: empty)
        let emptyRun = try Self.textconv(empty)
        #expect(emptyRun.status == 0 && emptyRun.stdout.isEmpty && emptyRun.stderr.isEmpty, "\(emptyRun)")

        let binaryBytes: [UInt8] = [0x00, 0x01, 0xFF, 0xFE, 0x0A, 0x7F, 0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A]
        let binary = scratch.appending("snapshots/Trip.jsonl")
        try FileManager.default.createDirectory(at: binary.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(binaryBytes).write(to: binary)
        let binaryRun = try Self.textconv(binary)
        #expect(binaryRun.status == 0, "\(binaryRun)")
        // Each segment as it is (a `\r` before a `\n` is not part of a line), each ending in `\n`.
        let expectedBytes: [UInt8] = [0x00, 0x01, 0xFF, 0xFE, 0x0A, 0x7F, 0x89, 0x50, 0x4E, 0x47, 0x0A, 0x1A, 0x0A]
        #expect(binaryRun.stdout == String(decoding: expectedBytes, as: UTF8.self), "\(binaryRun)")

        for missing in [scratch.appending("nothing.jsonl"), scratch.url] {
            let run = try Self.textconv(missing)
            #expect(run.status == 0, "\(run)")
            #expect(run.stdout.isEmpty, "\(run)")
        }
    }

    @Test func aLineLongerThanTheLimitIsReplacedByANoteAndTheRestIsShown() throws {
        let scratch = ScratchDirectory()
        defer { scratch.remove() }
        let file = scratch.appending("k.jsonl")
        let record = try LineFraming.encode(["id": .int(4), "values": .object(["a": .int(1)])])
        let long = [UInt8](repeating: UInt8(ascii: "z"), count: 100)
        try Data(long + [0x0A] + record + long).write(to: file)
        var output: [UInt8] = []
        let problem = StoreFileText.convert(path: file.path, maximumLineBytes: 60) { output += $0 }
        #expect(problem == nil)
        #expect(
            String(decoding: output, as: UTF8.self) == """
                (line 1 is longer than 60 bytes: not shown)
                k 4 a = 1
                (line 3 is longer than 60 bytes: not shown)

                """)
    }
}

@Suite("folio textconv with git")
struct TextconvGitTests {
    static let gitExecutable = URL(fileURLWithPath: "/usr/bin/git")

    /// Runs git in `directory` with no user or system configuration.
    static func git(_ arguments: String..., in directory: URL) throws -> FolioRun {
        let environment = [
            "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": "/dev/null", "HOME": directory.path, "GIT_PAGER": "cat",
            "GIT_AUTHOR_NAME": "Test", "GIT_AUTHOR_EMAIL": "test@example.com", "GIT_COMMITTER_NAME": "Test",
            "GIT_COMMITTER_EMAIL": "test@example.com",
        ]
        let result = try run(gitExecutable, arguments: arguments, environment: environment, directory: directory)
        try #require(result.status == 0, "git \(arguments.joined(separator: " ")): \(result)")
        return result
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/git")))
    func gitDiffShowsTheChangedAttributeOfACompactedSnapshot() throws {
        let scratch = ScratchDirectory()
        defer { scratch.remove() }
        let executable = try #require(folioExecutable())
        let repository = scratch.appending("repo")
        let store = repository.appendingPathComponent("Trips.folio")
        try FileManager.default.createDirectory(at: repository, withIntermediateDirectories: true)
        try TripStores.write(to: store) { t in
            for number in 1...8 {
                let id = t.allocateID()
                try t.insert(entity: "Trip", id: id, values: ["name": .string("Trip \(number)"), "price": .double(id == 7 ? 99.0 : 50.0)])
            }
        }
        try TripStores.compact(store)
        let attributes = "*.jsonl diff=folio\nmanifest.json diff=folio\nlock -diff\n"
        try Data(attributes.utf8).write(to: repository.appendingPathComponent(".gitattributes"))
        _ = try Self.git("init", "-q", "-b", "main", in: repository)
        _ = try Self.git("config", "diff.folio.textconv", "\(executable.path) textconv --", in: repository)
        _ = try Self.git("add", "-A", in: repository)
        _ = try Self.git("commit", "-q", "-m", "eight trips", in: repository)

        try TripStores.write(to: store) { try $0.update(entity: "Trip", id: 7, values: ["price": .double(120.0)]) }
        try TripStores.compact(store)
        let diff = try Self.git("diff", in: repository)
        #expect(!diff.stdout.contains("$crc"), "\(diff)")
        // The snapshot's section: only its header and the one attribute changed.
        let sections = diff.stdout.components(separatedBy: "diff --git ")
        let snapshot = try #require(sections.first { $0.hasPrefix("a/Trips.folio/snapshots/Trip.jsonl") }, "\(diff)")
        let changed = snapshot.split(separator: "\n").filter {
            ($0.hasPrefix("-") && !$0.hasPrefix("---")) || ($0.hasPrefix("+") && !$0.hasPrefix("+++"))
        }
        #expect(
            changed == [
                "-snapshot Trip: 8 records at sequence 1", "+snapshot Trip: 8 records at sequence 2",
                "-Trip 7 price = 99.0", "+Trip 7 price = 120.0",
            ], "\(snapshot)")
        // The history gained the transaction, readably.
        let history = try #require(sections.first { $0.hasPrefix("a/Trips.folio/history.jsonl") }, "\(diff)")
        #expect(history.contains("\n+  update Trip 7 price = 120.0\n"), "\(history)")
    }
}
