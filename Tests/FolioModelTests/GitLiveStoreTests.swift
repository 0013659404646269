import Foundation
import Testing
@testable import Folio

/// A container that has its store open while real `git` merges another clone's changes into its files.
@MainActor
@Suite("A store open while git merges into it", .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/git")))
struct GitLiveStoreTests {
    @discardableResult
    static func git(_ arguments: String..., in directory: URL) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/git")
        process.arguments = arguments
        process.currentDirectoryURL = directory
        var environment = ProcessInfo.processInfo.environment
        for (key, value) in ["GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": "/dev/null", "HOME": directory.path,
                             "GIT_AUTHOR_NAME": "Test", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "Test",
                             "GIT_COMMITTER_EMAIL": "t@example.com", "GIT_MERGE_AUTOEDIT": "no"] {
            environment[key] = value
        }
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        try #require(process.terminationStatus == 0, "git \(arguments.joined(separator: " ")): \(text)")
        return text
    }

    /// Clones `origin` into `name` and registers Folio's merge driver there.
    static func clone(_ origin: URL, _ name: String, in scratch: URL) throws -> URL {
        try git("clone", "-q", origin.path, name, in: scratch)
        let clone = scratch.appendingPathComponent(name)
        let folio = try #require(builtExecutableURL("folio"), "folio is built next to the tests")
        try git("config", "merge.folio.driver", "\(folio.path) merge-driver %O %A %B %P", in: clone)
        return clone
    }

    static func trip(_ name: String) -> Trip {
        Trip(name: name, destination: "Rome", startDate: Date(timeIntervalSince1970: 1_800_000_000), price: 10)
    }

    @Test func aMergeReachesTheOpenContainerItsObserversAndItsNextSave() async throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("folio-git-live-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let origin = scratch.appendingPathComponent("origin.git")
        try Self.git("init", "-q", "--bare", "-b", "main", origin.path, in: scratch)
        let a = try Self.clone(origin, "a", in: scratch)
        try Data("Trips.folio/*.jsonl merge=folio -text\nTrips.folio/manifest.json merge=folio -text\n".utf8)
            .write(to: a.appendingPathComponent(".gitattributes"))
        try Data("Trips.folio/lock\nTrips.folio/cache/\n".utf8).write(to: a.appendingPathComponent(".gitignore"))
        let storeA = a.appendingPathComponent("Trips.folio")
        let container = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: storeA))
        let context = ModelContext(container)
        context.insert(Self.trip("base 1"))
        context.insert(Self.trip("base 2"))
        try context.save()
        try Self.git("add", "-A", in: a)
        try Self.git("commit", "-q", "-m", "base", in: a)
        try Self.git("push", "-q", "origin", "main", in: a)

        // Another machine adds a trip and pushes it.
        let b = try Self.clone(origin, "b", in: scratch)
        do {
            let other = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: b.appendingPathComponent("Trips.folio")))
            let otherContext = ModelContext(other)
            otherContext.author = "b"
            otherContext.insert(Self.trip("from b"))
            try otherContext.save()
        }
        try Self.git("commit", "-q", "-am", "b", in: b)
        try Self.git("push", "-q", "origin", "main:b", in: b)

        // Meanwhile this app saves a trip of its own and commits it; then it pulls b's work.
        let results = try ResultsObserver<Trip, Never>(sortBy: [SortDescriptor(\.name)], modelContainer: container)
        let history = try HistoryObserver(modelContainer: container)
        context.insert(Self.trip("from a"))
        try context.save()
        #expect(await eventually { results.results.count == 3 })
        let eventsBefore = history.eventCounter
        try Self.git("commit", "-q", "-am", "a", in: a)
        try Self.git("fetch", "-q", "origin", in: a)
        try Self.git("merge", "--no-edit", "origin/b", in: a)

        #expect(await eventually { results.results.map(\.name) == ["base 1", "base 2", "from a", "from b"] },
                "\(results.results.map(\.name))")
        #expect(await eventually { history.eventCounter > eventsBefore })
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Trip>()) == 4)

        // A save after the merge builds on what git put there.
        context.insert(Self.trip("after"))
        try context.save()
        let reopened = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: storeA))
        let names = try ModelContext(reopened).fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)])).map(\.name)
        #expect(names == ["after", "base 1", "base 2", "from a", "from b"])
    }
}
