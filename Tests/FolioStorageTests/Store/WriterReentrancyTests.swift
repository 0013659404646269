import Foundation
import Testing
@testable import FolioStorage

@Suite("The store's writer lock is not recursive")
struct WriterReentrancyTests {
    /// Runs the storage worker with `arguments` until it ends (killing it after `timeout` seconds);
    /// returns whether it had to be killed, how it ended and what it wrote to standard error.
    func runWorkerToItsEnd(_ arguments: [String], timeout: TimeInterval = 120) throws
        -> (timedOut: Bool, reason: Process.TerminationReason, standardError: String)
    {
        let process = Process()
        process.executableURL = try workerExecutable()
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        // The message is what the test reads; a backtrace would only slow the crash down.
        environment["SWIFT_BACKTRACE"] = "enable=no"
        process.environment = environment
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        let ended = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in ended.signal() }
        try process.run()
        let timedOut = ended.wait(timeout: .now() + timeout) == .timedOut
        if timedOut {
            process.terminate()
            ended.wait()
        }
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        return (timedOut, process.terminationReason, message)
    }

    @Test func aWriteInsideAWriteStopsTheProcessWithAMessageNamingIt() throws {
        try withTemporaryDirectory { url in
            let run = try runWorkerToItsEnd(["write-inside-write", url.path, "1"])
            #expect(!run.timedOut, "the inner write deadlocked")
            #expect(run.reason == .uncaughtSignal)
            #expect(run.standardError.contains("Store.write(author:_:) was called on a thread that is already inside it"))
            #expect(run.standardError.contains("read through the WriteTransaction"))
        }
    }

    @Test func readingTheStoreInsideAWriteBodyNeedsNoSecondLock() throws {
        try withTemporaryDirectory { url in
            let store = try Store.open(at: url)
            defer { store.close() }
            try writeSampleTransactions(store, count: 3)
            let before = store.lastSequence
            let items = store.count(of: "Item")
            var seen: (records: Int, sequence: UInt64, history: Int, changed: Bool, retained: Int)?
            try store.write { transaction in
                seen = (store.records(of: "Item").count, store.lastSequence, try store.history(after: 0).count,
                        store.hasExternalChanges(), try store.statistics().retainedTransactions)
                try transaction.insert(entity: "Item", id: transaction.allocateID(), values: ["title": .string("inside")])
            }
            let reads = try #require(seen)
            #expect(reads.records == items)
            #expect(reads.sequence == before)
            #expect(reads.history == Int(before))
            #expect(!reads.changed)
            #expect(reads.retained == Int(before))
            #expect(store.lastSequence == before + 1)
        }
    }

    @Test func writesFromSeveralThreadsTakeTurns() throws {
        try withTemporaryDirectory { url in
            var configuration = StoreConfiguration()
            configuration.durability = .none
            let store = try Store.open(at: url, configuration: configuration)
            defer { store.close() }
            DispatchQueue.concurrentPerform(iterations: 4) { thread in
                for n in 0..<25 {
                    _ = try? store.write { transaction in
                        try transaction.insert(entity: "Item", id: transaction.allocateID(), values: ["n": .int(Int64(thread * 100 + n))])
                    }
                }
            }
            #expect(store.lastSequence == 100)
            #expect(store.count(of: "Item") == 100)
            #expect(try store.history(after: 0).map(\.sequence) == Array(1...100))
        }
    }
}
