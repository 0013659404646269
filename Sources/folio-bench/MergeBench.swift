import Foundation
import Folio
import FolioStorage

// The git-merge measurement of issue "Git-native collaboration": two copies of a loaded store that
// each changed 1 % of the trips, merged file by file with `folio merge-driver` as git would run it,
// beside the time to open one of them and read its records. Each step is a process of its own.

enum MergeBench {
    /// `folio-bench merge STORE prepare journal|compacted`, `… open`, `… merge`: one step, one JSON row.
    ///
    /// `prepare` makes `STORE.merge/{base,ours,theirs}` from STORE (compacted first: the base a branch
    /// starts from); ours updates the price of the first 1 % of trips by start date, theirs of the 1 %
    /// from the middle, each compacting afterwards for `compacted`. `open` opens ours and reads its
    /// records; `merge` runs `folio merge-driver` (found beside folio-bench) on every file both sides
    /// changed, as git does.
    static func run(_ path: String, step: String, mode: String) {
        let source = Workloads.storeURL(path)
        let root = URL(fileURLWithPath: path + ".merge", isDirectory: true)
        let (base, ours, theirs) = (root.appendingPathComponent("base"), root.appendingPathComponent("ours"), root.appendingPathComponent("theirs"))
        let usage = StepUsage()
        var row = Row("G1")
        row.add("step", step)
        let t0 = now()
        do {
            switch step {
            case "prepare":
                try? FileManager.default.removeItem(at: root)
                try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
                try copyStore(source, to: base)
                try Workloads.container(TripV2.self, base).compact()
                try copyStore(base, to: ours)
                try copyStore(base, to: theirs)
                let changed =
                    try change(ours, atFraction: 0, compacting: mode == "compacted")
                    + change(theirs, atFraction: 0.5, compacting: mode == "compacted")
                row.add("mode", mode)
                row.add("changed", changed)
            case "open":
                let records = try measuredStep { () -> Int in
                    let container = Workloads.container(TripV2.self, ours)
                    return try ModelContext(container).fetchCount(FetchDescriptor<TripV2>())
                }
                row.add("records", records)
            case "merge":
                let files = try measuredStep { try mergeChangedFiles(base: base, ours: ours, theirs: theirs, into: root) }
                row.add("files", files)
            default:
                usageExit()
            }
        } catch {
            fail("merge \(step)", error)
        }
        row.add("seconds", now() - t0, decimals: 4)
        usage.spent().add(to: &row)
        row.add("maxrss_kib", peakRSSKiB())
        row.emit()
    }

    /// Copies a store's committed files (as `git clone` would: no cache, no lock).
    static func copyStore(_ source: URL, to destination: URL) throws {
        let manager = FileManager.default
        try manager.createDirectory(at: destination, withIntermediateDirectories: true)
        for name in try manager.contentsOfDirectory(atPath: source.path) where name != "cache" && name != "lock" {
            try manager.copyItem(at: source.appendingPathComponent(name), to: destination.appendingPathComponent(name))
        }
    }

    /// Raises the price of 1 % of the trips, from `fraction` of the way through them by start date.
    static func change(_ store: URL, atFraction fraction: Double, compacting: Bool) throws -> Int {
        let container = Workloads.container(TripV2.self, store)
        let context = ModelContext(container)
        let total = try context.fetchCount(FetchDescriptor<TripV2>())
        var descriptor = FetchDescriptor<TripV2>(sortBy: [SortDescriptor(\.startDate)])
        descriptor.fetchOffset = Int(Double(total) * fraction)
        descriptor.fetchLimit = max(1, total / 100)
        let trips = try context.fetch(descriptor)
        for trip in trips { trip.price += 1 }
        try context.save()
        if compacting { try container.compact() }
        return trips.count
    }

    /// Runs `folio merge-driver` on each file both sides changed, in reverse path order as git does;
    /// returns how many it merged.
    static func mergeChangedFiles(base: URL, ours: URL, theirs: URL, into root: URL) throws -> Int {
        let folio = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("folio")
        let manager = FileManager.default
        var paths = Set<String>()
        for store in [ours, theirs] {
            guard let walker = manager.enumerator(atPath: store.path) else { continue }
            for case let relative as String in walker where !relative.hasPrefix("cache") && relative != "lock" {
                var isDirectory: ObjCBool = false
                if manager.fileExists(atPath: store.appendingPathComponent(relative).path, isDirectory: &isDirectory), !isDirectory.boolValue {
                    paths.insert(relative)
                }
            }
        }
        var merged = 0
        for relative in paths.sorted().reversed() {
            let versions = [base, ours, theirs].map { manager.contents(atPath: $0.appendingPathComponent(relative).path) ?? Data() }
            if versions[1] == versions[2] || versions[0] == versions[1] || versions[0] == versions[2] { continue }
            let files = ["O", "A", "B"].map { root.appendingPathComponent(".merge_file_\($0)") }
            for (data, file) in zip(versions, files) { try data.write(to: file) }
            let process = Process()
            process.executableURL = folio
            process.arguments = ["merge-driver"] + files.map(\.path) + ["Trips.folio/\(relative)"]
            process.standardError = FileHandle.nullDevice
            // Not waitUntilExit(): on Linux it polls in 50 ms slices, which would round every time up.
            try ProcessExit(running: process).wait()
            guard process.terminationStatus == 0 else {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "folio merge-driver failed on \(relative)"])
            }
            merged += 1
        }
        return merged
    }
}
