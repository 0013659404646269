import Foundation
import Testing
@testable import Folio

/// A container that has its store open while real `git` merges another clone's changes into its files.
@MainActor
@Suite("A store open while git merges into it", .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/git")))
struct GitLiveStoreTests {
    /// Runs `executable` and returns its exit status and its output and errors, interleaved.
    nonisolated static func run(
        _ executable: URL, _ arguments: [String], in directory: URL? = nil,
        environment extra: [String: String] = [:]
    ) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        process.environment = ProcessInfo.processInfo.environment.merging(extra) { _, new in new }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    @discardableResult
    static func git(_ arguments: String..., in directory: URL) throws -> String {
        let result = try run(
            URL(fileURLWithPath: "/usr/bin/git"), arguments, in: directory,
            environment: [
                "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": "/dev/null", "HOME": directory.path,
                "GIT_AUTHOR_NAME": "Test", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "Test",
                "GIT_COMMITTER_EMAIL": "t@example.com", "GIT_MERGE_AUTOEDIT": "no",
            ])
        try #require(result.status == 0, "git \(arguments.joined(separator: " ")): \(result.output)")
        return result.output
    }

    /// A new scratch directory (the caller removes it) holding a bare remote `origin.git` and its first
    /// clone `a`, whose `.gitattributes` and `.gitignore` route the store `store`'s files through Folio's
    /// merge driver and leave its lock and cache out.
    static func remote(_ label: String, store: String) throws -> (scratch: URL, origin: URL, first: URL) {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("folio-\(label)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        let origin = scratch.appendingPathComponent("origin.git")
        try git("init", "-q", "--bare", "-b", "main", origin.path, in: scratch)
        let first = try clone(origin, "a", in: scratch)
        try Data("\(store)/**/*.jsonl merge=folio -text\n\(store)/*.jsonl merge=folio -text\n\(store)/manifest.json merge=folio -text\n".utf8)
            .write(to: first.appendingPathComponent(".gitattributes"))
        try Data("\(store)/lock\n\(store)/cache/\n".utf8).write(to: first.appendingPathComponent(".gitignore"))
        return (scratch, origin, first)
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
        let (scratch, origin, a) = try Self.remote("git-live", store: "Trips.folio")
        defer { try? FileManager.default.removeItem(at: scratch) }
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
        try Self.pushTripFromAnotherClone(origin: origin, scratch: scratch)

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

        #expect(
            await eventually { results.results.map(\.name) == ["base 1", "base 2", "from a", "from b"] },
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

    /// A second clone, `b`, saves the trip "from b" (author "b"), commits it and pushes it as branch `b`.
    static func pushTripFromAnotherClone(origin: URL, scratch: URL) throws {
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
    }

    /// Two clones each save a trip after the base; the other clone's transaction is the earlier, so the
    /// merge numbers it before this clone's own.
    static func mergeRenumberingOwnTransaction(into a: URL, origin: URL, scratch: URL, container: ModelContainer) throws {
        try pushTripFromAnotherClone(origin: origin, scratch: scratch)
        let context = ModelContext(container)
        context.author = "a"
        context.insert(Self.trip("from a"))
        try context.save()
    }

    @Test func aHistoryTokenFromBeforeAMergeThatRenumberedItIsRefusedNotSkippedPast() async throws {
        let (scratch, origin, a) = try Self.remote("git-tokens", store: "Trips.folio")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let container = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: a.appendingPathComponent("Trips.folio")))
        let context = ModelContext(container)
        context.insert(Self.trip("base"))
        try context.save()
        try Self.git("add", "-A", in: a)
        try Self.git("commit", "-q", "-m", "base", in: a)
        try Self.git("push", "-q", "origin", "main", in: a)
        let atBase = try #require(try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).last?.token)

        try Self.mergeRenumberingOwnTransaction(into: a, origin: origin, scratch: scratch, container: container)
        let ownSave = try #require(try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).last?.token)
        #expect(ownSave.sequence == atBase.sequence + 1)
        // A token persisted by a sync process, as JSON.
        let persisted = try JSONEncoder().encode(ownSave)
        let stream = Collected()
        let reader = Task { [container] in
            do {
                for try await transaction in container.historyTransactions(after: atBase) { stream.append(transaction.author ?? "-") }
            } catch {
                stream.append("error")
            }
        }
        defer { reader.cancel() }
        #expect(await eventually { stream.values == ["a"] }, "\(stream.values)")

        try Self.git("commit", "-q", "-am", "a", in: a)
        try Self.git("fetch", "-q", "origin", in: a)
        try Self.git("merge", "--no-edit", "origin/b", in: a)

        // The merged journal holds b's transaction at the sequence this clone's save had.
        let after = try ModelContext(container).fetchHistory(
            HistoryDescriptor<DefaultHistoryTransaction>(
                predicate: #Predicate { $0.token > atBase }))
        #expect(after.map { $0.author ?? "-" } == ["b", "a"])
        let saved = try JSONDecoder().decode(DefaultHistoryToken.self, from: persisted)
        #expect(saved == ownSave)
        #expect {
            _ = try ModelContext(container).fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token > saved }))
        } throws: { error in
            (error as? FolioError)?.code == .historyExpired && "\(error)".contains("renumbered")
        }
        #expect(throws: FolioError.self) { _ = try HistoryObserver(historyTokens: [saved.storeIdentifier: saved], modelContainer: container) }
        // A stream that was running when git merged delivers b's transaction once, though its number is
        // below the one it had delivered.
        #expect(await eventually { stream.values == ["a", "b"] }, "\(stream.values)")
        // A token without the transaction's identifier (as older versions encoded it) is read by sequence.
        let old = try JSONDecoder().decode(
            DefaultHistoryToken.self, from: Data(#"{"storeIdentifier":"\#(saved.storeIdentifier)","sequence":\#(atBase.sequence)}"#.utf8))
        #expect(old.journalIdentifier == nil)
        #expect(
            try ModelContext(container).fetchHistory(
                HistoryDescriptor<DefaultHistoryTransaction>(
                    predicate: #Predicate { $0.token > old })
            ).count == 2)
    }
}

/// Values appended from another task.
final class Collected: @unchecked Sendable {
    // Sendable: `items` is read and written only while holding `lock`.
    private let lock = NSLock()
    private var items: [String] = []
    func append(_ value: String) { lock.withLock { items.append(value) } }
    var values: [String] { lock.withLock { items } }
}
