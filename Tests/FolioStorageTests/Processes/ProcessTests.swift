import Foundation
import Testing
@testable import FolioStorage

/// A running worker process whose stdout goes to a file.
struct Worker {
    let process: Process
    let output: URL

    static func start(_ arguments: [String], output: URL) throws -> Worker {
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        let process = Process()
        process.executableURL = try workerExecutable()
        process.arguments = arguments
        process.standardOutput = try FileHandle(forWritingTo: output)
        process.standardError = FileHandle.standardError
        try process.run()
        return Worker(process: process, output: output)
    }

    func kill() {
        Foundation.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// The (sequence, id) pairs the worker acknowledged: complete "ack" lines only.
    func acknowledged() throws -> [(UInt64, Int64)] {
        let text = String(decoding: try readBytes(output), as: UTF8.self)
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        lines.removeLast()  // after the last "\n": empty or an unfinished line
        return lines.compactMap { line in
            let parts = line.split(separator: " ")
            guard parts.count == 3, parts[0] == "ack", let sequence = UInt64(parts[1]), let id = Int64(parts[2]) else { return nil }
            return (sequence, id)
        }
    }

    /// Waits (polling, up to a generous `seconds` for a busy machine) until `condition` holds; whether
    /// it did. What a test asserts never depends on how fast the machine is, only on this outcome.
    static func waitUntil(seconds: Double = 120, _ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try condition() { return true }
            usleep(5_000)
        }
        return try condition()
    }
}

/// Whether the long variants run (`FOLIO_LONG_TESTS=1`).
let longTests = ProcessInfo.processInfo.environment["FOLIO_LONG_TESTS"] == "1"

@Suite("Several processes", .serialized)
struct ProcessTests {
    /// SIGKILL a writer at random moments (6 times by default, 200 with FOLIO_LONG_TESTS=1); after each
    /// kill every acknowledged transaction is present and no partial transaction is visible.
    @Test func acknowledgedTransactionsSurviveSIGKILL() throws {
        try withTemporaryDirectory { root in
            let store = root.appending("store")
            var random = SeededGenerator(seed: UInt64(Date().timeIntervalSince1970))
            let rounds = longTests ? 200 : 6
            var acknowledgedTotal = 0
            for round in 0..<rounds {
                let worker = try Worker.start(["append", store.path, "0"], output: root.appending("out-\(round)"))
                var compactor: Worker? = nil
                if round % 3 == 2 {
                    compactor = try Worker.start(["compact", store.path, "0"], output: root.appending("compact-\(round)"))
                }
                // The kill comes at a random moment after the writer is writing, however long it took to start.
                #expect(try Worker.waitUntil { try !worker.acknowledged().isEmpty }, "round \(round): the writer never wrote")
                usleep(UInt32.random(in: 40_000...250_000, using: &random))
                worker.kill()
                compactor?.kill()
                let acknowledged = try worker.acknowledged()
                acknowledgedTotal += acknowledged.count
                let reopened = try Store.open(at: store, configuration: StoreConfiguration(compactionThreshold: nil))
                for (sequence, id) in acknowledged {
                    #expect(sequence <= reopened.lastSequence, "round \(round): acknowledged \(sequence) lost")
                    #expect(reopened.record(id: id)?.entity == "Item", "round \(round): record \(id) of sequence \(sequence) lost")
                }
                // Every transaction inserts exactly one Item: a partial transaction would break this.
                #expect(reopened.count(of: "Item") == Int(reopened.lastSequence), "round \(round)")
                for record in reopened.records(of: "Item") {
                    #expect(record.values["n"]?.intValue != nil && record.values["text"]?.stringValue != nil)
                }
                reopened.close()
            }
            #expect(acknowledgedTotal > 0)
        }
    }

