import Foundation
import Testing
@testable import Folio

/// `ModelContainer.sync(remote:branch:)` between two clones of a bare remote, with real git and no
/// `folio` merge driver registered: the container merges in-process.
@MainActor
@Suite("ModelContainer.sync", .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/git")))
struct ContainerSyncTests {
    typealias Live = GitLiveStoreTests

    /// Clones `origin` into `name` with a committer identity, and no merge driver.
    static func clone(_ origin: URL, _ name: String, in scratch: URL) throws -> URL {
        try Live.git("clone", "-q", origin.path, name, in: scratch)
        let clone = scratch.appendingPathComponent(name)
        try Live.git("config", "user.name", "Sync Test", in: clone)
        try Live.git("config", "user.email", "sync@example.com", in: clone)
        return clone
    }

    static func names(_ container: ModelContainer) throws -> [String] {
        try ModelContext(container).fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)])).map(\.name)
    }

    @Test func aSyncBringsAnotherClonesSavesToTheOpenContainerAndItsObservers() async throws {
        let (scratch, origin, a) = try Live.remote("container-sync", store: "Trips.folio")
        defer { try? FileManager.default.removeItem(at: scratch) }
        try Live.git("config", "user.name", "Sync Test", in: a)
        try Live.git("config", "user.email", "sync@example.com", in: a)
        try Live.git("add", ".gitattributes", ".gitignore", in: a)
        try Live.git("commit", "-q", "-m", "Merge the store with Folio's rules", in: a)
        try Live.git("push", "-q", "-u", "origin", "main", in: a)

        let containerA = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: a.appendingPathComponent("Trips.folio")))
        let contextA = ModelContext(containerA)
        contextA.author = "a"
        contextA.insert(Live.trip("from a"))
        try contextA.save()
        let first = try await containerA.sync(remote: "origin")
        // The container's first transaction, which records the schema, has no author.
        #expect(first.pushed && first.sent.compactMap(\.author) == ["a"] && first.received.isEmpty, "\(first)")
        #expect(first.commitMessage == "Trips.folio: 1 transaction by a, 1 by no author")

        let b = try Self.clone(origin, "b", in: scratch)
        let containerB = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: b.appendingPathComponent("Trips.folio")))
        #expect(try Self.names(containerB) == ["from a"])
        let contextB = ModelContext(containerB)
        contextB.author = "b"
        contextB.insert(Live.trip("from b"))
        try contextB.save()
        let fromB = try await containerB.sync()
        #expect(fromB.pushed && fromB.sent.map(\.author) == ["b"], "\(fromB)")

        let results = try ResultsObserver<Trip, Never>(sortBy: [SortDescriptor(\.name)], modelContainer: containerA)
        let history = try HistoryObserver(modelContainer: containerA)
        contextA.insert(Live.trip("second from a"))
        try contextA.save()
        #expect(await eventually { results.results.count == 2 })
        let eventsBefore = history.eventCounter

        let report = try await containerA.sync()
        #expect(report.received.map(\.author) == ["b"], "\(report)")
        #expect(
            report.mergedFiles.contains { $0.hasPrefix("Trips.folio/journal.jsonl: merged 1 transaction(s) of ours and 1 of theirs") }, "\(report)")
        #expect(report.pushed && report.sent.map(\.author) == ["a"], "\(report)")
        // The next fetch sees what came in, and the observers report it.
        #expect(try Self.names(containerA) == ["from a", "from b", "second from a"])
        #expect(await eventually { results.results.map(\.name) == ["from a", "from b", "second from a"] }, "\(results.results.map(\.name))")
        #expect(await eventually { history.eventCounter > eventsBefore })
        // A save after the sync builds on the merged store.
        contextA.insert(Live.trip("after"))
        try contextA.save()
        #expect(try await containerA.sync().sent.count == 1)
        #expect(try await containerB.sync().received.count == 2)
        #expect(try Self.names(containerB) == ["after", "from a", "from b", "second from a"])
    }

    @Test func aSyncThatCannotRunThrowsATypedErrorNamingWhy() async throws {
        let (scratch, _, a) = try Live.remote("container-sync-errors", store: "Trips.folio")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let container = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: a.appendingPathComponent("Trips.folio")))
        await #expect {
            _ = try await container.sync(remote: "-oProxyCommand=touch pwned")
        } throws: { error in
            (error as? SyncError)?.code == .invalidName
        }
        await #expect {
            _ = try await container.sync(remote: "elsewhere")
        } throws: { error in
            (error as? SyncError)?.code == .unknownRemote && (error as? SyncError)?.remote == "elsewhere"
        }
        let memory = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        await #expect {
            _ = try await memory.sync()
        } throws: { error in
            (error as? SyncError)?.code == .notInWorkTree
        }
        #expect(!FileManager.default.fileExists(atPath: a.appendingPathComponent("pwned").path))
    }
    @Test func aLockThatIsNotASyncsOwnIsWaitedForAndLeftInPlace() async throws {
        let (scratch, _, a) = try Live.remote("container-sync-lock", store: "Trips.folio")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let container = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: a.appendingPathComponent("Trips.folio")))
        let lock = a.appendingPathComponent(".git/index.lock")
        try Data().write(to: lock)
        var options = SyncOptions(remote: "origin")
        options.lockWait = 0.3
        await #expect {
            _ = try await container.sync(options: options)
        } throws: { error in
            (error as? SyncError)?.code == .gitLocked && "\(error)".contains("index.lock")
        }
        #expect(FileManager.default.fileExists(atPath: lock.path), "another git's lock is its own to remove")
    }
}
