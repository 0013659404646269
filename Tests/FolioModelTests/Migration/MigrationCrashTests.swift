import Foundation
import Testing
@testable import Folio
@_spi(FolioEngine) import FolioStorage

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

@Suite("A migration killed at any point")
struct MigrationCrashTests {
    static let tripCount = 20_000

    /// What a killed migration left: the first version's store, or the migrated one.
    enum Outcome: Equatable {
        case unchanged
        case migrated
    }

    /// Reads the store's files with the storage engine alone and says which state they hold; records an
    /// issue for anything in between.
    func outcome(of url: URL, customStage: Bool) throws -> Outcome? {
        var configuration = StoreConfiguration()
        configuration.readOnly = true
        let raw = try Store.open(at: url, configuration: configuration)
        defer { raw.close() }
        let trips = raw.records(of: "Trip")
        #expect(trips.count == Self.tripCount)
        let renamed = trips.filter { $0.values["title"] != nil }.count
        let recorded = try RecordedSchema(parsing: try #require(raw.schema)).checksum
        if renamed == 0 {
            #expect(trips.allSatisfy { $0.values["name"] != nil })
            #expect(recorded == Schema([Trip.self]).checksum)
            return .unchanged
        }
        #expect(renamed == trips.count, "a migration was half applied: \(renamed) of \(trips.count) records renamed")
        #expect(trips.allSatisfy { $0.values["name"] == nil && $0.values["notes"] == nil })
        if customStage { #expect(trips.allSatisfy { $0.values["nights"] == .int(7) }, "the custom stage's values are part of the migration") }
        #expect(recorded != Schema([Trip.self]).checksum)
        return renamed == trips.count ? .migrated : nil
    }

    // The limit only catches a hang: under ThreadSanitizer the 16 instrumented workers of the custom
    // mode take about ten minutes on two cores (uninstrumented, about five inside the whole suite).
    @Test(.timeLimit(.minutes(20)), arguments: ["migrate-v2", "migrate-v2-custom"])
    func aMigrationKilledAtAnyPointLeavesTheOldStoreOrTheMigratedOne(_ mode: String) throws {
        let customStage = mode == "migrate-v2-custom"
        let seed = TemporaryStore()
        defer { seed.cleanUp() }
        try runWorker([seed.url.path, "import", "\(Self.tripCount)", "5000"])
        let worker = try #require(modelWorkerURL(), "folio-model-worker was not built next to the tests")
        // Kill points from before the container opens to after the commit; nil lets the migration finish.
        let delays: [Double?] = [0, 0.005, 0.01, 0.02, 0.03, 0.05, 0.08, 0.12, 0.18, 0.25, 0.35, 0.5, 0.75, 1.0, 1.5, nil]
        var seen: [Outcome] = []
        for delay in delays {
            let trial = TemporaryStore()
            defer { trial.cleanUp() }
            try FileManager.default.copyItem(at: seed.url, to: trial.url)
            let process = Process()
            process.executableURL = worker
            process.arguments = [trial.url.path, mode]
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            if let delay {
                Thread.sleep(forTimeInterval: delay)
                kill(process.processIdentifier, SIGKILL)
            }
            process.waitUntilExit()
            if delay == nil { #expect(process.terminationStatus == 0) }
            let state = try #require(
                try outcome(of: trial.url, customStage: customStage),
                "the store after a kill at \(delay ?? -1) s is neither state")
            seen.append(state)
            switch state {
            case .unchanged:
                // The first version opens it as it was, and migrating it again succeeds.
                let old = ModelContext(try trial.container(Trip.self))
                #expect(try old.fetchCount(FetchDescriptor<Trip>()) == Self.tripCount)
                try runWorker([trial.url.path, mode])
                #expect(try outcome(of: trial.url, customStage: customStage) == .migrated)
            case .migrated:
                // Opening the migrated store with version 2 writes nothing more.
                let sequence = try Store.open(at: trial.url).lastSequence
                try runWorker([trial.url.path, mode])
                #expect(try Store.open(at: trial.url).lastSequence == sequence)
            }
        }
        #expect(seen.first == .unchanged)
        #expect(seen.last == .migrated)
    }
}