    /// SIGKILL writers whose automatic compactions run in the background, at random moments (4 rounds
    /// by default, 100 with FOLIO_LONG_TESTS=1, each on a new store so that compactions come every few
    /// dozen transactions; two writers at once in every other round, so that their compactions also
    /// overtake each other): every acknowledged transaction survives, none is partial, and the files a
    /// killed compaction leaves neither stop the store from opening nor outlive the next compaction.
    @Test func writersKilledDuringBackgroundCompactionsLoseNothing() throws {
        try withTemporaryDirectory { root in
            var random = SeededGenerator(seed: UInt64(Date().timeIntervalSince1970))
            let rounds = longTests ? 100 : 4
            var roundsWithACompaction = 0
            for round in 0..<rounds {
                let store = root.appending("store-\(round)")
                let writers = try (0..<(round % 2 == 0 ? 1 : 2)).map { index in
                    try Worker.start(["append-compacting", store.path, "0"], output: root.appending("out-\(round)-\(index)"))
                }
                // Writing first; in the first two rounds, also past a completed compaction (so that the
                // check below does not depend on how much a busy machine writes in a few milliseconds).
                #expect(try Worker.waitUntil { try writers.allSatisfy { try !$0.acknowledged().isEmpty } }, "round \(round): no writes")
                if round < 2 {
                    _ = Worker.waitUntil {
                        ((try? Manifest.decode(readBytes(store.appending("manifest.json")), path: "manifest.json").sequence) ?? 0) > 0
                    }
                }
                usleep(UInt32.random(in: 30_000...150_000, using: &random))
                for writer in writers { writer.kill() }
                let reopened = try Store.open(at: store, configuration: StoreConfiguration(compactionThreshold: nil))
                for writer in writers {
                    for (sequence, id) in try writer.acknowledged() {
                        #expect(sequence <= reopened.lastSequence, "round \(round): acknowledged \(sequence) lost")
                        #expect(reopened.record(id: id)?.entity == "Item", "round \(round): record \(id) of sequence \(sequence) lost")
                    }
                }
                #expect(reopened.count(of: "Item") == Int(reopened.lastSequence), "round \(round)")
                let compactedAt = try? Manifest.decode(readBytes(store.appending("manifest.json")), path: "manifest.json").sequence
                if (compactedAt ?? 0) > 0 {
                    roundsWithACompaction += 1
                }
                try reopened.compact()
                #expect(try directoryContents(store).keys.filter { FileSystemNames.isTemporary($0) }.isEmpty, "round \(round)")
                reopened.close()
            }
            #expect(roundsWithACompaction > 0, "no background compaction completed")
        }
    }

