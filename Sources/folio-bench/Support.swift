import Foundation
import Folio
import FolioStorage
#if canImport(Glibc)
    import Glibc
#endif

/// Seconds on the monotonic clock.
func now() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
}

/// C `printf` formatting (through `vsnprintf`), so numbers print exactly as the C harness prints them.
func cformat(_ format: String, _ arguments: CVarArg...) -> String {
    withVaList(arguments) { list in
        var buffer = [CChar](repeating: 0, count: 512)
        let count = Int(vsnprintf(&buffer, buffer.count, format, list))
        if count >= buffer.count {
            buffer = [CChar](repeating: 0, count: count + 1)
            _ = withVaList(arguments) { vsnprintf(&buffer, buffer.count, format, $0) }
        }
        let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// A value of `/proc/self/status` in KiB (VmHWM: peak resident set; VmRSS: current).
func procStatusKiB(_ field: String) -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return -1 }
    for line in text.split(separator: "\n") where line.hasPrefix(field + ":") {
        let digits = line.dropFirst(field.count + 1).filter(\.isNumber)
        return Int(digits) ?? -1
    }
    return -1
}

/// Peak RSS of the process so far (VmHWM), in KiB: what `getrusage` reports to the C harness.
func peakRSSKiB() -> Int { procStatusKiB("VmHWM") }

/// Resets VmHWM to the current RSS (Linux `clear_refs` 5), so that the next reading is the peak of one
/// step. Returns false where the kernel refuses.
@discardableResult
func resetPeakRSS() -> Bool {
    guard let handle = FileHandle(forWritingAtPath: "/proc/self/clear_refs") else { return false }
    defer { try? handle.close() }
    do {
        try handle.write(contentsOf: Data("5".utf8))
        return true
    } catch {
        return false
    }
}

/// What one step cost the process: its peak RSS, and the CPU time and minor page faults of every
/// thread (background compaction and index threads included), from `getrusage(RUSAGE_SELF)`.
///
/// Made at the start of a step (resetting the peak RSS); ``spent()`` reads the figures at its end.
struct StepUsage {
    let resetWorked: Bool
    private let start: ResourceUsage

    init() {
        resetWorked = resetPeakRSS()
        start = Platform.resourceUsage()
    }

    /// The step's peak RSS in KiB, or -1 when the peak could not be reset (then see maxrss_kib).
    var peakKiB: Int { resetWorked ? peakRSSKiB() : -1 }

    /// The figures from the start of the step until now.
    func spent() -> Spent {
        let end = Platform.resourceUsage()
        return Spent(
            peakKiB: peakKiB,
            userSeconds: end.userSeconds - start.userSeconds,
            systemSeconds: end.systemSeconds - start.systemSeconds,
            minorFaults: end.minorFaults - start.minorFaults)
    }

    /// One step's figures.
    struct Spent {
        /// Peak RSS in KiB (-1: unknown).
        var peakKiB: Int
        /// CPU time in user space, all threads.
        var userSeconds: Double
        /// CPU time in the kernel, all threads: system calls, and zeroing the pages the process touches
        /// for the first time, which is most of it in these workloads.
        var systemSeconds: Double
        /// Pages the process touched for the first time (or again after giving them back).
        var minorFaults: Int

        /// Adds `<prefix>peak_rss_kib`, `<prefix>cpu_user_seconds`, `<prefix>cpu_system_seconds` and
        /// `<prefix>minor_faults`.
        func add(to row: inout Row, prefix: String = "") {
            row.add(prefix + "peak_rss_kib", peakKiB)
            row.add(prefix + "cpu_user_seconds", userSeconds, decimals: 4)
            row.add(prefix + "cpu_system_seconds", systemSeconds, decimals: 4)
            row.add(prefix + "minor_faults", minorFaults)
        }
    }
}

/// One JSON line, keys in the order they are added.
struct Row {
    private var members: [String] = []

    init(_ workload: String) {
        add("peer", "folio")
        add("w", workload)
    }

