import Foundation
import Testing
@testable import Folio

@MainActor
@Suite("Observer latency across processes", .serialized)
struct ObserverLatencyTests {
    /// A save in another process reaches a ResultsObserver, however busy the machine (it waits up to
    /// two minutes for each); how long it took, from the moment the other process acknowledges it, is
    /// printed, and the figure belongs in docs/benchmarks.md, not in an assertion.
    @Test func aSaveInAnotherProcessReachesTheObserver() async throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let container = try store.container(Trip.self)
        let observer = try ResultsObserver<Trip, Never>(modelContainer: container)
        let worker = try #require(modelWorkerURL())
        var latencies: [Double] = []
        for round in 1...5 {
            let process = Process()
            process.executableURL = worker
            process.arguments = [store.url.path, "insert", "1", "latency\(round)"]
            let output = Pipe()
            process.standardOutput = output
            try process.run()
            _ = output.fileHandleForReading.availableData  // returns once "saved 1" is written
            let acknowledged = Date()
            #expect(await eventually(120) { observer.results.count == round })
            latencies.append(Date().timeIntervalSince(acknowledged))
            process.waitUntilExit()
        }
        let median = latencies.sorted()[latencies.count / 2]
        print("OBSERVER_LATENCY median_ms=\(Int(median * 1000)) all_ms=\(latencies.map { Int($0 * 1000) })")
    }

    /// While observing, an idle process must not spin: a separate process observes the store for one
    /// second and reports the CPU time it used meanwhile (printed; the bound is generous).
    @Test func anIdleObserverDoesNotPoll() async throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        _ = try store.container(Trip.self)
        let output = try runWorker([store.url.path, "idle", "1"])
        let reported = output.split(separator: " ").first { $0.hasPrefix("cpu_seconds=") }
        let used = try #require(reported.flatMap { Double($0.dropFirst("cpu_seconds=".count)) })
        print("IDLE_OBSERVER cpu_ms_per_s=\(Int(used * 1000))")
        #expect(used < 0.2)
    }
}
