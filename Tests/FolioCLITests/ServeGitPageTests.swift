import Foundation
import FolioStorage
import Testing
@testable import folio

/// A `folio serve` server over the store of a git clone committed twice: the seed's three trips, then a
/// commit that changes a price, inserts a trip named with markup and deletes a trip.
final class ServedClone {
    typealias Git = GitMergeDriverTests
    let remote: Git.Remote
    let clone: URL
    let trips: [Int64]
    let inserted: Int64
    let server: HTTPServer
    let stores: ServedStores
    static let markup = "<script>alert(1)</script>"
    var client: RawHTTPClient { RawHTTPClient(port: server.port) }
    var store: String { clone.appendingPathComponent("Trips.folio").path }

    init(name: String = #function) throws {
        remote = try Git.Remote(name)
        trips = try Git.seed(remote)
        clone = try remote.clone("a")
        var id: Int64 = 0
        try Git.write(clone) { [trips] t in
            try t.update(entity: "Trip", id: trips[0], values: ["price": .double(81)])
            id = t.allocateID()
            try t.insert(entity: "Trip", id: id, values: ["name": .string(Self.markup), "price": .double(1)])
            try t.delete(entity: "Trip", id: trips[2])
        }
        inserted = id
        try Git.git("add", "-A", in: clone)
        try Git.git("commit", "-q", "-m", "second", in: clone)
        (server, stores) = try ServeCommand.start(paths: [clone.appendingPathComponent("Trips.folio").path], host: "127.0.0.1", port: 0)
    }

    /// The store's commits, newest first, as `git log` lists them.
    func gitLog() throws -> [String] {
        try Git.git("log", "--format=%H", "--", "Trips.folio", in: clone).stdout.split(separator: "\n").map(String.init)
    }

    func json(_ path: String) throws -> JSONValue {
        let response = try client.get(path, headers: ["Accept": "application/json"])
        return try JSONReader().parse(response.body)
    }

    func stop() {
        server.stop()
        stores.closeAll()
        remote.scratch.remove()
    }
}

