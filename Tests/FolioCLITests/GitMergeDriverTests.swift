import Foundation
import FolioStorage
import Testing

/// `folio merge-driver` run by real `git` on real clones sharing a bare remote.
@Suite("git merge of a store through folio merge-driver", .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/git")))
struct GitMergeDriverTests {
    /// A bare remote `origin.git` and clones of it, each with Folio's merge driver registered.
    struct Remote {
        let scratch: ScratchDirectory
        var origin: URL { scratch.appending("origin.git") }

        init(_ name: String = #function) throws {
            scratch = ScratchDirectory(name)
            _ = try GitMergeDriverTests.git("init", "-q", "--bare", "-b", "main", origin.path, in: scratch.url)
        }

        /// Clones the remote into `name` and runs `folio git-setup` there, as every new clone must.
        func clone(_ name: String) throws -> URL {
            _ = try GitMergeDriverTests.git("clone", "-q", origin.path, name, in: scratch.url)
            let clone = scratch.appending(name)
            if FileManager.default.fileExists(atPath: clone.appendingPathComponent("Trips.folio").path) {
                let setup = try folio("git-setup", directory: clone)
                try #require(setup.status == 0, "\(setup)")
            }
            return clone
        }
    }

    /// Runs git with no user or system configuration; `check` requires exit 0.
    @discardableResult
    static func git(_ arguments: String..., in directory: URL) throws -> FolioRun {
        try git(arguments: arguments, in: directory, check: true)
    }

    @discardableResult
    static func git(arguments: [String], in directory: URL, check: Bool) throws -> FolioRun {
        let environment = [
            "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": "/dev/null", "HOME": directory.path, "GIT_PAGER": "cat",
            "GIT_AUTHOR_NAME": "Test", "GIT_AUTHOR_EMAIL": "test@example.com", "GIT_COMMITTER_NAME": "Test",
            "GIT_COMMITTER_EMAIL": "test@example.com", "GIT_MERGE_AUTOEDIT": "no",
        ]
        let result = try run(URL(fileURLWithPath: "/usr/bin/git"), arguments: arguments, environment: environment, directory: directory)
        if check { try #require(result.status == 0, "git \(arguments.joined(separator: " ")): \(result)") }
        return result
    }

    /// Writes one transaction to the clone's store (no automatic compaction: the test decides).
    /// Writes one transaction to a clone's store, stamped by ``WriteClock``: each write of a test is later
    /// than the one before, which is what the merges' "later write wins" rules are tested on.
    static func write(_ clone: URL, _ body: (inout WriteTransaction) throws -> Void) throws {
        var configuration = StoreConfiguration(compactionThreshold: nil)
        configuration.clock = { WriteClock.shared.next() }
        let store = try Store.open(at: clone.appendingPathComponent("Trips.folio"), configuration: configuration)
        defer { store.close() }
        try store.write(author: clone.lastPathComponent, body)
    }

    /// Every record of the clone's store by identifier, after checking that it opens and verifies.
    static func records(_ clone: URL) throws -> [Int64: StoredRecord] {
        let verify = try folio("verify", clone.appendingPathComponent("Trips.folio").path)
        #expect(verify.status == 0, "\(verify)")
        let store = try Store.open(at: clone.appendingPathComponent("Trips.folio"), configuration: StoreConfiguration(readOnly: true))
        defer { store.close() }
        return Dictionary(uniqueKeysWithValues: store.records(of: "Trip").map { ($0.id, $0) })
    }

    /// The base: three trips, committed and pushed from a first clone (compacted first, when
    /// `compacted`: the base's snapshots then hold its whole state). Returns their identifiers.
    static func seed(
        _ remote: Remote, compacted: Bool = false,
        trips: [(name: String, price: Double)] = [("Oslo", 80), ("Rome", 99), ("Lima", 60)]
    ) throws -> [Int64] {
        let seed = try remote.clone("seed")
        var ids: [Int64] = []
        try write(seed) { t in
            for (name, price) in trips {
                let id = t.allocateID()
                ids.append(id)
                try t.insert(entity: "Trip", id: id, values: ["name": .string(name), "price": .double(price)])
            }
        }
        if compacted { try compact(seed) }
        let setup = try folio("git-setup", directory: seed)
        try #require(setup.status == 0, "\(setup)")
        try git("add", "-A", in: seed)
        try git("commit", "-q", "-m", "three trips", in: seed)
        try git("push", "-q", "origin", "main", in: seed)
        return ids
    }

    @Test func twoClonesMergeInBothDirectionsToTheSameStore() throws {
        let remote = try Remote()
        defer { remote.scratch.remove() }
        let trips = try Self.seed(remote)
        let (oslo, rome, lima) = (trips[0], trips[1], trips[2])
        let a = try remote.clone("a"), b = try remote.clone("b")

        var fromA: Int64 = 0, fromB: Int64 = 0
        try Self.write(a) { t in
            fromA = t.allocateID()
            try t.insert(entity: "Trip", id: fromA, values: ["name": .string("Kyoto"), "price": .double(120)])
            try t.update(entity: "Trip", id: oslo, values: ["price": .double(81)])
            try t.update(entity: "Trip", id: rome, values: ["name": .string("Roma")])
            try t.update(entity: "Trip", id: lima, values: ["price": .double(65)])
        }
        try Self.write(b) { t in
            fromB = t.allocateID()
            try t.insert(entity: "Trip", id: fromB, values: ["name": .string("Quito"), "price": .double(70)])
            try t.update(entity: "Trip", id: oslo, values: ["price": .double(82)])
            try t.update(entity: "Trip", id: rome, values: ["notes": .string("Vatican")])
            try t.delete(entity: "Trip", id: lima)
        }
        #expect(fromA != fromB, "clones allocate identifiers in blocks of their own")
        for (clone, branch) in [(a, "a"), (b, "b")] {
            try Self.git("commit", "-q", "-am", "changes of \(branch)", in: clone)
            try Self.git("push", "-q", "origin", "main:\(branch)", in: clone)
        }
        for clone in [a, b] { try Self.git("fetch", "-q", "origin", in: clone) }
        // An app in clone a has the store open while git merges.
        let open = try Store.open(at: a.appendingPathComponent("Trips.folio"), configuration: StoreConfiguration(compactionThreshold: nil))
        defer { open.close() }
        let mergedA = try Self.git("merge", "--no-edit", "origin/b", in: a)
        #expect(mergedA.stdout.contains("Auto-merging Trips.folio/journal.jsonl"))
        try Self.git("merge", "--no-edit", "origin/a", in: b)

        let journal = "Trips.folio/journal.jsonl"
        #expect(
            try Data(contentsOf: a.appendingPathComponent(journal)) == Data(contentsOf: b.appendingPathComponent(journal)),
            "merging either way round gives the same bytes")
        let arrived = try open.refresh().map(\.author)
        #expect(arrived == ["b"], "the open store reports the transaction the merge brought, though its sequence was taken")
        #expect(open.records(of: "Trip").contains { $0.id == fromB })
        let records = try Self.records(a)
        #expect(records[fromA]?.values["name"] == .string("Kyoto") && records[fromB]?.values["name"] == .string("Quito"))
        #expect(records[oslo]?.values["price"] == .double(82), "the later write of one attribute wins")
        #expect(
            records[rome]?.values["name"] == .string("Roma") && records[rome]?.values["notes"] == .string("Vatican"),
            "writes of different attributes combine")
        #expect(records[lima] == nil, "a delete stands against an update")

        let conflicts = try folio("conflicts", a.appendingPathComponent("Trips.folio").path, "--json").jsonLines()
        let lost = Set(
            conflicts.compactMap { conflict -> String? in
                guard case .int(let id)? = conflict["id"], case .string(let member)? = conflict["member"] else { return nil }
                return "\(id).\(member)=\(conflict["lost"].map(String.init(describing:)) ?? "")"
            })
        #expect(lost == ["\(oslo).price=\(JSONValue.double(81))", "\(lima).price=\(JSONValue.double(65))"], "\(conflicts)")

        // A rebase replays b's commit onto a's: the driver sees the sides the other way round.
        let c = try remote.clone("c")
        try Self.git("checkout", "-q", "-b", "rebased", "origin/b", in: c)
        try Self.git("rebase", "-q", "origin/a", in: c)
        #expect(try Data(contentsOf: c.appendingPathComponent(journal)) == Data(contentsOf: a.appendingPathComponent(journal)))

        // The conflicts can be forgotten, in a transaction of their own.
        let cleared = try folio("conflicts", a.appendingPathComponent("Trips.folio").path, "--clear")
        #expect(cleared.status == 0 && cleared.stdout.contains("Forgot 2"), "\(cleared)")
        #expect(try folio("conflicts", a.appendingPathComponent("Trips.folio").path).stdout.contains("No conflicts"))
    }

    @Test func theDriverRefusesFilesItCannotMergeAndLeavesOursUntouched() throws {
        let scratch = ScratchDirectory()
        defer { scratch.remove() }
        let store = scratch.appending("S")
        try TripStores.write(to: store) { t in try t.insert(entity: "Trip", id: t.allocateID(), values: ["name": .string("Oslo")]) }
        let journal = try Data(contentsOf: store.appendingPathComponent("journal.jsonl"))
        let cases: [(theirs: String, says: String)] = [
            ("not json\n", "theirs line 1: not a Folio journal line"),
            (String(decoding: journal, as: UTF8.self) + "<<<<<<< HEAD\n", "theirs line 2"),
        ]
        for (theirs, says) in cases {
            try journal.write(to: scratch.appending("O"))
            try journal.write(to: scratch.appending("A"))
            try Data(theirs.utf8).write(to: scratch.appending("B"))
            let result = try folio("merge-driver", "O", "A", "B", "Trips.folio/journal.jsonl", directory: scratch.url)
            #expect(result.status == 1 && result.stderr.contains("Trips.folio/journal.jsonl: \(says)"), "\(result)")
            #expect(try Data(contentsOf: scratch.appending("A")) == journal)
        }
        try journal.write(to: scratch.appending("A"))
        let snapshot = try folio("merge-driver", "O", "A", "A", "Trips.folio/snapshots/Trip.jsonl", directory: scratch.url)
        #expect(
            snapshot.status == 1 && snapshot.stderr.contains("Trips.folio/snapshots/Trip.jsonl: ours line 1: not a Folio snapshot line"),
            "\(snapshot)")
        let other = try folio("merge-driver", "O", "A", "A", "Trips.folio/notes.txt", directory: scratch.url)
        #expect(other.status == 1 && other.stderr.contains("not a Folio store file"), "\(other)")
    }

    /// The store's committed files (not the cache or the lock) and their bytes.
    static func storeFiles(_ clone: URL) throws -> [String: Data] {
        let root = clone.appendingPathComponent("Trips.folio")
        var files: [String: Data] = [:]
        guard let walker = FileManager.default.enumerator(atPath: root.path) else { return files }
        for case let relative as String in walker where !relative.hasPrefix("cache") && relative != "lock" {
            var isDirectory: ObjCBool = false
            let path = root.appendingPathComponent(relative).path
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue {
                files[relative] = try Data(contentsOf: URL(fileURLWithPath: path))
            }
        }
        return files
    }

    static func compact(_ clone: URL) throws {
        let store = try Store.open(at: clone.appendingPathComponent("Trips.folio"))
        defer { store.close() }
        try store.compact()
    }

    /// Commits each clone's changes to a branch of its own, then merges each into the other.
    static func commitAndMergeBothWays(_ a: URL, _ b: URL) throws -> (a: FolioRun, b: FolioRun) {
        for (clone, branch) in [(a, "a"), (b, "b")] {
            try git("add", "-A", in: clone)
            try git("commit", "-q", "-m", "changes of \(branch)", in: clone)
            try git("push", "-q", "-f", "origin", "HEAD:\(branch)", in: clone)
        }
        for clone in [a, b] { try git("fetch", "-q", "origin", in: clone) }
        return (
            try git(arguments: ["merge", "--no-edit", "origin/b"], in: a, check: false),
            try git(arguments: ["merge", "--no-edit", "origin/a"], in: b, check: false)
        )
    }

    @Test func aCloneThatCompactedMergesWithOneThatDidNot() throws {
        let remote = try Remote()
        defer { remote.scratch.remove() }
        let trips = try Self.seed(remote)
        let a = try remote.clone("a"), b = try remote.clone("b")
        try Self.write(a) { try $0.update(entity: "Trip", id: trips[0], values: ["price": .double(1)]) }
        try Self.compact(a)
        try Self.write(a) { try $0.update(entity: "Trip", id: trips[2], values: ["name": .string("Lima (a)")]) }
        var inserted: Int64 = 0
        try Self.write(b) { t in
            try t.update(entity: "Trip", id: trips[1], values: ["price": .double(2)])
            inserted = t.allocateID()
            try t.insert(entity: "Trip", id: inserted, values: ["name": .string("Quito")])
        }
        let (mergedA, mergedB) = try Self.commitAndMergeBothWays(a, b)
        #expect(mergedA.status == 0 && mergedB.status == 0, "\(mergedA)\n\(mergedB)")
        #expect(try Self.storeFiles(a) == Self.storeFiles(b), "merging either way round gives the same files")
        let records = try Self.records(a)
        #expect(records[trips[0]]?.values["price"] == .double(1), "the compacted change is kept")
        #expect(records[trips[2]]?.values["name"] == .string("Lima (a)"))
        #expect(records[trips[1]]?.values["price"] == .double(2) && records[inserted] != nil, "the other side's changes are not lost")

        // Both go on: a second round of changes, neither compacted, merges over the merged mark.
        try Self.write(a) { try $0.update(entity: "Trip", id: trips[0], values: ["price": .double(3)]) }
        try Self.write(b) { try $0.update(entity: "Trip", id: trips[1], values: ["price": .double(4)]) }
        let (again, againB) = try Self.commitAndMergeBothWays(a, b)
        #expect(again.status == 0 && againB.status == 0, "\(again)\n\(againB)")
        let after = try Self.records(b)
        #expect(after[trips[0]]?.values["price"] == .double(3) && after[trips[1]]?.values["price"] == .double(4))
    }

    /// The conflicts of `clone`'s store as `member of record = lost value (kept value)` lines.
    static func conflictLines(_ clone: URL) throws -> Set<String> {
        let listed = try folio("conflicts", clone.appendingPathComponent("Trips.folio").path, "--json").jsonLines()
        return Set(
            listed.map { conflict in
                func describe(_ value: JSONValue?) -> String {
                    switch value {
                    case .string(let text)?: "\"\(text)\""
                    case .int(let number)?: "\(number)"
                    case .double(let number)?: "\(number)"
                    case nil, .null?: "deleted"
                    case let other?: "\(other)"
                    }
                }
                guard case .string(let member)? = conflict["member"] else { return "no member in \(conflict)" }
                return "\(member) of \(describe(conflict["id"])) = \(describe(conflict["lost"])) (\(describe(conflict["kept"])))"
            })
    }

    @Test func aMergeWithACompactedSideRecordsWhatTheOtherSideOverwrote() throws {
        let remote = try Remote()
        defer { remote.scratch.remove() }
        let trips = try Self.seed(remote, trips: [("Oslo", 80), ("Rome", 99), ("Lima", 60), ("Nice", 70)])
        let (oslo, rome, lima, nice) = (trips[0], trips[1], trips[2], trips[3])
        let a = try remote.clone("a"), b = try remote.clone("b")
        // a changes four trips, folds that into its snapshots, then renames one trip again.
        try Self.write(a) { t in
            try t.update(entity: "Trip", id: oslo, values: ["price": .double(1)])
            try t.update(entity: "Trip", id: rome, values: ["name": .string("Roma")])
            try t.update(entity: "Trip", id: nice, values: ["notes": .string("by the sea")])
            try t.delete(entity: "Trip", id: lima)
        }
        try Self.compact(a)
        try Self.write(a) { try $0.update(entity: "Trip", id: rome, values: ["name": .string("Rome (a)")]) }
        try Self.write(b) { t in
            try t.update(entity: "Trip", id: oslo, values: ["price": .double(2)])
            try t.update(entity: "Trip", id: rome, values: ["name": .string("Rom")])
            try t.update(entity: "Trip", id: lima, values: ["price": .double(5)])
            try t.delete(entity: "Trip", id: nice)
        }
        let (mergedA, mergedB) = try Self.commitAndMergeBothWays(a, b)
        #expect(mergedA.status == 0 && mergedB.status == 0, "\(mergedA)\n\(mergedB)")
        #expect(try Self.storeFiles(a) == Self.storeFiles(b), "merging either way round gives the same files")

        let records = try Self.records(a)
        #expect(records[oslo]?.values["price"] == .double(2), "the journal's side writes over the folded change")
        #expect(records[rome]?.values["name"] == .string("Rom"), "the later of two writes the driver saw wins")
        #expect(records[lima] == nil, "a record the folded transactions deleted stays deleted, though the other side updated it")
        #expect(records[nice] == nil, "a delete of a record the folded transactions changed stands")
        let expected: Set<String> = [
            "price of \(oslo) = 1.0 (2.0)", "price of \(lima) = 5.0 (deleted)", "notes of \(nice) = \"by the sea\" (deleted)",
            "name of \(rome) = \"Rome (a)\" (\"Rom\")",
        ]
        for clone in [a, b] {
            let listed = try Self.conflictLines(clone)
            #expect(listed == expected, "\(listed)")
        }

        // The conflicts are forgotten like any others, and the next merge records none of these again.
        let cleared = try folio("conflicts", a.appendingPathComponent("Trips.folio").path, "--clear")
        #expect(cleared.status == 0 && cleared.stdout.contains("Forgot 4"), "\(cleared)")
        try Self.write(b) { try $0.update(entity: "Trip", id: oslo, values: ["notes": .string("fjord")]) }
        let (again, againB) = try Self.commitAndMergeBothWays(a, b)
        #expect(again.status == 0 && againB.status == 0, "\(again)\n\(againB)")
        #expect(try Self.conflictLines(a).isEmpty)
        #expect(try Self.records(a)[oslo]?.values["notes"] == .string("fjord"))
    }

    @Test func twoClonesThatBothCompactedMergeRecordByRecord() throws {
        let remote = try Remote()
        defer { remote.scratch.remove() }
        let trips = try Self.seed(remote, compacted: true)
        let a = try remote.clone("a"), b = try remote.clone("b")
        var fromA: Int64 = 0, fromB: Int64 = 0
        try Self.write(a) { t in
            try t.update(entity: "Trip", id: trips[0], values: ["price": .double(1)])
            fromA = t.allocateID()
            try t.insert(entity: "Trip", id: fromA, values: ["name": .string("Kyoto")])
        }
        try Self.write(a) { try $0.update(entity: "Trip", id: trips[1], values: ["notes": .string("from a")]) }
        try Self.compact(a)
        try Self.write(b) { t in
            try t.update(entity: "Trip", id: trips[1], values: ["name": .string("Roma")])
            try t.delete(entity: "Trip", id: trips[2])
            fromB = t.allocateID()
            try t.insert(entity: "Trip", id: fromB, values: ["name": .string("Quito")])
        }
        try Self.compact(b)
        try Self.write(b) { try $0.update(entity: "Trip", id: fromB, values: ["price": .double(70)]) }
        let (mergedA, mergedB) = try Self.commitAndMergeBothWays(a, b)
        #expect(mergedA.status == 0 && mergedB.status == 0, "\(mergedA)\n\(mergedB)")
        #expect(mergedA.stderr.contains("snapshots") && mergedA.stderr.contains("manifest"), "\(mergedA)")
        #expect(try Self.storeFiles(a) == Self.storeFiles(b), "merging either way round gives the same files")
        let records = try Self.records(a)
        #expect(records[trips[0]]?.values["price"] == .double(1))
        #expect(records[trips[1]]?.values["name"] == .string("Roma") && records[trips[1]]?.values["notes"] == .string("from a"))
        #expect(records[trips[2]] == nil && records[fromA] != nil && records[fromB]?.values["price"] == .double(70))
        let store = try Store.open(at: a.appendingPathComponent("Trips.folio"), configuration: StoreConfiguration(readOnly: true))
        defer { store.close() }
        let history = try store.history(after: 0).compactMap(\.author)
        #expect(history.filter { $0 == "a" }.count == 2 && history.filter { $0 == "b" }.count == 2, "\(history)")

        // The merged store compacts and merges again like any other.
        try Self.compact(a)
        #expect(try folio("verify", a.appendingPathComponent("Trips.folio").path).status == 0)
    }

    /// Both clones change a trip and compact, then each merges the other; returns both merges, clone
    /// a's status and the trip a changed.
    static func mergeTwoCompactedChanges(_ remote: Remote, seedCompacted: Bool, sameTrip: Bool, deleteOnB: Bool = false) throws
        -> (merge: FolioRun, other: FolioRun, status: String, trip: Int64, a: URL, b: URL)
    {
        let trips = try seed(remote, compacted: seedCompacted)
        let a = try remote.clone("a"), b = try remote.clone("b")
        try write(a) { try $0.update(entity: "Trip", id: trips[0], values: ["price": .double(1)]) }
        try compact(a)
        try write(b) { t in
            if deleteOnB { try t.delete(entity: "Trip", id: trips[0]) }
            try t.update(entity: "Trip", id: trips[sameTrip ? 2 : 1], values: ["price": .double(2)])
        }
        try write(b) { t in
            if sameTrip { try t.update(entity: "Trip", id: trips[0], values: ["price": .double(2)]) }
        }
        try compact(b)
        let (merge, other) = try commitAndMergeBothWays(a, b)
        return (merge, other, try git("status", "--short", in: a).stdout, trips[0], a, b)
    }

    @Test func bothSidesCompactingABaseWithTransactionsInItsJournalReplaysThemOverTheMergedSnapshots() throws {
        let remote = try Remote()
        defer { remote.scratch.remove() }
        // The base's journal holds the insert of the four trips: no snapshot has them.
        let trips = try Self.seed(remote, trips: [("Oslo", 80), ("Rome", 99), ("Lima", 60), ("Nice", 70)])
        let (oslo, rome, lima, nice) = (trips[0], trips[1], trips[2], trips[3])
        let a = try remote.clone("a"), b = try remote.clone("b")
        try Self.write(a) { t in
            try t.update(entity: "Trip", id: oslo, values: ["price": .double(1)])
            try t.update(entity: "Trip", id: nice, values: ["price": .double(71)])
            try t.delete(entity: "Trip", id: lima)
        }
        try Self.compact(a)
        try Self.write(b) { t in
            try t.update(entity: "Trip", id: rome, values: ["price": .double(2)])
            try t.update(entity: "Trip", id: lima, values: ["price": .double(5)])
            try t.update(entity: "Trip", id: nice, values: ["name": .string("Nizza"), "price": .double(72)])
        }
        try Self.compact(b)
        try Self.write(b) { try $0.update(entity: "Trip", id: oslo, values: ["notes": .string("after b compacted")]) }
        let (mergedA, mergedB) = try Self.commitAndMergeBothWays(a, b)
        #expect(mergedA.status == 0 && mergedB.status == 0, "\(mergedA)\n\(mergedB)")
        let (filesA, filesB) = (try Self.storeFiles(a), try Self.storeFiles(b))
        #expect(filesA == filesB, "merging either way round gives the same files: \(filesA.keys.filter { filesA[$0] != filesB[$0] })")

        // Read-only first (verify, the Python reader), then the app's writable open commits the replay.
        let expected: Set<String> = ["price of \(lima) = 5.0 (deleted)", "price of \(nice) = 71.0 (72.0)"]
        for clone in [a, b] {
            let records = try Self.records(clone)
            #expect(
                records[oslo]?.values["price"] == .double(1) && records[oslo]?.values["notes"] == .string("after b compacted"),
                "a value one side changed after the base's journal wrote it is that side's")
            #expect(records[rome]?.values["price"] == .double(2) && records[rome]?.values["name"] == .string("Rome"))
            #expect(records[lima] == nil, "a record the base's journal inserted and one side deleted stays deleted")
            #expect(
                records[nice]?.values["name"] == .string("Nizza") && records[nice]?.values["price"] == .double(72),
                "the later of two writes wins")
            #expect(try Self.conflictLines(clone) == expected, "the merge's guesses without the base are not listed")
            if let python = try PythonReader.records(of: "Trip", in: clone.appendingPathComponent("Trips.folio")) {
                #expect(python == records.mapValues(\.values.dictionary), "the Python reader replays the base's journal too")
            }
        }
        let store = try Store.open(at: a.appendingPathComponent("Trips.folio"))
        let mend = try store.retainedHistory().filter { $0.author == "folio merge" }
        store.close()
        #expect(mend.count == 1 && mend.first?.deleted.map(\.id) == [lima], "\(mend)")
        #expect(try Self.conflictLines(a) == expected)
        #expect(try Self.records(a)[nice]?.values["price"] == .double(72))

        // The merged store compacts, and a later merge of it needs no replay.
        try Self.compact(a)
        let compacted = try Self.conflictLines(a)
        #expect(compacted == expected, "kept by the compaction: \(compacted)")
        try Self.write(b) { try $0.update(entity: "Trip", id: rome, values: ["notes": .string("again")]) }
        let (again, againB) = try Self.commitAndMergeBothWays(a, b)
        #expect(again.status == 0 && againB.status == 0, "\(again)\n\(againB)")
        #expect(try Self.records(a)[rome]?.values["notes"] == .string("again"))
    }

    @Test func aSideWhoseHistoryNoLongerReachesTheBaseCannotReplayItsJournalAndIsAConflict() throws {
        let remote = try Remote()
        defer { remote.scratch.remove() }
        let trips = try Self.seed(remote)
        let a = try remote.clone("a"), b = try remote.clone("b")
        // a compacts twice, keeping one transaction: the second compaction keeps only what it folds.
        let short = try Store.open(
            at: a.appendingPathComponent("Trips.folio"),
            configuration: StoreConfiguration(compactionThreshold: nil, historyRetention: .init(maximumCount: 1)))
        for price in [1.0, 2.0] {
            try short.write { try $0.update(entity: "Trip", id: trips[0], values: ["price": .double(price)]) }
            try short.compact()
        }
        short.close()
        try Self.write(b) { try $0.update(entity: "Trip", id: trips[1], values: ["price": .double(3)]) }
        try Self.compact(b)
        let (merge, _) = try Self.commitAndMergeBothWays(a, b)
        #expect(merge.status == 1, "\(merge)")
        #expect(merge.stderr.contains("Trips.folio/journal.jsonl") && merge.stderr.contains("raise historyRetention"), "\(merge)")
        #expect(try Self.git("status", "--short", in: a).stdout.contains("UU Trips.folio/journal.jsonl"))
    }

    @Test func anAttributeBothCompactedSidesChangedGoesToTheSideWithMoreTransactionsAndIsListed() throws {
        let remote = try Remote()
        defer { remote.scratch.remove() }
        let (merge, other, status, trip, a, b) = try Self.mergeTwoCompactedChanges(remote, seedCompacted: true, sameTrip: true)
        #expect(merge.status == 0 && other.status == 0, "\(merge)\n\(other)")
        #expect(!status.contains("UU"), "\(status)")
        #expect(
            merge.stderr.contains("snapshots/Trip.jsonl: merged the snapshots of two compacted sides; 1 conflicting value(s) resolved"),
            "\(merge)")
        #expect(try Self.storeFiles(a) == Self.storeFiles(b), "merging either way round gives the same files")
        // b saved two transactions since the base, a one: b's value stands, a's is listed.
        #expect(try Self.records(a)[trip]?.values["price"] == .double(2))
        let lines = try Self.conflictLines(a)
        #expect(lines == ["price of \(trip) = 1.0 (2.0)"], "\(lines)")
        let listed = try folio("conflicts", a.appendingPathComponent("Trips.folio").path, "--json").jsonLines()
        guard case .string(let writer)? = listed.first?["lostTransaction"] else {
            Issue.record("no lostTransaction in \(listed)")
            return
        }
        #expect(!writer.isEmpty, "the history names a's transaction")
        #expect(try folio("verify", a.appendingPathComponent("Trips.folio").path).status == 0)

        // A compaction that rewrites the snapshot keeps them in its header.
        try Self.write(a) { try $0.update(entity: "Trip", id: trip, values: ["notes": .string("after the merge")]) }
        try Self.compact(a)
        #expect(try Self.conflictLines(a) == lines, "kept by the compaction")

        // Cleared, they are gone; the next compaction writes the header without them.
        let cleared = try folio("conflicts", a.appendingPathComponent("Trips.folio").path, "--clear")
        #expect(cleared.status == 0 && cleared.stdout.contains("Forgot 1"), "\(cleared)")
        #expect(try Self.conflictLines(a).isEmpty)
        try Self.compact(a)
        let header =
            try String(contentsOf: a.appendingPathComponent("Trips.folio/snapshots/Trip.jsonl"), encoding: .utf8)
            .split(separator: "\n").first.map(String.init) ?? ""
        #expect(!header.contains("conflicts"), "\(header)")
        #expect(try Self.conflictLines(a).isEmpty)
    }

    @Test func aRecordOneCompactedSideDeletedStaysDeletedWithTheOthersChangeListed() throws {
        let remote = try Remote()
        defer { remote.scratch.remove() }
        let (merge, other, _, trip, a, b) = try Self.mergeTwoCompactedChanges(remote, seedCompacted: true, sameTrip: false, deleteOnB: true)
        #expect(merge.status == 0 && other.status == 0, "\(merge)\n\(other)")
        #expect(try Self.storeFiles(a) == Self.storeFiles(b))
        #expect(try Self.records(a)[trip] == nil)
        let lines = try Self.conflictLines(a)
        #expect(lines == ["price of \(trip) = 1.0 (deleted)"], "\(lines)")
        #expect(try folio("verify", a.appendingPathComponent("Trips.folio").path).status == 0)
    }

    @Test func writesAfterBothSidesCompactedAreComparedWithWhatTheOtherSideFolded() throws {
        let remote = try Remote()
        defer { remote.scratch.remove() }
        let trips = try Self.seed(remote, compacted: true)
        let a = try remote.clone("a"), b = try remote.clone("b")
        try Self.write(a) { t in
            try t.update(entity: "Trip", id: trips[0], values: ["price": .double(1)])
            try t.delete(entity: "Trip", id: trips[1])
        }
        try Self.compact(a)
        try Self.write(b) { try $0.update(entity: "Trip", id: trips[2], values: ["notes": .string("from b")]) }
        try Self.compact(b)
        try Self.write(b) { t in
            try t.update(entity: "Trip", id: trips[0], values: ["price": .double(2)])
            try t.update(entity: "Trip", id: trips[1], values: ["price": .double(3)])
        }
        let (mergedA, mergedB) = try Self.commitAndMergeBothWays(a, b)
        #expect(mergedA.status == 0 && mergedB.status == 0, "\(mergedA)\n\(mergedB)")
        #expect(try Self.storeFiles(a) == Self.storeFiles(b), "merging either way round gives the same files")
        #expect(try folio("verify", a.appendingPathComponent("Trips.folio").path).status == 0)
        let records = try Self.records(a)
        // As when one side compacted: the journal's write stands over the folded one, a delete stays.
        #expect(records[trips[0]]?.values["price"] == .double(2))
        #expect(records[trips[1]] == nil)
        #expect(records[trips[2]]?.values["notes"] == .string("from b"))
        let lines = try Self.conflictLines(a)
        #expect(lines == ["price of \(trips[0]) = 1.0 (2.0)", "price of \(trips[1]) = 3.0 (deleted)"], "\(lines)")
    }

    @Test func threeClonesMergeInTurnAndAnOctopusStopsWithoutCommitting() throws {
        let remote = try Remote()
        defer { remote.scratch.remove() }
        _ = try Self.seed(remote)
        let clones = try ["a", "b", "c"].map { try remote.clone($0) }
        var inserted: [Int64] = []
        for clone in clones {
            try Self.write(clone) { t in
                let id = t.allocateID()
                inserted.append(id)
                try t.insert(entity: "Trip", id: id, values: ["name": .string("from \(clone.lastPathComponent)")])
            }
            try Self.git("commit", "-q", "-am", "trip of \(clone.lastPathComponent)", in: clone)
            try Self.git("push", "-q", "origin", "HEAD:\(clone.lastPathComponent)", in: clone)
        }
        let a = clones[0]
        try Self.git("fetch", "-q", "origin", in: a)
        // Git's octopus strategy never runs a merge driver: it stops, and commits nothing.
        let head = try Self.git("rev-parse", "HEAD", in: a).stdout
        let octopus = try Self.git(arguments: ["merge", "--no-edit", "origin/b", "origin/c"], in: a, check: false)
        #expect(octopus.status != 0, "\(octopus)")
        #expect(try Self.git("rev-parse", "HEAD", in: a).stdout == head)
        try Self.git("reset", "-q", "--hard", "HEAD", in: a)
        // One branch at a time, each merge runs the driver.
        try Self.git("merge", "--no-edit", "origin/b", in: a)
        try Self.git("merge", "--no-edit", "origin/c", in: a)
        let records = try Self.records(a)
        #expect(inserted.allSatisfy { records[$0] != nil } && records.count == 6, "\(records.keys.sorted())")
    }

    @Test func aCherryPickedSaveAppliesOnceAndAPulledBranchTakesTurns() throws {
        let remote = try Remote()
        defer { remote.scratch.remove() }
        let trips = try Self.seed(remote)
        let a = try remote.clone("a"), b = try remote.clone("b")
        try Self.write(b) { try $0.update(entity: "Trip", id: trips[0], values: ["price": .double(5)]) }
        try Self.git("commit", "-q", "-am", "b: Oslo costs 5", in: b)
        try Self.git("push", "-q", "origin", "HEAD:b", in: b)
        try Self.write(a) { try $0.update(entity: "Trip", id: trips[1], values: ["price": .double(6)]) }
        try Self.git("commit", "-q", "-am", "a: Rome costs 6", in: a)
        try Self.git("fetch", "-q", "origin", in: a)
        try Self.git("cherry-pick", "origin/b", in: a)
        // Merging the branch the save was picked from keeps it once.
        try Self.git("merge", "--no-edit", "origin/b", in: a)
        let store = try Store.open(at: a.appendingPathComponent("Trips.folio"), configuration: StoreConfiguration(readOnly: true))
        let authors = try store.history(after: 0).compactMap(\.author)
        store.close()
        #expect(authors.filter { $0 == "b" }.count == 1, "\(authors)")
        let records = try Self.records(a)
        #expect(records[trips[0]]?.values["price"] == .double(5) && records[trips[1]]?.values["price"] == .double(6))

        // The two machines take turns through the remote: push, pull, write, push, pull.
        try Self.git("push", "-q", "origin", "HEAD:main", in: a)
        try Self.git("pull", "-q", "--no-rebase", "origin", "main", in: b)
        try Self.write(b) { try $0.update(entity: "Trip", id: trips[2], values: ["price": .double(7)]) }
        try Self.git("commit", "-q", "-am", "b: Lima costs 7", in: b)
        try Self.git("push", "-q", "origin", "HEAD:main", in: b)
        try Self.write(a) { try $0.update(entity: "Trip", id: trips[0], values: ["name": .string("Oslo!")]) }
        try Self.git("commit", "-q", "-am", "a: renamed", in: a)
        try Self.git("pull", "-q", "--no-rebase", "origin", "main", in: a)
        let final = try Self.records(a)
        #expect(final[trips[0]]?.values["name"] == .string("Oslo!") && final[trips[2]]?.values["price"] == .double(7))
    }
}
