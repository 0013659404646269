import Foundation
import FolioStorage
import Testing

@Suite("verify, repair and compact on healthy and damaged stores")
struct VerifyRepairTests {
    /// Appends bytes without a newline: an interrupted append.
    static func tearTail(_ store: URL) throws {
        try editFile(store.appendingPathComponent("journal.jsonl")) { $0 += Array("{\"$crc\":\"0000".utf8) }
    }

    /// Flips one bit in the middle of the journal's last line.
    static func flipByte(_ store: URL) throws {
        try editFile(store.appendingPathComponent("journal.jsonl")) { bytes in
            let lastStart = (bytes.dropLast().lastIndex(of: 0x0A) ?? -1) + 1
            bytes[lastStart + 60] ^= 0x01
        }
    }

    /// Wraps the last journal line in git conflict markers, with "their" version of the transaction.
    static func addConflictMarkers(_ store: URL) throws {
        let journal = store.appendingPathComponent("journal.jsonl")
        var lines = try fileLines(journal)
        let ours = lines.removeLast()
        let conflict: [[UInt8]] = [Array("<<<<<<< HEAD".utf8), ours, Array("=======".utf8), ours, Array(">>>>>>> theirs".utf8)]
        try Data((lines + conflict).flatMap { $0 + [0x0A] }).write(to: journal)
    }

    @Test func aHealthyStorePassesEveryCheck() throws {
        let scratch = ScratchDirectory()
        defer { scratch.remove() }
        let store = scratch.appending("library")
        try LibraryStore.write(to: store)
        let run = try folio("verify", store.path)
        #expect(run.status == 0, "\(run)")
        #expect(run.stdout.contains("5 records, 2 entities, 2 transactions, 6 references, 1 unique constraint, 1 blob."))
        #expect(run.stdout.hasSuffix("OK: no problems.\n"))
    }

    @Test func aSnapshotCacheThatCannotBeUsedIsANoteNotAProblem() throws {
        let scratch = ScratchDirectory()
        defer { scratch.remove() }
        let store = try DemoStore.copy(into: scratch)
        let cache = store.appendingPathComponent("cache")
        try FileManager.default.createDirectory(at: cache, withIntermediateDirectories: true)
        try Data("not a cache".utf8).write(to: cache.appendingPathComponent("Trip.snapshot-cache"))
        let verify = try folio("verify", store.path)
        #expect(verify.status == 0, "\(verify)")
        #expect(verify.stdout.contains("warning  cache/Trip.snapshot-cache is foreign"), "\(verify.stdout)")
        #expect(verify.stdout.contains("it is rebuilt when the records are next loaded"))
    }

    @Test func aTornTailIsAWarningAndRepairMovesItAside() throws {
        let scratch = ScratchDirectory()
        defer { scratch.remove() }
        let store = try DemoStore.copy(into: scratch)
        try Self.tearTail(store)
        let verify = try folio("verify", store.path)
        #expect(verify.status == 0, "\(verify)")
        #expect(verify.stdout.contains("warning  journal.jsonl:5"))
        #expect(verify.stdout.contains("incomplete last line"))
        #expect(try folio("info", store.path).stderr.contains("Warning: "))
        // Readers ignore the torn line: every record and transaction is still there.
        #expect(try folio("cat", store.path, "Trip", "--count").stdout == "3000\n")
        #expect(try folio("log", store.path, "--oneline").stdout.split(separator: "\n").count == 4)
        #expect(try folio("export", store.path).stdout.split(separator: "\n").count == 5007)
        let repair = try folio("repair", store.path)
        #expect(repair.status == 0, "\(repair)")
        #expect(repair.stdout.contains("Backed up the store's files to \(store.path).backup-"))
        #expect(repair.stdout.contains("moved the incomplete last line of \(store.path)/journal.jsonl (line 5, 13 bytes"))
        #expect(FileManager.default.fileExists(atPath: store.path + "/journal.jsonl.corrupt-tail"))
        let after = try folio("verify", store.path)
        #expect(after.status == 0)
        #expect(!after.stdout.contains("warning"))
    }

