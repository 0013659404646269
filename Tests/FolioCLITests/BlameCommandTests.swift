import Foundation
import FolioStorage
import Testing

/// `folio blame` on stores in and out of git work trees.
@Suite("folio blame")
struct BlameCommandTests {
    typealias Git = GitMergeDriverTests

    /// Each member's `[name: (commit subject, commit hash, author)]` from `folio blame --json`.
    static func blame(_ clone: URL, _ id: Int64) throws -> [String: (subject: String, hash: String, author: String)] {
        let run = try folio("blame", clone.appendingPathComponent("Trips.folio").path, String(id), "--json")
        try #require(run.status == 0, "\(run)")
        let object = try JSONReader().parse(run.stdout)
        #expect(object["gitWorkTree"] == .bool(true), "\(run)")
        var result: [String: (subject: String, hash: String, author: String)] = [:]
        for member in object["members"]?.arrayValue ?? [] {
            guard case .string(let name)? = member["name"], let transaction = member["transaction"],
                case .string(let subject)? = transaction["commit"]?["subject"], case .string(let hash)? = transaction["commit"]?["hash"],
                case .string(let author)? = transaction["author"]
            else {
                Issue.record("member without a committed transaction: \(member)")
                continue
            }
            result[name] = (subject, hash, author)
        }
        return result
    }

