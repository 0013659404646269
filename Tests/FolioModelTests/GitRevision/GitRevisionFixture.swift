import Foundation
import Testing
@testable import Folio
@_spi(FolioEngine) import FolioStorage

/// A scratch git work tree `work` holding a Trip store `Trips.folio`, with the git the tests use.
struct GitRevisionFixture {
    static let gitPath = "/usr/bin/git"
    static var hasGit: Bool { FileManager.default.isExecutableFile(atPath: gitPath) }

    let scratch: URL
    let work: URL
    var store: URL { work.appendingPathComponent("Trips.folio", isDirectory: true) }

    /// A new work tree on branch `main` whose `.gitignore` leaves the store's lock and cache out.
    init(_ label: String = #function) throws {
        scratch = FileManager.default.temporaryDirectory
            .appendingPathComponent("folio-git-revision-\(label.filter { $0.isLetter })-\(UUID().uuidString)", isDirectory: true)
        work = scratch.appendingPathComponent("work", isDirectory: true)
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        try git("init", "-q", "-b", "main", ".")
        try Data("Trips.folio/lock\nTrips.folio/cache/\n".utf8).write(to: work.appendingPathComponent(".gitignore"))
    }

    func cleanUp() {
        try? FileManager.default.removeItem(at: scratch)
    }

    /// Runs the tests' git in `directory` (the work tree by default) with a configuration of its own,
    /// and returns its output; a failure fails the test.
    @discardableResult
    func git(_ arguments: String..., in directory: URL? = nil) throws -> String {
        let result = try Self.run(arguments, in: directory ?? work, home: scratch)
        try #require(result.status == 0, "git \(arguments.joined(separator: " ")): \(result.output)")
        return result.output
    }

    static func run(_ arguments: [String], in directory: URL, home: URL) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: gitPath)
        process.arguments = arguments
        process.currentDirectoryURL = directory
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("GIT_") }
        environment.merge([
            "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": "/dev/null", "HOME": home.path,
            "GIT_AUTHOR_NAME": "Test", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "Test",
            "GIT_COMMITTER_EMAIL": "t@example.com",
        ]) { _, new in new }
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    func commitAll(_ message: String) throws {
        try git("add", "-A")
        try git("commit", "-q", "-m", message)
    }

    static func trip(_ name: String, price: Double = 10) -> Trip {
        Trip(name: name, destination: "Rome", startDate: Date(timeIntervalSince1970: 1_800_000_000), price: price)
    }

    /// Commits three versions of the store: T1 (two trips, tagged `v1`), T2 (a price changed, a trip
    /// added, then compacted), T3 (a trip deleted, one added).
    func commitThreeVersions() throws {
        let container = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: store))
        let context = ModelContext(container)
        context.insert(Self.trip("Ancona"))
        context.insert(Self.trip("Bari"))
        try context.save()
        try commitAll("T1")
        try git("tag", "v1")

        let bari = try #require(try context.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.name == "Bari" })).first)
        bari.price = 42
        context.insert(Self.trip("Como"))
        try context.save()
        try container.compact()
        try commitAll("T2")

        let ancona = try #require(try context.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.name == "Ancona" })).first)
        context.delete(ancona)
        context.insert(Self.trip("Dolo", price: 7))
        try context.save()
        try commitAll("T3")
    }

    /// Every trip a container holds, all their values, by name.
    static func trips(in container: ModelContainer) throws -> [TripValues] {
        let context = ModelContext(container)
        return try context.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)])).map(TripValues.init)
    }

    /// The contents of every file under `directory`, by path (for checking that nothing changed).
    static func files(under directory: URL) throws -> [String: Data] {
        var files: [String: Data] = [:]
        guard let walker = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: [.isRegularFileKey]) else { return files }
        for case let url as URL in walker where (try url.resourceValues(forKeys: [.isRegularFileKey])).isRegularFile == true {
            files[url.path] = try Data(contentsOf: url)
        }
        return files
    }
}

/// A fetched trip's values and record number, comparable across containers.
struct TripValues: Equatable, CustomStringConvertible {
    var record: Int64?
    var name: String
    var destination: String
    var startDate: Date
    var price: Double
    var nights: Int
    var notes: String?

    init(_ trip: Trip) {
        record = trip.persistentModelID.recordNumber
        name = trip.name
        destination = trip.destination
        startDate = trip.startDate
        price = trip.price
        nights = trip.nights
        notes = trip.notes
    }

    var description: String { "\(record.map(String.init) ?? "-") \(name) \(destination) \(price) \(nights)" }
}
