// A second process for Folio's multi-process tests: it opens a store with the same Trip model the
// tests declare and writes or reads through the public API.
//
//   folio-model-worker STORE insert COUNT PREFIX [DELAY_MS]   insert COUNT trips, one save each; prints "saved N"
//   folio-model-worker STORE count                             prints the number of trips
//   folio-model-worker STORE rename FROM TO                    renames the trips named FROM; prints "renamed N"
//   folio-model-worker STORE idle SECONDS                      observes the store for SECONDS while idle; prints the
//                                                              CPU seconds the process used meanwhile
//   folio-model-worker STORE import COUNT BATCH                imports COUNT trips in batches, a new context per
//                                                              batch; prints records/s and peak RSS per batch
//   folio-model-worker STORE migrate-v2                        opens the store with the next version of Trip
//                                                              (see TripVersion2.swift), which migrates it;
//                                                              prints "migrated N"
//   folio-model-worker STORE migrate-v2-custom                 the same through a plan whose custom stage sets
//                                                              every trip's nights to 7

import Folio
import FolioStorage

struct MapItemIdentifier: Codable, Hashable {
    var rawValue: String
}

@Model
final class Trip {
    #Index<Trip>([\.destination], [\.startDate])

    var name: String
    var destination: String
    var startDate: Date
    var price: Double
    var nights: Int = 1
    var notes: String?
    @Attribute(.codable) var mapItem: MapItemIdentifier?

    init(name: String, destination: String, startDate: Date, price: Double) {
        self.name = name
        self.destination = destination
        self.startDate = startDate
        self.price = price
    }
}

/// The process's peak resident set size (VmHWM), in kilobytes; 0 where /proc is not available.
func peakResidentKilobytes() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
        let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") })
    else { return 0 }
    return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
}

/// CPU time the process has used, in seconds.
func cpuSeconds() -> Double {
    let usage = Platform.resourceUsage()
    return usage.userSeconds + usage.systemSeconds
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    exit(2)
}

let arguments = CommandLine.arguments
guard arguments.count >= 3 else { fail("usage: folio-model-worker STORE insert|count|rename …") }
let url = URL(fileURLWithPath: arguments[1], isDirectory: true)
do {
    if arguments[2] == "migrate-v2" {
        try migrateToVersion2(url)
        exit(0)
    }
    if arguments[2] == "migrate-v2-custom" {
        try migrateToVersion2WithCustomStage(url)
        exit(0)
    }
    let container = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: url))
    let context = ModelContext(container)
    context.author = "worker"
    switch arguments[2] {
    case "insert":
        guard arguments.count >= 5, let count = Int(arguments[3]) else { fail("insert COUNT PREFIX [DELAY_MS]") }
        let delay = arguments.count > 5 ? UInt32(arguments[5]) ?? 0 : 0
        for index in 0..<count {
            context.insert(Trip(name: "\(arguments[4])-\(index)", destination: "Worker", startDate: .now, price: Double(index)))
            try context.save()
            FileHandle.standardOutput.write(Data("saved \(index + 1)\n".utf8))
            if delay > 0 { usleep(delay * 1000) }
        }
    case "import":
        guard arguments.count >= 5, let count = Int(arguments[3]), let batch = Int(arguments[4]), batch > 0 else {
            fail("import COUNT BATCH")
        }
        let start = Date()
        var done = 0
        while done < count {
            let batchStart = Date()
            let batchContext = ModelContext(container)
            for index in done..<min(count, done + batch) {
                batchContext.insert(
                    Trip(
                        name: "trip-\(index)", destination: "City\(index % 200)",
                        startDate: Date(timeIntervalSince1970: 1_600_000_000 + Double(index)), price: Double(index % 5000)))
            }
            try batchContext.save()
            done = min(count, done + batch)
            let seconds = Date().timeIntervalSince(batchStart)
            print("batch done=\(done) records_per_s=\(Int(Double(batch) / seconds)) peak_rss_kb=\(peakResidentKilobytes())")
        }
        print("total records_per_s=\(Int(Double(count) / Date().timeIntervalSince(start)))")
    case "idle":
        guard arguments.count >= 4, let seconds = Double(arguments[3]) else { fail("idle SECONDS") }
        let observer = try ResultsObserver<Trip, Never>(modelContext: context)
        let before = cpuSeconds()
        Thread.sleep(forTimeInterval: seconds)
        print("cpu_seconds=\(cpuSeconds() - before) results=\(observer.results.count)")
    case "count":
        print(try context.fetchCount(FetchDescriptor<Trip>()))
    case "rename":
        guard arguments.count >= 5 else { fail("rename FROM TO") }
        let from = arguments[3]
        let trips = try context.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.name == from }))
        for trip in trips { trip.name = arguments[4] }
        try context.save()
        print("renamed \(trips.count)")
    default:
        fail("unknown command \(arguments[2])")
    }
} catch {
    fail("folio-model-worker: \(error)")
}