    /// The full hash of `revision` in `clone`.
    static func hash(_ revision: String, in clone: URL) throws -> String {
        try Git.git("rev-parse", revision, in: clone).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/git"), "needs git at /usr/bin/git"))
    func blameAfterAMergeNamesEachSidesCommitForTheAttributesItSet() throws {
        let remote = try Git.Remote()
        defer { remote.scratch.remove() }
        let trips = try Git.seed(remote)
        let a = try remote.clone("a"), b = try remote.clone("b")
        var fromA: Int64 = 0, fromB: Int64 = 0
        try Git.write(a) { t in
            try t.update(entity: "Trip", id: trips[0], values: ["price": .double(1)])
            fromA = t.allocateID()
            try t.insert(entity: "Trip", id: fromA, values: ["name": .string("Kyoto")])
        }
        try Git.write(b) { t in
            try t.update(entity: "Trip", id: trips[0], values: ["name": .string("Oslo (b)")])
            fromB = t.allocateID()
            try t.insert(entity: "Trip", id: fromB, values: ["name": .string("Quito")])
        }
        let (mergedA, mergedB) = try Git.commitAndMergeBothWays(a, b)
        try #require(mergedA.status == 0 && mergedB.status == 0, "\(mergedA)\n\(mergedB)")
        let commitOfA = try Self.hash("origin/a", in: a), commitOfB = try Self.hash("origin/b", in: a)
        let seedCommit = try Self.hash("origin/main", in: a)

        for clone in [a, b] {
            let oslo = try Self.blame(clone, trips[0])
            #expect(oslo["price"]?.hash == commitOfA && oslo["price"]?.subject == "changes of a" && oslo["price"]?.author == "a", "\(oslo)")
            #expect(oslo["name"]?.hash == commitOfB && oslo["name"]?.subject == "changes of b" && oslo["name"]?.author == "b", "\(oslo)")
            #expect(try Self.blame(clone, trips[1])["price"]?.hash == seedCommit, "an untouched value is the seed's")
            // A record a merge may renumber is followed under the identifier it has in the merged store.
            let names = try Git.records(clone).mapValues { $0.values["name"] }
            let kyoto = try #require(names.first { $0.value == .string("Kyoto") }?.key)
            let quito = try #require(names.first { $0.value == .string("Quito") }?.key)
            #expect(try Self.blame(clone, kyoto)["name"]?.hash == commitOfA)
            #expect(try Self.blame(clone, quito)["name"]?.hash == commitOfB)
        }

        // The table names the commits by their short hashes and subjects.
        let table = try folio("blame", a.appendingPathComponent("Trips.folio").path, String(trips[0]))
        #expect(table.status == 0, "\(table)")
        let lines = table.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "Trip \(trips[0])")
        #expect(lines.contains { $0.hasPrefix("price ") && $0.contains(String(commitOfA.prefix(10))) && $0.hasSuffix("changes of a") }, "\(table)")
        #expect(lines.contains { $0.hasPrefix("name ") && $0.contains(String(commitOfB.prefix(10))) && $0.hasSuffix("changes of b") }, "\(table)")
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/git"), "needs git at /usr/bin/git"))
    func aCompactionBetweenCommitsLeavesEachValueWithTheCommitThatBroughtIt() throws {
        let remote = try Git.Remote()
        defer { remote.scratch.remove() }
        let trips = try Git.seed(remote)
        let a = try remote.clone("a"), b = try remote.clone("b")
        try Git.write(a) { try $0.update(entity: "Trip", id: trips[0], values: ["price": .double(1)]) }
        try Git.git("commit", "-q", "-am", "price on a", in: a)
        let priceCommit = try Self.hash("HEAD", in: a)
        try Git.compact(a)
        try Git.git("add", "-A", in: a)
        try Git.git("commit", "-q", "-m", "compact a", in: a)
        try Git.write(a) { try $0.update(entity: "Trip", id: trips[0], values: ["nights": .int(3)]) }
        try Git.write(b) { try $0.update(entity: "Trip", id: trips[0], values: ["name": .string("Oslo (b)")]) }
        let (mergedA, mergedB) = try Git.commitAndMergeBothWays(a, b)
        try #require(mergedA.status == 0 && mergedB.status == 0, "\(mergedA)\n\(mergedB)")
        let commitOfB = try Self.hash("origin/b", in: a)

        for clone in [a, b] {
            let oslo = try Self.blame(clone, trips[0])
            #expect(
                oslo["price"]?.hash == priceCommit && oslo["price"]?.subject == "price on a",
                "the compaction moved the line, it did not bring it: \(oslo)")
            #expect(oslo["nights"]?.subject == "changes of a", "\(oslo)")
            #expect(oslo["name"]?.hash == commitOfB, "\(oslo)")
        }
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/git"), "needs git at /usr/bin/git"))
    func aTransactionCompactedBeforeAnyCommitIsBlamedOnTheCommitThatBroughtItsHistoryLine() throws {
        let remote = try Git.Remote()
        defer { remote.scratch.remove() }
        let trips = try Git.seed(remote)
        let a = try remote.clone("a")
        try Git.write(a) { try $0.update(entity: "Trip", id: trips[0], values: ["price": .double(1)]) }
        try Git.compact(a)
        try Git.git("add", "-A", in: a)
        try Git.git("commit", "-q", "-m", "price, compacted", in: a)
        let priceCommit = try Self.hash("HEAD", in: a)
        #expect(try Self.blame(a, trips[0])["price"]?.hash == priceCommit, "the line came in history.jsonl, in one commit")

        // A later save compacted and not committed: its history line is in no commit, and the history
        // file differs from HEAD's, so the one commit that changed it is not taken for the answer.
        try Git.write(a) { try $0.update(entity: "Trip", id: trips[0], values: ["nights": .int(4)]) }
        try Git.compact(a)
        let run = try folio("blame", a.appendingPathComponent("Trips.folio").path, String(trips[0]), "--json")
        try #require(run.status == 0, "\(run)")
        let members = try JSONReader().parse(run.stdout)["members"]?.arrayValue ?? []
        func commit(of name: String) -> JSONValue? {
            members.first { $0["name"] == .string(name) }?["transaction"]?["commit"]
        }
        #expect(commit(of: "nights") == .null, "an uncommitted transaction has no commit: \(run.stdout)")
        #expect(commit(of: "price")?["hash"] == .string(priceCommit), "\(run.stdout)")
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/git"), "needs git at /usr/bin/git"))
    func aRecordBothSidesInsertedWithTheSameUniqueValueIsBlamedOnBothSidesCommits() throws {
        let remote = try Git.Remote()
        defer { remote.scratch.remove() }
        let seed = try remote.clone("seed")
        try Git.write(seed) { $0.setSchema(LibraryStore.schema) }
        try #require(try folio("git-setup", directory: seed).status == 0)
        try Git.git("add", "-A", in: seed)
        try Git.git("commit", "-q", "-m", "schema", in: seed)
        try Git.git("push", "-q", "origin", "main", in: seed)
        let a = try remote.clone("a"), b = try remote.clone("b")
        var fromA: Int64 = 0, fromB: Int64 = 0
        try Git.write(a) { t in
            fromA = t.allocateID()
            try t.insert(entity: "Author", id: fromA, values: ["name": .string("Tove Jansson"), "born": .string("1914-08-09T00:00:00Z")])
        }
        try Git.write(b) { t in
            fromB = t.allocateID()
            try t.insert(entity: "Author", id: fromB, values: ["name": .string("Tove Jansson"), "born": .string("1914-08-10T00:00:00Z")])
        }
        let (mergedA, mergedB) = try Git.commitAndMergeBothWays(a, b)
        try #require(mergedA.status == 0 && mergedB.status == 0, "\(mergedA)\n\(mergedB)")
        let commitOfA = try Self.hash("origin/a", in: a), commitOfB = try Self.hash("origin/b", in: a)
        for clone in [a, b] {
            // The later insert became an update of the earlier record: the one record has both sides' values.
            let author = try Self.blame(clone, fromA)
            #expect(author["name"]?.hash == commitOfA && author["born"]?.hash == commitOfB, "\(author)")
            let gone = try folio("blame", clone.appendingPathComponent("Trips.folio").path, String(fromB))
            #expect(gone.status == 1 && gone.stderr.contains("No record with identifier \(fromB)"), "\(gone)")
        }
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/git"), "needs git at /usr/bin/git"))
    func transactionsNoCommitHoldsAreUncommittedEvenBeforeTheFirstCommit() throws {
        let scratch = ScratchDirectory()
        defer { scratch.remove() }
        try Git.git("init", "-q", "-b", "main", scratch.path, in: scratch.url)
        let url = scratch.appending("Trips.folio")
        var id: Int64 = 0
        do {
            let store = try Store.open(at: url, configuration: StoreConfiguration(compactionThreshold: nil))
            defer { store.close() }
            _ = try store.write(author: "first") { t in
                id = t.allocateID()
                try t.insert(entity: "Trip", id: id, values: ["name": .string("Oslo")])
            }
        }
        let table = try folio("blame", url.path, String(id))
        #expect(table.status == 0 && table.stdout.contains("COMMIT") && table.stdout.contains("(uncommitted)"), "\(table)")
        try Git.git("add", "-A", in: scratch.url)
        try Git.git("commit", "-q", "-m", "first trip", in: scratch.url)
        do {
            let store = try Store.open(at: url, configuration: StoreConfiguration(compactionThreshold: nil))
            defer { store.close() }
            _ = try store.write(author: "second") { try $0.update(entity: "Trip", id: id, values: ["price": .double(80)]) }
        }
        let run = try folio("blame", url.path, String(id), "--json")
        let members = try JSONReader().parse(run.stdout)["members"]?.arrayValue ?? []
        let commits = members.map { $0["transaction"]?["commit"]?["subject"] ?? .null }
        #expect(commits == [.string("first trip"), .null], "name is committed, price is not: \(run)")
    }

    @Test func outsideGitAValueSetBeforeTheRetainedHistoryIsSaidToBe() throws {
        let scratch = ScratchDirectory()
        defer { scratch.remove() }
        let url = scratch.appending("store")
        var id: Int64 = 0
        do {
            let configuration = StoreConfiguration(compactionThreshold: nil, historyRetention: .init(maximumCount: 1))
            let store = try Store.open(at: url, configuration: configuration)
            defer { store.close() }
            _ = try store.write(author: "first") { t in
                id = t.allocateID()
                try t.insert(entity: "Trip", id: id, values: ["name": .string("Oslo"), "price": .double(80)])
            }
            _ = try store.write(author: "second") { try $0.update(entity: "Trip", id: id, values: ["price": .double(90)]) }
            try store.compact()
        }
        let run = try folio("blame", url.path, String(id), "--json")
        try #require(run.status == 0, "\(run)")
        let object = try JSONReader().parse(run.stdout)
        #expect(object["gitWorkTree"] == .bool(false))
        let members = object["members"]?.arrayValue ?? []
        #expect(members.count == 2)
        let name = members.first { $0["name"] == .string("name") }, price = members.first { $0["name"] == .string("price") }
        #expect(name?["origin"] == .string("beforeRetainedHistory") && name?["setAtOrBefore"] == .int(1), "\(run)")
        #expect(
            price?["origin"] == .string("transaction") && price?["transaction"]?["seq"] == .int(2)
                && price?["transaction"]?["author"] == .string("second"), "\(run)")

        let table = try folio("blame", url.path, String(id))
        #expect(table.status == 0 && !table.stdout.contains("COMMIT"), "\(table)")
        #expect(table.stdout.contains("≤1") && table.stdout.contains("set at or before transaction 1; older history is not retained"), "\(table)")
    }

    @Test func aDeletedRecordAnUnknownIdentifierAndAWrongEntityAreErrors() throws {
        let scratch = ScratchDirectory()
        defer { scratch.remove() }
        let url = scratch.appending("store")
        var kept: Int64 = 0, gone: Int64 = 0
        do {
            let store = try Store.open(at: url, configuration: StoreConfiguration(compactionThreshold: nil))
            defer { store.close() }
            _ = try store.write { t in
                kept = t.allocateID()
                gone = t.allocateID()
                try t.insert(entity: "Trip", id: kept, values: ["name": .string("Oslo")])
                try t.insert(entity: "Trip", id: gone, values: ["name": .string("Rome")])
            }
            _ = try store.write(author: "cleaner") { try $0.delete(entity: "Trip", id: gone) }
        }
        let deleted = try folio("blame", url.path, String(gone))
        #expect(deleted.status == 1 && deleted.stderr.contains("Trip \(gone) was deleted by transaction 2 (by cleaner"), "\(deleted)")
        let unknown = try folio("blame", url.path, "987654")
        #expect(unknown.status == 1 && unknown.stderr.contains("No record with identifier 987654"), "\(unknown)")
        let wrong = try folio("blame", url.path, String(kept), "--entity", "Recipe")
        #expect(wrong.status == 64 && wrong.stderr.contains("Unknown entity 'Recipe'"), "\(wrong)")
        let right = try folio("blame", url.path, String(kept), "--entity", "Trip")
        #expect(right.status == 0 && right.stdout.contains("Oslo"), "\(right)")
        let notStore = try folio("blame", scratch.path, "1")
        #expect(notStore.status == 1 && notStore.stderr.contains("is not a Folio store"), "\(notStore)")
    }
}