@Suite(
    "folio serve: commits, diffs and blame", .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/git"), "needs git at /usr/bin/git"))
struct ServeGitPageTests {
    /// The members `folio diff --json` prints, which the diff page's JSON repeats.
    static let diffMembers = ["changes", "inserted", "updated", "deleted", "entities", "equal", "schema"]

    @Test func theCommitsPageListsTheCommitsThatTouchedTheStoreAsGitLogDoes() throws {
        let served = try ServedClone()
        defer { served.stop() }
        let hashes = try served.gitLog()
        try #require(hashes.count == 2)
        let object = try served.json("/Trips.folio/-/commits.json")
        let commits = object["commits"]?.arrayValue ?? []
        #expect(commits.map { $0["hash"]?.stringValue } == hashes)
        #expect(commits.map { $0["subject"]?.stringValue } == ["second", "three trips"])
        #expect(object["total"] == .int(2) && object["gitWorkTree"] == .bool(true))
        #expect(commits.first?["diff"]?.stringValue == "/Trips.folio/-/diff?from=\(hashes[1])&to=\(hashes[0])")
        #expect(commits.last?["diff"] == .null, "a root commit has no parent to compare with")
        let second = try served.json("/Trips.folio/-/commits.json?size=1&page=2")
        #expect(second["commits"]?.arrayValue?.map { $0["hash"]?.stringValue } == [hashes[1]] && second["pages"] == .int(2))

        let html = try served.client.get("/Trips.folio/-/commits").body
        #expect(
            html.contains("<a href=\"/Trips.folio/-/diff?from=\(hashes[1])&amp;to=\(hashes[0])\" class=\"mono\">\(hashes[0].prefix(10))</a>"),
            "\(html)")
        #expect(html.contains("(root)"))
        #expect(try served.client.get("/Trips.folio").body.contains("<a href=\"/Trips.folio/-/commits\">Commits</a>"))
    }

    @Test func theDiffPageReportsWhatFolioDiffReportsForTheSamePoints() throws {
        let served = try ServedClone()
        defer { served.stop() }
        let hashes = try served.gitLog()
        let commitDiff = try #require(try served.json("/Trips.folio/-/commits.json")["commits"]?.arrayValue?.first?["diff"]?.stringValue)
        let cases: [(path: String, arguments: [String])] = [
            (commitDiff, ["--from", hashes[1], "--to", hashes[0]]),
            ("/Trips.folio/-/diff?from=HEAD~1&to=HEAD", ["--from", "HEAD~1", "--to", "HEAD"]),
            ("/Trips.folio/-/diff?from=1", ["--from", "1"]),
            ("/Trips.folio/-/diff?from=%232&to=1", ["--from", "#2", "--to", "1"]),
            ("/Trips.folio/-/diff?from=HEAD&to=2", ["--from", "HEAD", "--to", "2"]),
        ]
        for (path, arguments) in cases {
            let run = try folio(arguments: ["diff", served.store, "--json"] + arguments)
            try #require(run.status <= 1, "\(run)")
            let expected = try JSONReader().parse(run.stdout)
            let page = try served.json(path)
            for member in Self.diffMembers { #expect(page[member] == expected[member], "\(path): \(member)") }
            #expect(page["changesOmitted"] == .int(0))
        }
        #expect(try served.json("/Trips.folio/-/diff.json?from=HEAD~1")["changes"]?.arrayValue?.count == 3)

        let html = try served.client.get("/Trips.folio/-/diff?from=HEAD~1").body
        #expect(!html.contains(ServedClone.markup))
        #expect(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"), "\(html)")
        #expect(html.contains("<a href=\"/Trips.folio/Trip/\(served.inserted)\">Trip \(served.inserted)</a></td><td>inserted</td>"))
        #expect(html.contains("price <code>80.0</code> → <code>81.0</code>"), "\(html)")
        #expect(html.contains("<td>deleted</td>"))
    }

    @Test func theRecordPagesBlameNamesTheCommitsFolioBlameNames() throws {
        let served = try ServedClone()
        defer { served.stop() }
        let hashes = try served.gitLog()
        let run = try folio("blame", served.store, String(served.trips[0]), "--json")
        try #require(run.status == 0, "\(run)")
        let expected = try JSONReader().parse(run.stdout)
        let page = try served.json("/Trips.folio/Trip/\(served.trips[0]).json")
        #expect(page["blame"] == expected)
        let members = page["blame"]?["members"]?.arrayValue ?? []
        let commit = { (name: String) in members.first { $0["name"] == .string(name) }?["transaction"]?["commit"]?["hash"]?.stringValue }
        #expect(commit("price") == hashes[0] && commit("name") == hashes[1])

        let html = try served.client.get("/Trips.folio/Trip/\(served.trips[0])").body
        #expect(html.contains("<h2>Blame</h2>"))
        #expect(html.contains("<a href=\"/Trips.folio/-/log?page=1&amp;size=50#t2\">2</a>"), "\(html)")
        #expect(html.contains(">\(hashes[0].prefix(10))</td><td>second</td>"))
        #expect(html.contains(">\(hashes[1].prefix(10))</td><td>three trips</td>"))

        // A transaction written since the last commit is blamed on no commit.
        try ServedClone.Git.write(served.clone) { t in try t.update(entity: "Trip", id: served.trips[0], values: ["price": .double(82)]) }
        #expect(try served.client.get("/Trips.folio/Trip/\(served.trips[0])").body.contains("(uncommitted)"))
    }

    @Test func hostileRevisionsGetAnErrorPageAndRunNothing() throws {
        let served = try ServedClone()
        defer { served.stop() }
        let victim = served.clone.appendingPathComponent("x")
        try Data("keep".utf8).write(to: victim)
        let leak = served.remote.scratch.appending("leak")
        let tmpExisted = FileManager.default.fileExists(atPath: "/tmp/x")
        let statusBefore = try ServedClone.Git.git("status", "--porcelain", in: served.clone).stdout
        let refused = ["-h", "--output=\(leak.path)", "--output=/tmp/x", "-", "HEAD\u{1}"]
        let unknown = [";rm -rf x", "$(id)", "`id`", "..", "HEAD;id", "HEAD~99", "999", "00000000-0000-0000-0000-000000000000"]
        for revision in refused + unknown {
            for query in [[("from", revision)], [("from", "HEAD"), ("to", revision)]] {
                let path = "/Trips.folio/-/diff?" + PercentEncoding.query(query)
                let page = try served.client.get(path)
                #expect(refused.contains(revision) ? page.status == 400 : page.status == 404 || page.status == 400, "\(revision): \(page)")
                #expect(page.body.contains("class=\"error\""), "\(revision): \(page)")
                #expect(!page.body.contains("<script"), "\(revision)")
                let json = try served.json(path)
                #expect(json["error"]?["message"]?.stringValue?.isEmpty == false, "\(revision): \(json)")
            }
        }
        #expect(try served.client.get("/Trips.folio/-/diff").status == 400, "from is required")
        #expect(FileManager.default.fileExists(atPath: victim.path))
        #expect(!FileManager.default.fileExists(atPath: leak.path))
        #expect(FileManager.default.fileExists(atPath: "/tmp/x") == tmpExisted)
        #expect(try ServedClone.Git.git("status", "--porcelain", in: served.clone).stdout == statusBefore)
        #expect(try served.client.get("/Trips.folio/-/commits.json").status == 200, "the server keeps serving")
    }

    @Test func outsideAWorkTreeThePagesSaySoAndTransactionsStillCompare() throws {
        let served = try ServedLibrary()
        defer { served.stop() }
        try #require(!TransactionCommits.hasGitFolderAbove(served.storeURL), "the scratch folder is in no work tree")
        let commits = try JSONReader().parse(try served.client.get("/library/-/commits.json").body)
        #expect(commits["gitWorkTree"] == .bool(false) && commits["commits"] == .array([]))
        let page = try served.client.get("/library/-/commits")
        #expect(page.status == 200 && page.body.contains("not in a git work tree"))
        let record = try JSONReader().parse(try served.client.get("/library/Book/5.json").body)
        #expect(record["blame"]?["gitWorkTree"] == .bool(false))
        #expect(record["blame"]?["members"]?.arrayValue?.isEmpty == false)
        let run = try folio("diff", served.storeURL.path, "--from", "1", "--json")
        let expected = try JSONReader().parse(run.stdout)
        let diff = try JSONReader().parse(try served.client.get("/library/-/diff.json?from=1").body)
        for member in Self.diffMembers { #expect(diff[member] == expected[member], "\(member)") }
        let revision = try served.client.get("/library/-/diff?from=HEAD")
        #expect(revision.status == 404 && revision.body.contains("git"), "\(revision)")
    }

    @Test func aStoreGitChecksOutWhileServedShowsEachRevisionAndNeverFails() throws {
        let served = try ServedClone()
        defer { served.stop() }
        let hashes = try served.gitLog()
        // What the store's files hold now, read without the server.
        func expected() throws -> (total: Int, price: JSONValue?) {
            let store = try StoreAccess.openReadOnly(served.store)
            defer { store.close() }
            return (store.records(of: "Trip").count, store.record(id: served.trips[0])?.values["price"])
        }
        // Pages asked for all along, while git replaces the store's files under the server.
        let statuses = LockedState<[Int]>([])
        let stop = LockedState(false)
        let asking = DispatchGroup()
        DispatchQueue.global().async(group: asking) { [client = served.client, trip = served.trips[0]] in
            while !stop.withLock({ $0 }) {
                for path in ["/Trips.folio/Trip.json", "/Trips.folio/Trip/\(trip).json", "/Trips.folio"] {
                    let status = (try? client.get(path).status) ?? 0
                    statuses.withLock { $0.append(status) }
                }
            }
        }
        for round in 0..<10 {
            try ServedClone.Git.git("checkout", "-q", hashes[round % 2 == 0 ? 1 : 0], in: served.clone)
            let want = try expected()
            let table = try served.json("/Trips.folio/Trip.json")
            #expect(table["total"] == .int(Int64(want.total)), "round \(round): \(table)")
            let record = try served.json("/Trips.folio/Trip/\(served.trips[0]).json")
            #expect(record["values"]?["price"] == want.price, "round \(round): \(record)")
        }
        stop.withLock { $0 = true }
        asking.wait()
        let seen = statuses.withLock { $0 }
        #expect(seen.count >= 6)
        // A page reading the files while git writes them may find them half replaced: a 503, never
        // another failure.
        #expect(seen.allSatisfy { $0 == 200 || $0 == 503 }, "\(Dictionary(grouping: seen, by: { $0 }).mapValues(\.count))")
    }

    @Test func aRepositoryWithoutCommitsListsNoneAndBlamesNoCommit() throws {
        let served = try ServedLibrary { url in
            try LibraryStore.write(to: url)
            try ServedClone.Git.git("init", "-q", "-b", "main", in: url.deletingLastPathComponent())
        }
        defer { served.stop() }
        let commits = try JSONReader().parse(try served.client.get("/library/-/commits.json").body)
        #expect(commits["gitWorkTree"] == .bool(true) && commits["total"] == .int(0) && commits["commits"] == .array([]), "\(commits)")
        let record = try JSONReader().parse(try served.client.get("/library/Book/5.json").body)
        #expect(record["blame"]?["gitWorkTree"] == .bool(true))
        #expect(record["blame"]?["members"]?.arrayValue?.allSatisfy { $0["transaction"]?["commit"] == .null } == true, "\(record)")
        #expect(try served.client.get("/library/Book/5").body.contains("(uncommitted)"))
    }
}