    @Test func aFlippedByteFailsVerifyAndRepairSetsTheLineAsideAfterABackup() throws {
        let scratch = ScratchDirectory()
        defer { scratch.remove() }
        let store = try DemoStore.copy(into: scratch)
        try Self.flipByte(store)
        let original = try Data(contentsOf: store.appendingPathComponent("journal.jsonl"))
        let verify = try folio("verify", store.path)
        #expect(verify.status == 1, "\(verify)")
        #expect(verify.stdout.contains("problem  journal.jsonl:4 (byte "))
        #expect(verify.stdout.contains("[checksumMismatch]"))
        #expect(verify.stdout.contains("FAILED: 1 problem"))
        let json = try #require(try verify.jsonLinesOf(folio("verify", store.path, "--json")).first?.objectValue)
        #expect(json["healthy"]?.boolValue == false)
        #expect(json["problems"]?.arrayValue?.first?.objectValue?["code"]?.stringValue == "checksumMismatch")
        // Other commands refuse with a remedy.
        let cat = try folio("cat", store.path, "Trip")
        #expect(cat.status == 1)
        #expect(cat.stderr.contains("Help: Run 'folio verify"))

        let dryRun = try folio("repair", store.path, "--dry-run")
        #expect(dryRun.status == 0, "\(dryRun)")
        #expect(dryRun.stdout.contains("moved line 4 of \(store.path)/journal.jsonl to \(store.path)/journal.jsonl.damaged"))
        #expect(try Data(contentsOf: store.appendingPathComponent("journal.jsonl")) == original, "a dry run changes nothing")

        let backup = scratch.appending("backup")
        let repair = try folio("repair", store.path, "--backup", backup.path)
        #expect(repair.status == 0, "\(repair)")
        #expect(repair.stdout.contains("Backed up the store's files to \(backup.path)"))
        #expect(try Data(contentsOf: backup.appendingPathComponent("journal.jsonl")) == original)
        #expect(repair.stdout.contains("moved line 4 of"))
        #expect(repair.stdout.contains("The store now verifies"))
        #expect(FileManager.default.fileExists(atPath: store.path + "/journal.jsonl.damaged"))
        #expect(try folio("verify", store.path).status == 0)
    }

    @Test func mergeConflictMarkersAreFoundAndRepaired() throws {
        let scratch = ScratchDirectory()
        defer { scratch.remove() }
        let store = try DemoStore.copy(into: scratch)
        try Self.addConflictMarkers(store)
        let verify = try folio("verify", store.path)
        #expect(verify.status == 1, "\(verify)")
        #expect(verify.stdout.contains("[mergeConflict]"))
        let info = try folio("info", store.path)
        #expect(info.status == 1)
        #expect(info.stderr.contains("merge-conflict markers: see docs/git.md"))
        let repair = try folio("verify", store.path, "--repair")
        #expect(repair.stdout.contains("Backed up the store's files"), "\(repair)")
        let after = try folio("verify", store.path)
        #expect(after.status == 0, "\(after)")
    }

