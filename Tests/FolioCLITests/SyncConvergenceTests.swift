import Foundation
import FolioStorage
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Four clones of a remote, each changed by its own process that saves and syncs at random, some
/// killed (SIGKILL) and started again, then a final round of syncs: every clone must hold the same
/// store, every save that returned, and pass `folio verify`.
///
/// Seeded: `FOLIO_SYNC_SEED=N` repeats a run's choices (not the timing of the processes); every failure
/// names the seed. `swift test` runs a short form; `FOLIO_LONG_TESTS=1` a longer one.
@Suite("Clones saving and syncing at random converge", .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/git")))
struct SyncConvergenceTests {
    static let long = ProcessInfo.processInfo.environment["FOLIO_LONG_TESTS"] == "1"

    /// What one clone's workers printed: the saves that returned, and the syncs that ran.
    final class Transcript: Sendable {
        private let lines = LockedState<[String]>([])
        func append(_ text: String) { lines.withLock { $0 += text.split(separator: "\n").map(String.init) } }
        var all: [String] { lines.withLock { $0 } }
    }

    /// Runs one worker on `clone` until it exits or, when `killAfter` is set, until it is killed then.
    static func runWorker(
        _ worker: URL, clone: URL, name: String, count: Int, seed: UInt64, killAfter: Double?, transcript: Transcript
    ) throws {
        let process = Process()
        process.executableURL = worker
        process.arguments = ["sync-churn", clone.appendingPathComponent("Trips.folio").path, "\(count)", name, "\(seed)"]
        process.currentDirectoryURL = clone
        process.environment = ProcessInfo.processInfo.environment.merging(SyncCommandTests.environment(clone)) { _, new in new }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let reader = DispatchGroup()
        reader.enter()
        DispatchQueue.global().async {
            transcript.append(String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))
            reader.leave()
        }
        if let killAfter {
            let deadline = Date().addingTimeInterval(killAfter)
            while process.isRunning, Date() < deadline { usleep(10_000) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }
        process.waitUntilExit()
        reader.wait()
    }

    @Test(.timeLimit(.minutes(30)))
    func fourClonesSavingAndSyncingAtRandomEndWithOneStoreHoldingEverySave() throws {
        let seed = ProcessInfo.processInfo.environment["FOLIO_SYNC_SEED"].flatMap { UInt64($0) } ?? UInt64.random(in: 1...UInt64(1) << 40)
        let worker = try #require(builtExecutable(named: "folio-storage-worker"), "folio-storage-worker is built (swift build --build-tests)")
        let remote = try Remote()
        // FOLIO_KEEP_SYNC_SCRATCH=1 keeps the remote and clones of a failed run to look into.
        defer { if ProcessInfo.processInfo.environment["FOLIO_KEEP_SYNC_SCRATCH"] == nil { remote.scratch.remove() } }
        _ = try GitMergeDriverTests.seed(remote)
        let clones = try (0..<4).map { try remote.clone("c\($0)") }
        let (count, killsPerClone) = Self.long ? (300, 4) : (30, 1)
        var generator = SplitMix64(seed: seed)  // SplitMix64, as the worker's: the same sequence from the seed
        // Each clone: its kills (seconds after its worker started), then one worker left to finish.
        let plans = clones.indices.map { _ in (0..<killsPerClone).map { _ in Double.random(in: 0.3...2.5, using: &generator) } }
        let transcripts = clones.map { _ in Transcript() }
        let failures = Transcript()
        DispatchQueue.concurrentPerform(iterations: clones.count) { index in
            do {
                for (generation, killAfter) in (plans[index].map { Optional($0) } + [nil]).enumerated() {
                    try Self.runWorker(
                        worker, clone: clones[index], name: "c\(index)", count: count, seed: seed &+ UInt64(index * 1000 + generation),
                        killAfter: killAfter, transcript: transcripts[index])
                }
            } catch {
                failures.append("c\(index): \(error)")
            }
        }
        #expect(failures.all.isEmpty, "seed \(seed): \(failures.all)")

        // Two rounds, one clone after the other: the last of the first round has every commit, and the
        // second round brings it to the others.
        for _ in 0..<2 {
            for clone in clones {
                let sync = try SyncCommandTests.sync(clone)
                #expect(sync.status == 0, "seed \(seed): final sync of \(clone.path): \(sync)")
            }
        }

        let first = try SyncCommandTests.state(clones[0])
        for (index, clone) in clones.enumerated() {
            #expect(try SyncCommandTests.state(clone) == first, "seed \(seed): c\(index) differs from c0")
            let conflicts = try folio("conflicts", "Trips.folio", directory: clone)
            #expect(conflicts.status == 0, "seed \(seed): \(conflicts)")
            #expect(try SyncCommandTests.git("status", "--porcelain", "--untracked-files=no", in: clone).isEmpty, "seed \(seed)")
        }
        // Every save that returned is in the merged store: merges keep every transaction (a value a
        // merge did not keep is listed by `folio conflicts`, on the transaction that won).
        let journal = try String(contentsOf: clones[0].appendingPathComponent("Trips.folio/journal.jsonl"), encoding: .utf8)
        var acknowledged = 0
        for (index, transcript) in transcripts.enumerated() {
            let saves = transcript.all.filter { $0.hasPrefix("ack ") }.map { String($0.dropFirst(4)) }
            acknowledged += saves.count
            let missing = saves.filter { !journal.contains("\"id\":\"\($0)\"") }
            #expect(missing.isEmpty, "seed \(seed): c\(index)'s saves \(missing.prefix(5)) are missing")
            let failed = transcript.all.filter { $0.hasPrefix("folio-storage-worker:") }
            #expect(failed.isEmpty, "seed \(seed): c\(index)'s worker failed: \(failed)")
        }
        #expect(acknowledged >= clones.count * count / 2, "seed \(seed): only \(acknowledged) saves returned")
        let syncs = transcripts.flatMap(\.all).filter { $0.hasPrefix("sync ok") }.count
        #expect(syncs > 0, "seed \(seed): no sync in a worker succeeded: \(transcripts.flatMap(\.all).filter { $0.hasPrefix("sync") })")
    }

    typealias Remote = GitMergeDriverTests.Remote
}
