import Foundation
import Testing
@_spi(FolioEngine) import FolioStorage
@testable import Folio

/// A new process's first fetch on an `#Index`ed attribute is answered from the snapshot cache and the
/// journal, without reading every record, and returns what a fetch after loading returns.
@Suite("A first fetch without reading every record")
struct FetchWithoutLoadingTests {
    static let cities = ["Rome", "Paris", "Tokyo", "Lima", "Oslo"]

    /// A store of `count` trips, compacted (so that its snapshot has a cache), then `journal` applied
    /// as saves of its own (left in the journal).
    static func makeStore(_ store: TemporaryStore, count: Int = 200, journal: (ModelContext) throws -> Void = { _ in }) throws {
        let container = try store.container(Trip.self)
        let context = ModelContext(container)
        for index in 0..<count {
            let trip = Trip(
                name: "Trip \(index)", destination: cities[index % cities.count],
                startDate: Date(timeIntervalSince1970: Double(index) * 86_400), price: Double(index % 50))
            trip.notes = index % 3 == 0 ? nil : "note \(index)"
            context.insert(trip)
        }
        try context.save()
        try container.compact()
        container.store.cacheBuilds.wait()
        try journal(context)
    }

    /// The fetch in a new container, and in another that read every record first.
    static func bothWays(_ store: TemporaryStore, _ descriptor: FetchDescriptor<Trip>) throws
        -> (cold: [String], loaded: [String], readRecords: Bool)
    {
        let cold = try store.container(Trip.self)
        let coldNames = try ModelContext(cold).fetch(descriptor).map { "\($0.name)|\($0.destination)|\($0.price)|\($0.notes ?? "-")" }
        let readRecords = cold.store.hasLoadedRecords
        let loaded = try store.container(Trip.self)
        try loaded.loadRecords()
        let loadedNames = try ModelContext(loaded).fetch(descriptor).map { "\($0.name)|\($0.destination)|\($0.price)|\($0.notes ?? "-")" }
        // Caches the loads found unusable are written again in the background: done before the next step.
        cold.store.cacheBuilds.wait()
        loaded.store.cacheBuilds.wait()
        return (coldNames, loadedNames, readRecords)
    }

    static func cacheFile(_ store: TemporaryStore) -> URL {
        store.url.appendingPathComponent("cache/Trip.snapshot-cache")
    }

    /// The descriptors the first test runs, by number (descriptors are not `Sendable` test arguments).
    static func descriptor(_ number: Int) -> FetchDescriptor<Trip> {
        switch number {
        case 0: return FetchDescriptor(predicate: #Predicate { $0.destination == "Rome" })
        case 1: return FetchDescriptor(predicate: #Predicate { "Lima" == $0.destination && $0.price > 20 })
        case 2: return FetchDescriptor(predicate: #Predicate { $0.destination == "Oslo" && $0.notes != nil })
        case 3: return FetchDescriptor(predicate: #Predicate { $0.destination == "Nowhere" })
        default:
            var limited = FetchDescriptor<Trip>(predicate: #Predicate { $0.destination == "Paris" })
            limited.fetchLimit = 7
            return limited
        }
    }

    @Test(arguments: 0..<5)
    func aFirstFetchOnAnIndexedAttributeReadsOnlyTheRecordsItReturns(_ number: Int) throws {
        let descriptor = Self.descriptor(number)
        let store = TemporaryStore()
        defer { store.cleanUp() }
        try Self.makeStore(store)
        #expect(FileManager.default.fileExists(atPath: Self.cacheFile(store).path), "the compaction wrote the cache")
        let (cold, loaded, readRecords) = try Self.bothWays(store, descriptor)
        #expect(cold == loaded)
        #expect(!readRecords, "the records were not read")
    }

    @Test func gitLeavesTheCachesOutOfACommitWithNoSetUp() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        try Self.makeStore(store, count: 20)
        #expect(FileManager.default.fileExists(atPath: Self.cacheFile(store).path))
        func git(_ arguments: String...) throws -> String {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["git", "-C", store.url.path] + arguments
            let output = Pipe()
            process.standardOutput = output
            try process.run()
            let data = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            #expect(process.terminationStatus == 0, "git \(arguments)")
            return String(decoding: data, as: UTF8.self)
        }
        _ = try git("init", "--quiet")
        let untracked = try git("status", "--porcelain", "--untracked-files=all")
        #expect(untracked.contains("snapshots/Trip.jsonl"), "the store's files are there to commit: \(untracked)")
        #expect(!untracked.contains("cache/"), "the caches are not: \(untracked)")
    }

    @Test func theJournalsChangesAreLaidOverTheSnapshot() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        try Self.makeStore(store) { context in
            let rome = try context.fetch(
                FetchDescriptor<Trip>(
                    predicate: #Predicate { $0.destination == "Rome" },
                    sortBy: [SortDescriptor(\.name)]))
            context.delete(rome[0])
            rome[1].price = 1_000
            rome[2].destination = "Lima"
            context.insert(Trip(name: "New in Rome", destination: "Rome", startDate: .now, price: 3))
            try context.save()
        }
        let (cold, loaded, readRecords) = try Self.bothWays(store, FetchDescriptor(predicate: #Predicate { $0.destination == "Rome" }))
        #expect(cold == loaded)
        #expect(cold.contains { $0.hasPrefix("New in Rome|") })
        #expect(cold.contains { $0.contains("|1000.0|") })
        #expect(!readRecords)
        let (coldLima, loadedLima, _) = try Self.bothWays(store, FetchDescriptor(predicate: #Predicate { $0.destination == "Lima" }))
        #expect(coldLima == loadedLima, "a record moved to Lima by the journal is found")
    }

    @Test(arguments: ["missing", "stale", "foreign", "truncated", "damaged"])
    func aCacheThatCannotBeUsedIsNeverTrustedAndIsRebuilt(_ damage: String) throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        try Self.makeStore(store)
        let cache = Self.cacheFile(store)
        let good = try Data(contentsOf: cache)
        switch damage {
        case "missing":
            try FileManager.default.removeItem(at: cache)
        case "stale":
            // Another version of the snapshot: a compaction after more saves, with the old cache put back.
            let container = try store.container(Trip.self)
            let context = ModelContext(container)
            context.insert(Trip(name: "Later", destination: "Rome", startDate: .now, price: 1))
            try context.save()
            try container.compact()
            container.store.cacheBuilds.wait()
            try good.write(to: cache)
        case "foreign":
            let other = TemporaryStore()
            defer { other.cleanUp() }
            try Self.makeStore(other, count: 30)
            try Data(contentsOf: Self.cacheFile(other)).write(to: cache)
        case "truncated":
            try good.prefix(good.count / 2).write(to: cache)
        default:
            var bytes = [UInt8](good)
            for position in stride(from: 40, to: bytes.count, by: max(1, bytes.count / 16)) { bytes[position] ^= 0x5A }
            try Data(bytes).write(to: cache)
        }
        let descriptor = FetchDescriptor<Trip>(predicate: #Predicate { $0.destination == "Rome" })
        let (cold, loaded, _) = try Self.bothWays(store, descriptor)
        #expect(cold == loaded)
        // The load that answered wrote the cache again: the next new container answers from it.
        let again = try store.container(Trip.self)
        #expect(try ModelContext(again).fetch(descriptor).count == loaded.count)
        #expect(!again.store.hasLoadedRecords, "answered from the rebuilt cache")
    }
}
