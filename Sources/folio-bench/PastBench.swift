import Foundation
import Folio
import FolioStorage

// P1: a store's past (issue "A store's past"). `prepare` makes DIR a git repository holding a store of N
// trips followed by TRANSACTIONS single-trip saves, committed; each other step is a process of its own
// that opens or reads the store one way and prints one row:
//   open     the store as it is, records read (what the other opens are compared with)
//   asof     as of a history token BACK transactions before the last, records read
//   git      as of the git revision HEAD, records read (the files from git's objects)
//   catfile  `git cat-file --batch` alone, over the store's files at HEAD (git's own share of `git`)
//   blame    `folio blame` of one record, as a process (FOLIO names the binary)
enum PastBench {
    static func storeURL(_ directory: String) -> URL { URL(fileURLWithPath: directory).appendingPathComponent("Trips.folio") }

    static func run(_ arguments: [String]) {
        guard arguments.count >= 4 else { usageExit() }
        let directory = arguments[2]
        switch arguments[3] {
        case "prepare" where arguments.count >= 6: prepare(directory, n: number(arguments[4]), transactions: number(arguments[5]))
        case "open": measureOpen(directory, "open") { ModelConfiguration(url: storeURL(directory)) }
        case "asof":
            let back = arguments.count > 4 ? number(arguments[4]) : 1000
            let last = lastSequence(directory)
            let token = DefaultHistoryToken(
                storeIdentifier: storeURL(directory).standardizedFileURL.path, sequence: last - UInt64(min(back, Int(last))))
            measureOpen(directory, "asof", extra: ("back", back)) { ModelConfiguration(url: storeURL(directory), asOf: token) }
        case "git": measureOpen(directory, "git") { ModelConfiguration(url: storeURL(directory), gitRevision: "HEAD") }
        case "catfile": catFile(directory)
        case "blame" where arguments.count >= 5: blame(directory, folio: arguments[4])
        default: usageExit()
        }
    }

    static func prepare(_ directory: String, n: Int, transactions: Int) {
        try? FileManager.default.removeItem(atPath: directory)
        git(["init", "-q", directory], in: "/")
        Workloads.load(storeURL(directory).path, n: n, sync: "NORMAL", batch: 10_000)
        var configuration = ModelConfiguration(url: storeURL(directory))
        configuration.durability = .none
        do {
            let container = try ModelContainer(for: TripV1.self, configurations: configuration)
            let context = ModelContext(container)
            var descriptor = FetchDescriptor<TripV1>(sortBy: [SortDescriptor(\.tripID)])
            descriptor.fetchLimit = transactions
            let trips = try context.fetch(descriptor)
            let t0 = now()
            for (index, trip) in trips.enumerated() {
                trip.price += Double(index % 7)
                try context.save()
            }
            var row = Row("P1")
            row.add("step", "prepare")
            row.add("n", n)
            row.add("transactions", trips.count)
            row.add("seconds", now() - t0, decimals: 3)
            row.emit()
        } catch {
            fail("prepare", error)
        }
        git(["add", "-A"], in: directory)
        git(["-c", "user.name=bench", "-c", "user.email=bench@example.com", "commit", "-q", "-m", "trips"], in: directory)
    }

    /// The store's last sequence: the manifest's, or the last journal line's when it has one.
    static func lastSequence(_ directory: String) -> UInt64 {
        func sequence(after key: String, in text: Substring) -> UInt64? {
            guard let range = text.range(of: key, options: .backwards) else { return nil }
            return UInt64(text[range.upperBound...].prefix(while: \.isNumber))
        }
        let store = storeURL(directory)
        let manifest = (try? String(contentsOf: store.appendingPathComponent("manifest.json"), encoding: .utf8)) ?? ""
        let journal =
            FileManager.default.contents(atPath: store.appendingPathComponent("journal.jsonl").path).map {
                String(decoding: $0.suffix(1 << 16), as: UTF8.self)
            } ?? ""
        return max(sequence(after: "\"sequence\":", in: Substring(manifest)) ?? 0, sequence(after: "\"seq\":", in: Substring(journal)) ?? 0)
    }

