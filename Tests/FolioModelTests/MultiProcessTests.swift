import Foundation
import Testing
@testable import Folio

/// The built executable `name`, next to the test bundle.
func builtExecutableURL(_ name: String) -> URL? {
    var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    for _ in 0..<4 {
        let candidate = directory.appendingPathComponent(name)
        if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        directory = directory.deletingLastPathComponent()
    }
    return nil
}

/// The built `folio-model-worker`, next to the test bundle.
func modelWorkerURL() -> URL? { builtExecutableURL("folio-model-worker") }

/// Runs the worker to completion and returns its standard output.
@discardableResult
func runWorker(_ arguments: [String]) throws -> String {
    let worker = try #require(modelWorkerURL(), "folio-model-worker was not built next to the tests")
    let process = Process()
    process.executableURL = worker
    process.arguments = arguments
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    #expect(process.terminationStatus == 0)
    return String(decoding: data, as: UTF8.self)
}

@Suite("Several processes on one store")
struct MultiProcessTests {
    @Test func anotherProcessSeesSavesAndItsSavesAreSeenOnTheNextFetch() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let container = try store.container(Trip.self)
        let context = ModelContext(container)
        context.insert(Trip(name: "local", destination: "Here", startDate: .now, price: 1))
        try context.save()

        #expect(try runWorker([store.url.path, "count"]).trimmingCharacters(in: .whitespacesAndNewlines) == "1")
        try runWorker([store.url.path, "insert", "3", "remote"])
        let names = try context.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)])).map(\.name)
        #expect(names == ["local", "remote-0", "remote-1", "remote-2"])

        let local = try #require(try context.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.name == "local" })).first)
        try runWorker([store.url.path, "rename", "local", "renamed"])
        #expect(try context.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.name == "renamed" })).first === local)
        #expect(local.name == "renamed")
    }

    @Test func countsWithoutReadingRecordsFollowAnotherProcessesSavesAndCompactions() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        do {
            let writer = try store.container(Trip.self)
            let context = ModelContext(writer)
            for k in 0..<20 { context.insert(Trip(name: "local-\(k)", destination: "Here", startDate: .now, price: Double(k))) }
            try context.save()
            try writer.compact()
        }
        let counting = try store.container(Trip.self)
        #expect(try ModelContext(counting).fetchCount(FetchDescriptor<Trip>()) == 20)
        // The worker, a process of its own, counts from the files too, then saves.
        #expect(try runWorker([store.url.path, "count"]).trimmingCharacters(in: .whitespacesAndNewlines) == "20")
        try runWorker([store.url.path, "insert", "3", "remote"])
        #expect(try ModelContext(counting).fetchCount(FetchDescriptor<Trip>()) == 23)
        #expect(!counting.isIndexLoaded)
        // Another process compacts (a new container in this process, with its own store and lock).
        try store.container(Trip.self).compact()
        #expect(try runWorker([store.url.path, "count"]).trimmingCharacters(in: .whitespacesAndNewlines) == "23")
        #expect(try ModelContext(counting).fetchCount(FetchDescriptor<Trip>()) == 23)
        #expect(!counting.isIndexLoaded)
        // Reading the records agrees.
        #expect(try ModelContext(counting).fetch(FetchDescriptor<Trip>()).count == 23)
    }

    @Test func twoProcessesWritingAtOnceLoseNothing() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        _ = try store.container(Trip.self)
        let worker = try #require(modelWorkerURL())
        let processes = (0..<2).map { number -> Process in
            let process = Process()
            process.executableURL = worker
            process.arguments = [store.url.path, "insert", "15", "p\(number)"]
            process.standardOutput = FileHandle.nullDevice
            return process
        }
        for process in processes { try process.run() }
        for process in processes { process.waitUntilExit() }
        #expect(processes.allSatisfy { $0.terminationStatus == 0 })
        let context = ModelContext(try store.container(Trip.self))
        let names = Set(try context.fetch(FetchDescriptor<Trip>()).map(\.name))
        #expect(names.count == 30)
        #expect(names.contains("p0-14") && names.contains("p1-14"))
    }
}
