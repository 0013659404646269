import Folio
import FolioStorage
import Foundation

// The sync measurement of issue "Many machines, one store": two clones of a loaded store in a git
// repository, each changing 1 % of the trips, synced one after the other through a bare remote, beside
// the time to open the store and git's own time to move the same commits. Each step is a process.

enum SyncBench {
    /// `folio-bench sync STORE prepare | open | git | sync`: one step, one JSON row.
    ///
    /// `prepare` makes `STORE.sync/{remote.git,a,b}`: a bare remote, clone `a` holding STORE (compacted)
    /// committed with `folio git-setup`'s attributes, clone `b` of it; then `a` raises the price of the
    /// first 1 % of trips by start date and `b` of the 1 % from the middle, uncommitted, and the whole
    /// folder is copied to `STORE.sync.copy` for the `git` step. `open` opens `b`'s store and reads its
    /// records. `git` commits each clone's store files in the copy with plain git, times `a`'s push,
    /// `b`'s fetch of it and `b`'s push of its own commit (to another branch: the same objects a
    /// sync's push sends, but for the merge's). `sync` syncs `a`, then `b` (which merges `a`'s commit).
    static func run(_ path: String, step: String) {
        let source = Workloads.storeURL(path)
        let root = URL(fileURLWithPath: path + ".sync", isDirectory: true)
        let copy = URL(fileURLWithPath: path + ".sync.copy", isDirectory: true)
        let usage = StepUsage()
        var row = Row("Y1")
        row.add("step", step)
        let t0 = now()
        do {
            switch step {
            case "prepare":
                row.add("changed", try prepare(from: source, at: root, copy: copy))
            case "open":
                let records = try measuredStep { () -> Int in
                    let container = Workloads.container(TripV2.self, root.appendingPathComponent("b/Trips.folio"))
                    return try ModelContext(container).fetchCount(FetchDescriptor<TripV2>())
                }
                row.add("records", records)
            case "git":
                for (clone, message) in [("a", "a's prices"), ("b", "b's prices")] {
                    let directory = copy.appendingPathComponent(clone).path
                    PastBench.git(["add", "--", "Trips.folio"], in: directory)
                    PastBench.git(["commit", "-q", "-m", message], in: directory)
                }
                let t1 = now()
                PastBench.git(["push", "-q", "origin", "HEAD:main"], in: copy.appendingPathComponent("a").path)
                let t2 = now()
                PastBench.git(["fetch", "-q", "origin"], in: copy.appendingPathComponent("b").path)
                let t3 = now()
                PastBench.git(["push", "-q", "origin", "HEAD:refs/heads/b"], in: copy.appendingPathComponent("b").path)
                let t4 = now()
                row.add("push_a", t2 - t1, decimals: 3)
                row.add("fetch_b", t3 - t2, decimals: 3)
                row.add("push_b", t4 - t3, decimals: 3)
            case "sync":
                for clone in ["a", "b"] {
                    let begin = now()
                    let report = try GitSync.run(store: root.appendingPathComponent("\(clone)/Trips.folio"))
                    row.add("\(clone)_seconds", now() - begin, decimals: 3)
                    row.add("\(clone)_sent", report.sent.count)
                    row.add("\(clone)_received", report.received.count)
                }
            default:
                usageExit()
            }
        } catch {
            fail("sync \(step)", error)
        }
        row.add("seconds", now() - t0, decimals: 4)
        usage.spent().add(to: &row)
        row.add("maxrss_kib", peakRSSKiB())
        row.emit()
    }

    /// Makes the remote and the two changed clones; returns how many trips each changed.
    static func prepare(from source: URL, at root: URL, copy: URL) throws -> Int {
        let manager = FileManager.default
        for folder in [root, copy] { try? manager.removeItem(at: folder) }
        try manager.createDirectory(at: root, withIntermediateDirectories: true)
        let remote = root.appendingPathComponent("remote.git").path
        PastBench.git(["init", "-q", "--bare", "-b", "main", remote], in: root.path)
        PastBench.git(["clone", "-q", remote, "a"], in: root.path)
        let a = root.appendingPathComponent("a")
        PastBench.git(["config", "user.name", "bench"], in: a.path)
        PastBench.git(["config", "user.email", "bench@example.com"], in: a.path)
        try MergeBench.copyStore(source, to: a.appendingPathComponent("Trips.folio"))
        try Workloads.container(TripV2.self, a.appendingPathComponent("Trips.folio")).compact()
        try runFolio(["git-setup", "Trips.folio"], in: a)
        PastBench.git(["add", "-A"], in: a.path)
        PastBench.git(["commit", "-q", "-m", "trips"], in: a.path)
        PastBench.git(["push", "-q", "origin", "HEAD:main"], in: a.path)
        PastBench.git(["clone", "-q", remote, "b"], in: root.path)
        let b = root.appendingPathComponent("b")
        PastBench.git(["config", "user.name", "bench"], in: b.path)
        PastBench.git(["config", "user.email", "bench@example.com"], in: b.path)
        try runFolio(["git-setup", "Trips.folio"], in: b)
        let changed =
            try MergeBench.change(a.appendingPathComponent("Trips.folio"), atFraction: 0, compacting: false)
            + MergeBench.change(b.appendingPathComponent("Trips.folio"), atFraction: 0.5, compacting: false)
        // The copy's clones push to the copy's remote, so that the `git` step leaves the synced ones alone.
        try manager.copyItem(at: root, to: copy)
        for clone in ["a", "b"] {
            PastBench.git(
                ["remote", "set-url", "origin", copy.appendingPathComponent("remote.git").path], in: copy.appendingPathComponent(clone).path)
        }
        return changed / 2
    }

    /// Runs the `folio` beside folio-bench in `directory`.
    static func runFolio(_ arguments: [String], in directory: URL) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("folio")
        process.arguments = arguments
        process.currentDirectoryURL = directory
        process.standardOutput = FileHandle.nullDevice
        try ProcessExit(running: process).wait()
    }
}