    mutating func add(_ key: String, _ value: String) {
        var escaped = ""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": escaped += "\\\""
            case "\\": escaped += "\\\\"
            case "\n": escaped += "\\n"
            default:
                if scalar.value < 0x20 { escaped += cformat("\\u%04x", scalar.value) } else { escaped.unicodeScalars.append(scalar) }
            }
        }
        members.append("\"\(key)\":\"\(escaped)\"")
    }

    mutating func add(_ key: String, _ value: Int) { members.append("\"\(key)\":\(value)") }
    mutating func add(_ key: String, _ value: Int64) { members.append("\"\(key)\":\(value)") }
    mutating func add(_ key: String, _ value: Bool) { members.append("\"\(key)\":\(value)") }
    /// A number with a fixed count of decimals, as the C harness prints it.
    mutating func add(_ key: String, _ value: Double, decimals: Int) {
        members.append("\"\(key)\":" + cformat("%.*f", Int32(decimals), value))
    }

    /// An array of numbers, each with a fixed count of decimals.
    mutating func add(_ key: String, _ values: [Double], decimals: Int) {
        members.append("\"\(key)\":[" + values.map { cformat("%.*f", Int32(decimals), $0) }.joined(separator: ",") + "]")
    }

    func emit() {
        print("{" + members.joined(separator: ",") + "}")
        fflush(nil)
    }
}

/// Bytes of the regular files under `directory` (recursively), and by top-level entry.
func diskUsage(_ directory: URL) -> (total: Int64, byEntry: [(String, Int64)]) {
    let manager = FileManager.default
    var total: Int64 = 0
    var byEntry: [String: Int64] = [:]
    let base = directory.standardizedFileURL.path
    guard let enumerator = manager.enumerator(atPath: base) else { return (0, []) }
    while let relative = enumerator.nextObject() as? String {
        let path = base + "/" + relative
        guard let attributes = try? manager.attributesOfItem(atPath: path),
            attributes[.type] as? FileAttributeType == .typeRegular
        else { continue }
        let size = (attributes[.size] as? NSNumber)?.int64Value ?? 0
        total += size
        let top = String(relative.split(separator: "/").first ?? Substring(relative))
        byEntry[top, default: 0] += size
    }
    return (total, byEntry.sorted { $0.key < $1.key })
}

/// Adds the store's bytes on disk to a row: `<prefix>_bytes` (every file of the store directory), and
/// of it `<prefix>_journal_bytes`, `<prefix>_history_bytes` (retained history) and
/// `<prefix>_snapshot_bytes`.
func addDiskUsage(_ row: inout Row, _ prefix: String, _ directory: URL) {
    let usage = diskUsage(directory)
    row.add(prefix + "_bytes", usage.total)
    var journal: Int64 = 0
    var history: Int64 = 0
    var snapshots: Int64 = 0
    for (name, bytes) in usage.byEntry {
        if name.hasPrefix("journal") { journal += bytes }
        if name.hasPrefix("history") { history += bytes }
        if name == "snapshots" { snapshots += bytes }
    }
    row.add(prefix + "_journal_bytes", journal)
    row.add(prefix + "_history_bytes", history)
    row.add(prefix + "_snapshot_bytes", snapshots)
}

/// Exits with a message on standard error, as the C harness does for SQLite errors.
func fail(_ what: String, _ error: Error) -> Never {
    FileHandle.standardError.write(Data("folio-bench: \(what): \(error)\n".utf8))
    exit(2)
}

/// The durability a SYNC argument stands for: FULL is `.always` (fsync before each save returns);
/// NORMAL is the relaxed policy, `.batched(1 s)` by default, or `.none` with FOLIO_BENCH_RELAXED=none.
func durability(for sync: String) -> (ModelConfiguration.Durability, String) {
    if sync.uppercased() == "FULL" { return (.always, "always") }
    if ProcessInfo.processInfo.environment["FOLIO_BENCH_RELAXED"] == "none" { return (.none, "none") }
    return (.batched(1.0), "batched(1.0)")
}