    static func measureOpen(_ directory: String, _ step: String, extra: (String, Int)? = nil, _ configuration: () -> ModelConfiguration) {
        let t0 = now()
        do {
            let container = try ModelContainer(for: TripV1.self, configurations: configuration())
            try container.loadRecords()
            let seconds = now() - t0
            let count = try ModelContext(container).fetchCount(FetchDescriptor<TripV1>())
            var row = Row("P1")
            row.add("step", step)
            if let extra { row.add(extra.0, extra.1) }
            row.add("records", count)
            row.add("seconds", seconds, decimals: 3)
            row.add("peak_rss_kib", peakRSSKiB())
            row.emit()
            Workloads.keepAlive.append(container)
        } catch {
            fail(step, error)
        }
    }

    static func catFile(_ directory: String) {
        let listing = git(["ls-tree", "-r", "-z", "--full-tree", "HEAD", "--", "Trips.folio"], in: directory)
        let objects = listing.split(separator: 0).compactMap { entry -> String? in
            let fields = entry.split(separator: 0x20)
            return fields.count >= 3 ? String(decoding: fields[2].prefix(while: { $0 != 0x09 }), as: UTF8.self) : nil
        }
        let t0 = now()
        let output = git(["cat-file", "--batch"], in: directory, input: Data((objects.joined(separator: "\n") + "\n").utf8))
        var row = Row("P1")
        row.add("step", "catfile")
        row.add("objects", objects.count)
        row.add("bytes", output.count)
        row.add("seconds", now() - t0, decimals: 3)
        row.emit()
    }

    static func blame(_ directory: String, folio: String) {
        var latencies: [Double] = []
        for id in recordIDs(directory) {
            let t0 = now()
            let process = Process()
            process.executableURL = URL(fileURLWithPath: folio)
            process.arguments = ["blame", storeURL(directory).path, String(id), "--json"]
            process.standardOutput = FileHandle.nullDevice
            do {
                // Not waitUntilExit(): on Linux it polls in 50 ms slices, which would round every time up.
                try ProcessExit(running: process).wait()
            } catch {
                fail("blame", error)
            }
            latencies.append((now() - t0) * 1000)
        }
        var row = Row("P1")
        row.add("step", "blame")
        row.add("ids", recordIDs(directory).map(String.init).joined(separator: ","))
        row.add("ms", latencies, decimals: 1)
        row.emit()
    }

    /// Three trips' identifiers: the first, middle and last lines of the trips' snapshot.
    static func recordIDs(_ directory: String) -> [Int64] {
        let path = storeURL(directory).appendingPathComponent("snapshots/Trip.jsonl").path
        guard let data = FileManager.default.contents(atPath: path) else { fail("read \(path)", CocoaError(.fileReadNoSuchFile)) }
        let lines = data.split(separator: 0x0A)
        return [1, lines.count / 2, lines.count - 1].compactMap { index -> Int64? in
            guard index < lines.count else { return nil }
            let text = String(decoding: lines[index].prefix(80), as: UTF8.self)
            guard let range = text.range(of: "\"id\":") else { return nil }
            return Int64(text[range.upperBound...].prefix(while: \.isNumber))
        }
    }

    /// Runs git with `arguments` in `directory`; its standard output.
    @discardableResult
    static func git(_ arguments: [String], in directory: String, input: Data? = nil) -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/git")
        process.arguments = ["-C", directory] + arguments
        let output = Pipe()
        process.standardOutput = output
        let stdin = Pipe()
        process.standardInput = stdin
        do {
            let exited = try ProcessExit(running: process)
            if let input {
                DispatchQueue.global().async {
                    stdin.fileHandleForWriting.write(input)
                    try? stdin.fileHandleForWriting.close()
                }
            } else {
                try? stdin.fileHandleForWriting.close()
            }
            let data = output.fileHandleForReading.readDataToEndOfFile()
            exited.wait()
            return data
        } catch {
            fail("git \(arguments.joined(separator: " "))", error)
        }
    }
}