    @Test(arguments: [2, 4])
    func concurrentWritersNeitherLoseNorRepeatASequenceNumber(_ writers: Int) throws {
        try withTemporaryDirectory { root in
            let store = root.appending("store")
            _ = try Store.open(at: store)
            let perWriter = longTests ? 300 : 40
            let workers = try (0..<writers).map { n in
                try Worker.start(["increment", store.path, "\(perWriter)", "w\(n)"], output: root.appending("out-\(n)"))
            }
            for worker in workers {
                worker.process.waitUntilExit()
                #expect(worker.process.terminationStatus == 0)
            }
            let total = writers * perWriter
            let sequences = try workers.flatMap { try $0.acknowledged().map(\.0) }
            #expect(sequences.sorted() == Array(1...UInt64(total)))
            let opened = try Store.open(at: store)
            #expect(opened.lastSequence == UInt64(total))
            #expect(opened.records(of: "Counter").first?.values["value"] == .int(Int64(total)))
            #expect(opened.count(of: "Log") == total)
            // The final state equals applying every transaction in sequence order.
            let history = try opened.history(after: 0)
            #expect(history.map(\.sequence) == Array(1...UInt64(total)))
            var replayed = StoreState()
            for transaction in history { #expect(replayed.apply(transaction).isEmpty) }
            func records(_ state: StoreState) -> [StoredRecord] {
                var result: [StoredRecord] = []
                state.forEachRecord { id, entity, values in result.append(StoredRecord(entity: entity, id: id, values: values)) }
                return result
            }
            #expect(records(replayed) == opened.withState { records($0) })
            for n in 0..<writers {
                let mine = opened.records(of: "Log").filter { $0.values["writer"] == .string("w\(n)") }
                #expect(mine.compactMap { $0.values["n"]?.intValue }.sorted() == Array(1...Int64(perWriter)))
            }
        }
    }

    @Test func compactionRacingWritersLosesNothing() throws {
        try withTemporaryDirectory { root in
            let store = root.appending("store")
            _ = try Store.open(at: store)
            let perWriter = longTests ? 300 : 40
            // The compactor is running before the writers start and goes on after they finish, so that
            // it races with them however the machine schedules the processes.
            let compactor = try Worker.start(["compact", store.path, "0"], output: root.appending("compact"))
            func compactions(atLeast count: Int) throws -> Bool {
                let deadline = Date().addingTimeInterval(120)
                while try compactor.acknowledged().count < count, Date() < deadline { usleep(10_000) }
                return try compactor.acknowledged().count >= count
            }
            #expect(try compactions(atLeast: 1), "the compactor did not start")
            let writers = try (0..<2).map { n in
                try Worker.start(["increment", store.path, "\(perWriter)", "w\(n)"], output: root.appending("out-\(n)"))
            }
            for worker in writers {
                worker.process.waitUntilExit()
                #expect(worker.process.terminationStatus == 0)
            }
            let before = try compactor.acknowledged().count
            #expect(try compactions(atLeast: before + 1), "the compactor stopped")
            compactor.kill()
            let total = 2 * perWriter
            let opened = try Store.open(at: store)
            #expect(opened.lastSequence == UInt64(total))
            #expect(opened.records(of: "Counter").first?.values["value"] == .int(Int64(total)))
            #expect(opened.count(of: "Log") == total)
            #expect(try writers.flatMap { try $0.acknowledged().map(\.0) }.sorted() == Array(1...UInt64(total)))
            #expect(try opened.history(after: 0).map(\.sequence) == Array(1...UInt64(total)))
            #expect(StoreVerifier.verify(at: store).isHealthy)
        }
    }

    @Test func refreshCatchesUpWithAnotherProcessAndTheMonitorNotices() throws {
        try withTemporaryDirectory { root in
            let store = root.appending("store")
            let reader = try Store.open(at: store)
            let noticed = DispatchSemaphore(value: 0)
            let monitor = try reader.monitorChanges { noticed.signal() }
            let worker = try Worker.start(["append", store.path, "5"], output: root.appending("out"))
            worker.process.waitUntilExit()
            // Not a latency assertion: a generous bound so a broken monitor fails instead of hanging.
            #expect(noticed.wait(timeout: .now() + 30) == .success)
            monitor.cancel()
            let fresh = try reader.refresh()
            #expect(fresh.map(\.sequence) == [1, 2, 3, 4, 5])
            #expect(reader.count(of: "Item") == 5)
            #expect(try reader.refresh().isEmpty)
            // Another process compacts: the reader reloads and still sees the same state.
            let compactor = try Worker.start(["compact", store.path, "1"], output: root.appending("compact"))
            compactor.process.waitUntilExit()
            let appender = try Worker.start(["append", store.path, "2"], output: root.appending("out2"))
            appender.process.waitUntilExit()
            let after = try reader.refresh()
            #expect(after.map(\.sequence) == [6, 7])
            #expect(reader.count(of: "Item") == 7)
            // Appends then a compaction while the reader is not looking: the news comes from retained history.
            let more = try Worker.start(["append", store.path, "3"], output: root.appending("out3"))
            more.process.waitUntilExit()
            let compactAgain = try Worker.start(["compact", store.path, "1"], output: root.appending("compact2"))
            compactAgain.process.waitUntilExit()
            #expect(try reader.refresh().map(\.sequence) == [8, 9, 10])
            #expect(reader.count(of: "Item") == 10)
        }
    }
}