    /// Two copies of a store each save a transaction; git joins their journals with conflict markers.
    @Test func aGitMergeOfTheJournalIsResolvedByReplayingTheirTransactions() throws {
        let scratch = ScratchDirectory()
        defer { scratch.remove() }
        let ours = scratch.appending("ours")
        try LibraryStore.write(to: ours)
        let theirs = scratch.appending("theirs")
        try FileManager.default.copyItem(at: ours, to: theirs)
        try LibraryStore.append(to: ours) { t in
            let id = t.allocateID()
            try t.insert(
                entity: "Book", id: id,
                values: [
                    "title": .string("The Dispossessed"), "pages": .int(341), "price": .double(14.0),
                    "published": .string("1974-05-01T00:00:00Z"), "author": .int(1),
                ])
        }
        try LibraryStore.append(to: theirs) { t in
            let author = t.allocateID(), book = t.allocateID()
            try t.insert(entity: "Author", id: author, values: ["name": .string("Italo Calvino"), "books": .array([.int(book)])])
            try t.insert(
                entity: "Book", id: book,
                values: [
                    "title": .string("Invisible Cities"), "pages": .int(165), "price": .double(13.0),
                    "published": .string("1972-11-01T00:00:00Z"), "author": .int(author),
                ])
        }
        let journal = ours.appendingPathComponent("journal.jsonl")
        let ourLines = try fileLines(journal), theirLines = try fileLines(theirs.appendingPathComponent("journal.jsonl"))
        let merged =
            Array(ourLines.prefix(2)) + [
                Array("<<<<<<< HEAD".utf8), ourLines[2], Array("=======".utf8), theirLines[2],
                Array(">>>>>>> theirs".utf8),
            ]
        try Data(merged.flatMap { $0 + [0x0A] }).write(to: journal)
        #expect(try folio("verify", ours.path).status == 1)

        let repair = try folio("repair", ours.path)
        #expect(repair.status == 0, "\(repair)")
        #expect(repair.stdout.contains("removed 3 git conflict marker lines"))
        #expect(
            repair.stdout.contains(
                "replayed the 1 transaction of the other side (sequence 3–3 after 2) as 4–4, giving their 2 new records the identifiers 7–8"))
        let verify = try folio("verify", ours.path)
        #expect(verify.status == 0, "\(verify)")
        let calvino = try #require(try folio("cat", ours.path, "Author", "--where", "name contains calvino").jsonLines().first?.objectValue)
        #expect(calvino["id"]?.intValue == 7)
        #expect(calvino["values"]?.objectValue?["books"] == .array([.int(8)]))
        #expect(try folio("cat", ours.path, "Book", "--count").stdout == "5\n")
        #expect(try folio("log", ours.path, "--oneline").stdout.split(separator: "\n").count == 4)
    }

    @Test func modelChecksFindDanglingReferencesWrongEntitiesAndUniqueViolations() throws {
        let scratch = ScratchDirectory()
        defer { scratch.remove() }
        let store = scratch.appending("library")
        try LibraryStore.write(to: store)
        try LibraryStore.append(to: store) { t in
            let id = t.allocateID()
            try t.insert(entity: "Author", id: id, values: ["name": .string("Tove Jansson"), "books": .array([.int(1)])])
            try t.update(entity: "Book", id: 3, values: ["author": .int(999)])
            let old = t.allocateID()
            try t.insert(
                entity: "Book", id: old,
                values: [
                    "name": .string("Stored under the original name"), "pages": .int(1), "price": .double(1),
                    "published": .string("1970-01-01T00:00:00Z"), "subtitle": .string("?"),
                ])
        }
        let run = try folio("verify", store.path)
        #expect(run.status == 1, "\(run)")
        #expect(run.stdout.contains("Book 3: [danglingReference] 'author' refers to record 999, which does not exist"))
        #expect(run.stdout.contains("Author 6: [wrongEntity] 'books' refers to Author 1, but it holds Book records"))
        #expect(run.stdout.contains("Author 6: [uniqueViolation] name = [\"Tove Jansson\"] is also held by Author 2"))
        #expect(run.stdout.contains("warning  Author 1.books refers to Book 3, whose inverse 'author' does not refer back"))
        #expect(run.stdout.contains("Book 7: [unknownProperty] property 'subtitle' is not declared by Book"))
        #expect(!run.stdout.contains("property 'name' is not declared"), "values under a property's originalName are known")
        #expect(run.stdout.contains("'folio repair' does not change records"))
    }

    @Test func valuesNotOfTheirDeclaredTypesAreProblems() throws {
        let scratch = ScratchDirectory()
        defer { scratch.remove() }
        let store = scratch.appending("library")
        try LibraryStore.write(to: store)
        #expect(try folio("verify", store.path).status == 0)
        try LibraryStore.append(to: store) { t in
            try t.update(entity: "Book", id: 3, values: ["pages": .string("many"), "price": .bool(true), "published": .int(1)])
            let id = t.allocateID()
            try t.insert(
                entity: "Book", id: id,
                values: [
                    "title": .null, "pages": .int(1), "price": .string("NaN"),
                    "published": .string("yesterday"), "cover": .string("not base64!"),
                ])
        }
        let run = try folio("verify", store.path)
        #expect(run.status == 1, "\(run)")
        #expect(run.stdout.contains("Book 3: [wrongType] 'pages' holds \"many\" is not a stored Int"))
        #expect(run.stdout.contains("Book 3: [wrongType] 'price' holds true is not a stored Double"))
        #expect(!run.stdout.contains("'published' holds 1"), "a date no text holds exactly is stored as seconds")
        #expect(run.stdout.contains("[wrongType] 'title' holds null, but String is not optional"))
        #expect(run.stdout.contains("[wrongType] 'published' holds \"yesterday\" is not a stored Date"))
        #expect(run.stdout.contains("[wrongType] 'cover' holds \"not base64!\" is not a stored Data"))
        #expect(!run.stdout.contains("'price' holds \"NaN\""), "non-finite doubles are stored as text")
    }

    @Test func missingAndDamagedBlobsAreProblems() throws {
        let scratch = ScratchDirectory()
        defer { scratch.remove() }
        let store = scratch.appending("library")
        let hash = try LibraryStore.write(to: store)
        let blob = store.appendingPathComponent("blobs/\(hash.prefix(2))/\(hash)")
        try Data("another image".utf8).write(to: blob)
        let damaged = try folio("verify", store.path)
        #expect(damaged.status == 1, "\(damaged)")
        #expect(damaged.stdout.contains("[blobNotFound] blob \(hash) is damaged"))
        #expect(damaged.stdout.contains("(referred to by Book 3)"))
        try FileManager.default.removeItem(at: blob)
        let missing = try folio("verify", store.path)
        #expect(missing.status == 1)
        #expect(missing.stdout.contains("blob \(hash) is missing"))
    }

    @Test func commandsThatReadOrWriteRefuseADamagedStoreWithARemedy() throws {
        let scratch = ScratchDirectory()
        defer { scratch.remove() }
        let store = try DemoStore.copy(into: scratch)
        try Self.flipByte(store)
        let before = try Data(contentsOf: store.appendingPathComponent("journal.jsonl"))
        for arguments in [
            ["compact", store.path], ["export", store.path], ["log", store.path], ["show", store.path, "1"],
            ["import", store.path, "-"],
        ] {
            let run = try folio(arguments: arguments, input: Data())
            #expect(run.status == 1, "\(arguments): \(run)")
            #expect(run.stderr.contains("Error: The store at"), "\(arguments)")
            #expect(run.stderr.contains("[checksumMismatch]"), "\(arguments)")
            #expect(run.stderr.contains("Help: Run 'folio verify"), "\(arguments)")
            #expect(run.stdout.isEmpty, "\(arguments)")
        }
        #expect(try Data(contentsOf: store.appendingPathComponent("journal.jsonl")) == before)
    }

    @Test func compactFoldsTheJournalAndKeepsEveryRecord() throws {
        let scratch = ScratchDirectory()
        defer { scratch.remove() }
        let store = try DemoStore.copy(into: scratch)
        let before = try folio("export", store.path)
        let run = try folio("compact", store.path)
        #expect(run.status == 0, "\(run)")
        #expect(run.stdout.contains("Compacted \(store.path) at sequence 4"))
        #expect(run.stdout.contains("journal: 4 transaction(s)"))
        // The journal holds only the compaction mark of transaction 4.
        let journal = try fileLines(store.appendingPathComponent("journal.jsonl"))
        #expect(journal.count == 1)
        let mark = try JSONReader().parse(journal.first ?? [])
        #expect(mark["compacted"] == .bool(true) && mark["seq"] == .int(4) && mark["inserted"] == nil)
        #expect(FileManager.default.fileExists(atPath: store.path + "/snapshots/Trip.jsonl"))
        #expect(try folio("export", store.path).stdout == before.stdout)
        #expect(try folio("verify", store.path).status == 0)
        #expect(try folio("log", store.path, "--oneline").stdout.split(separator: "\n").count == 4, "history is retained")
        let none = try folio("compact", store.path, "--keep-history", "0")
        #expect(none.stdout.contains("history: 0 transaction(s) retained"))
        #expect(try folio("show", store.path, "5").status == 0)
    }
}
