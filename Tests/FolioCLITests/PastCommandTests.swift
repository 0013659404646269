import Foundation
import FolioStorage
import Testing

/// `--at`, `diff --from/--to` and `blame --at` on a store in a git repository, compared with what the
/// same commands print for a checkout of each revision and for a copy of the store kept at each
/// transaction. Seeded: set `FOLIO_DIFFERENTIAL_SEED` to replay a failure.
@Suite(
    "A store's past from the command line", .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/git"), "needs git at /usr/bin/git"))
struct PastCommandTests {
    typealias Git = GitMergeDriverTests

    /// A few random inserts, updates and deletes of trips in `clone`'s store, in one transaction.
    static func randomWrite(_ clone: URL, _ random: inout SplitMix64) throws {
        let existing = try Git.records(clone).keys.sorted()
        var choices = random
        try Git.write(clone) { t in
            for _ in 0..<(1 + choices.next() % 4) {
                switch choices.next() % 4 {
                case 0, 1:
                    try t.insert(
                        entity: "Trip", id: t.allocateID(),
                        values: ["name": .string("Trip \(choices.next() % 1000)"), "price": .double(Double(choices.next() % 500))])
                case 2 where !existing.isEmpty:
                    let id = existing[Int(choices.next() % UInt64(existing.count))]
                    if t.record(id: id) != nil { try t.update(entity: "Trip", id: id, values: ["price": .double(Double(choices.next() % 500))]) }
                default:
                    if let id = existing.randomElement(using: &choices), t.record(id: id) != nil { try t.delete(entity: "Trip", id: id) }
                }
            }
        }
        random = choices
    }

    static func store(_ clone: URL) -> String { clone.appendingPathComponent("Trips.folio").path }

    /// What `folio ARGUMENTS` prints, required to succeed.
    static func output(_ arguments: String...) throws -> String {
        let run = try folio(arguments: arguments)
        try #require(run.status == 0, "folio \(arguments.joined(separator: " ")): \(run)")
        return run.stdout
    }

    /// A copy of the clone's store directory, as it is now.
    static func keep(_ clone: URL, as name: String, in scratch: ScratchDirectory) throws -> String {
        let copy = scratch.appending("copies/\(name)")
        try FileManager.default.createDirectory(at: copy.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: store(clone), toPath: copy.path)
        return copy.path
    }

    /// Checks that every reading command prints for the store as of `point` what it prints for `reference`
    /// (the same exit status and output: a store with no trips at that point is a usage error for both).
    static func expectSameReading(_ path: String, at point: String, as reference: String, _ context: String) throws {
        for command in [["cat", "Trip"], ["export"], ["schema", "--json"]] {
            let atPoint = try folio(arguments: [command[0], path] + command.dropFirst() + ["--at", point])
            let expected = try folio(arguments: [command[0], reference] + command.dropFirst())
            #expect(atPoint.status == expected.status && atPoint.stdout == expected.stdout, "\(context): \(command[0])\n\(atPoint)\n\(expected)")
        }
        let info = try JSONReader().parse(output("info", path, "--json", "--at", point))
        let expected = try JSONReader().parse(output("info", reference, "--json"))
        // Counts, not file sizes: a store rebuilt from its history has no files of its own.
        let counts = { (info: JSONValue) in info["entities"]?.objectValue?.mapValues { $0["records"] } }
        #expect(counts(info) == counts(expected) && info["lastSequence"] == expected["lastSequence"], "\(context): info \(info) \(expected)")
    }

    @Test func readingAsOfARevisionOrATransactionPrintsWhatTheStoreThenHeld() throws {
        let seed = ServeViewsTests.seed()
        var random = SplitMix64(seed: seed)
        let remote = try Git.Remote()
        defer { remote.scratch.remove() }
        _ = try Git.seed(remote)
        let a = try remote.clone("a"), b = try remote.clone("b")

        // T1 on a, compacted; T2 on b; b merges a; T3 on b. A copy of b's store is kept at each commit
        // and after each transaction of T3.
        for _ in 0..<3 { try Self.randomWrite(a, &random) }
        try Git.compact(a)
        try Git.git("add", "-A", in: a)
        try Git.git("commit", "-q", "-m", "T1 (compacted)", in: a)
        try Git.git("push", "-q", "origin", "HEAD:a", in: a)
        for _ in 0..<3 { try Self.randomWrite(b, &random) }
        try Git.git("add", "-A", in: b)
        try Git.git("commit", "-q", "-m", "T2", in: b)
        var atCommit = ["T2": try Self.keep(b, as: "T2", in: remote.scratch)]
        try Git.git("fetch", "-q", "origin", in: b)
        try Git.git("merge", "-q", "--no-edit", "origin/a", in: b)
        atCommit["merge"] = try Self.keep(b, as: "merge", in: remote.scratch)
        var atSequence: [String: String] = [:]
        for _ in 0..<3 {
            try Self.randomWrite(b, &random)
            let sequence = try #require(try JSONReader().parse(Self.output("info", Self.store(b), "--json"))["lastSequence"]?.intValue)
            atSequence[String(sequence)] = try Self.keep(b, as: "seq-\(sequence)", in: remote.scratch)
        }
        try Git.git("add", "-A", in: b)
        try Git.git("commit", "-q", "-m", "T3", in: b)
        atCommit["T3"] = try Self.keep(b, as: "T3", in: remote.scratch)

        let path = Self.store(b)
        for (revision, name) in [("HEAD", "T3"), ("HEAD~1", "merge"), ("HEAD~2", "T2")] {
            try Self.expectSameReading(path, at: revision, as: try #require(atCommit[name]), "seed \(seed), \(revision)")
        }
        for (sequence, copy) in atSequence {
            try Self.expectSameReading(path, at: sequence, as: copy, "seed \(seed), transaction \(sequence)")
            try Self.expectSameReading(path, at: "#" + sequence, as: copy, "seed \(seed), transaction #\(sequence)")
        }

        // A diff between two points is the diff between the stores those points held.
        for (from, to) in [("HEAD~2", "HEAD"), ("HEAD~1", "HEAD")] {
            let names = ["HEAD": "T3", "HEAD~1": "merge", "HEAD~2": "T2"]
            let between = try folio(arguments: ["diff", path, "--from", from, "--to", to, "--json"])
            let copies = try folio(arguments: ["diff", try #require(atCommit[names[from] ?? ""]), try #require(atCommit[names[to] ?? ""]), "--json"])
            #expect(between.status == copies.status && between.stdout == copies.stdout, "seed \(seed): diff \(from) \(to)\n\(between)\n\(copies)")
        }
        let sinceLastCommit = try folio(arguments: ["diff", path, "--from", "HEAD"])
        #expect(sinceLastCommit.status == 0, "nothing changed since the last commit: \(sinceLastCommit)")

        // The same readings of the bare remote, once b pushed, and blame there names the same commits.
        try Git.git("push", "-q", "origin", "HEAD:main", in: b)
        let bare = remote.origin.appendingPathComponent("Trips.folio").path
        try Self.expectSameReading(bare, at: "main", as: try #require(atCommit["T3"]), "seed \(seed), bare main")
        try Self.expectSameReading(bare, at: "main~2", as: try #require(atCommit["T2"]), "seed \(seed), bare main~2")
        for id in try Git.records(b).keys.sorted().prefix(4) {
            let inClone = try JSONReader().parse(Self.output("blame", path, String(id), "--json"))
            let inBare = try JSONReader().parse(Self.output("blame", bare, String(id), "--json", "--at", "main"))
            #expect(inClone["members"] == inBare["members"], "seed \(seed): blame of \(id)")
            #expect(
                inClone["members"]?.arrayValue?.allSatisfy { $0["transaction"]?["commit"] != nil } == true, "seed \(seed): every value was committed")
        }
    }

    @Test func aPointTheStoreCannotReachIsRefusedWithARemedy() throws {
        let remote = try Git.Remote()
        defer { remote.scratch.remove() }
        _ = try Git.seed(remote)
        let a = try remote.clone("a")
        let path = Self.store(a)
        for (point, message) in [
            ("99", "has no transaction 99"), ("no-such-tag", "no commit named"), (";rm -rf x", "no commit named"),
            ("$(id)", "no commit named"), ("-h", "cannot be read as of revision -h"),
            ("12345678-1234-1234-1234-123456789ABC", "no retained transaction"),
        ] {
            let run = try folio(arguments: ["cat", path, "Trip", "--at=\(point)"])
            #expect(run.status == 1, "\(point): \(run)")
            #expect(run.stderr.contains(message) && run.stderr.contains("Help:"), "\(point): \(run)")
        }
        let outside = remote.scratch.appending("plain")
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: path, toPath: outside.appendingPathComponent("Trips.folio").path)
        let run = try folio(arguments: ["cat", outside.appendingPathComponent("Trips.folio").path, "Trip", "--at", "HEAD"])
        #expect(run.status == 1 && run.stderr.contains("git work tree"), "\(run)")
        let usage = try folio(arguments: ["diff", path])
        #expect(usage.status == 64, "\(usage)")
    }
}
