import Dispatch
import Foundation
import FolioTestSupport
import Testing
@testable import FolioStorage

@Suite("Automatic compaction in the background")
struct BackgroundCompactionTests {
    /// A store whose automatic compactions start after a few small transactions.
    func openStore(_ url: URL, fileSystem: any FileSystem = PosixFileSystem()) throws -> Store {
        var configuration = StoreConfiguration(durability: .none, compactionThreshold: 512)
        configuration.fileSystem = fileSystem
        return try Store.open(at: url, configuration: configuration)
    }

    func manifestSequence(_ url: URL) throws -> UInt64 {
        try Manifest.decode(readBytes(url.appending("manifest.json")), path: "manifest.json").sequence
    }

    /// The sequences of the journal's transactions, without the compaction mark that starts it.
    func journalSequences(_ url: URL) throws -> [UInt64] {
        let bytes = try readBytes(url.appending("journal.jsonl"))
        return bytes.split(separator: 0x0A).compactMap { line in
            line.withUnsafeBufferPointer { JournalTransaction.isCompactionMark(line: $0) ? nil : JournalTransaction.sequence(inLine: $0) }
        }
    }

    func temporaryFiles(_ url: URL) throws -> [String] {
        try directoryContents(url).keys.filter { FileSystemNames.isTemporary($0) }.sorted()
    }

    func failureWarnings(_ store: Store) -> [String] {
        store.warnings.filter { $0.contains("compaction failed") }
    }

    /// Writes one transaction at a time until one starts a compaction (or `started` says one did: a
    /// compaction that fails fast may be over before the loop looks); returns its sequence, the
    /// compaction point.
    func writeUntilACompactionStarts(_ store: Store, started: () -> Bool = { false }) throws -> UInt64 {
        var seed: UInt64 = 10
        while !store.compactions.isRunning && !started() {
            try writeSampleTransactions(store, count: 1, seed: seed)
            seed += 1
            try #require(seed < 100, "no compaction started")
        }
        return store.lastSequence
    }

    /// Makes the store's background compactions signal `held` once their files are written, then wait
    /// for `go` before they take the writer lock.
    func holdCompactionsBeforeTheyLock(_ store: Store) -> (held: DispatchSemaphore, go: DispatchSemaphore) {
        let held = DispatchSemaphore(value: 0)
        let go = DispatchSemaphore(value: 0)
        store.compactions.setWillLock {
            held.signal()
            go.wait()
        }
        return (held, go)
    }

    /// A store whose first background compaction is held while writing its first snapshot piece.
    func storeWithACompactionHeldHalfWay(_ url: URL) throws -> (Store, GatedFileSystem) {
        let gate = GatedFileSystem()
        let store = try openStore(url, fileSystem: gate)
        gate.arm()
        try writeSampleTransactions(store, count: 10)
        try #require(gate.waitUntilHeld(), "no compaction started")
        return (store, gate)
    }

    @Test func writesGoOnWhileACompactionIsPreparedAndAreCarriedIntoTheNewJournal() throws {
        try withTemporaryDirectory { url in
            let gate = GatedFileSystem()
            let store = try openStore(url, fileSystem: gate)
            gate.arm()
            let planned = try writeUntilACompactionStarts(store)
            try #require(gate.waitUntilHeld(), "the compaction wrote no snapshot")
            // The compaction is stopped half way through writing a snapshot: writes must not wait for it.
            let written = DispatchSemaphore(value: 0)
            DispatchQueue.global().async {
                _ = try? writeSampleTransactions(store, count: 5, seed: 2)
                written.signal()
            }
            let wroteWhileHeld = written.wait(timeout: .now() + 120) == .success
            gate.release()
            if !wroteWhileHeld { written.wait() }
            #expect(wroteWhileHeld, "a write waited for the background compaction")
            try store.waitForBackgroundCompaction()

            #expect(try manifestSequence(url) == planned)
            #expect(try journalSequences(url) == Array(planned + 1...planned + 5))
            #expect(try temporaryFiles(url).isEmpty)
            #expect(failureWarnings(store).isEmpty)
            let content = StoreContent(store)
            #expect(content.lastSequence == planned + 5)
            // What was committed meanwhile is also still readable as history, and the next write appends
            // to the new journal.
            #expect(try store.history(after: planned).map(\.sequence) == Array(planned + 1...planned + 5))
            try writeSampleTransactions(store, count: 1, seed: 3)
            let final = StoreContent(store)
            store.close()
            let reopened = try Store.open(at: url)
            #expect(StoreContent(reopened) == final)
            #expect(content.lastSequence + 1 == final.lastSequence)
        }
    }

    /// A writer that never lets go of the lock for long must not keep a finished compaction waiting:
    /// the next write installs it.
    @Test func theNextWriteInstallsACompactionWhoseFilesAreReady() throws {
        try withTemporaryDirectory { url in
            let store = try openStore(url)
            let (held, go) = holdCompactionsBeforeTheyLock(store)
            let planned = try writeUntilACompactionStarts(store)
            try #require(held.wait(timeout: .now() + 120) == .success, "the compaction's files were not written")
            // The compaction's thread is kept from the lock; a write installs its files instead.
            try writeSampleTransactions(store, count: 1, seed: 200)
            #expect(try manifestSequence(url) == planned)
            #expect(try journalSequences(url) == [planned + 1])
            #expect(!store.compactions.isRunning)
            go.signal()
            try store.waitForBackgroundCompaction()
            #expect(try manifestSequence(url) == planned)
            #expect(try temporaryFiles(url).isEmpty)
            #expect(failureWarnings(store).isEmpty)
            let expected = StoreContent(store)
            store.close()
            #expect(StoreContent(try Store.open(at: url)) == expected)
        }
    }

    /// In a store opened again, `history.jsonl` is read when first needed. The write that starts a
    /// compaction must not wait for it: the compaction reads it in the background and writes a history
    /// file with the old transactions and the new.
    @Test func theHistoryFileOfAReopenedStoreIsReadByTheCompactionNotByTheWrite() throws {
        try withTemporaryDirectory { url in
            var committed: [UInt64] = []
            do {
                let first = try openStore(url)
                committed += try writeSampleTransactions(first, count: 30, seed: 6).map(\.sequence)
                try first.compact()
                first.close()
            }
            let store = try openStore(url)
            #expect(!store.withReadState { $0.historyFileLoaded })
            let (held, go) = holdCompactionsBeforeTheyLock(store)
            _ = try writeUntilACompactionStarts(store)
            #expect(!store.withReadState { $0.historyFileLoaded }, "the write read the history file")
            try #require(held.wait(timeout: .now() + 120) == .success, "the compaction's files were not written")
            go.signal()
            try store.waitForBackgroundCompaction()
            #expect(failureWarnings(store).isEmpty)
            #expect(store.withReadState { $0.historyFileLoaded })
            let all = try store.history(after: 0).map(\.sequence)
            #expect(all == Array(1...store.lastSequence))
            #expect(Array(all.prefix(committed.count)) == committed)
            let history = try readBytes(url.appending("history.jsonl")).split(separator: 0x0A).compactMap { line in
                line.withUnsafeBufferPointer { JournalTransaction.sequence(inLine: $0) }
            }
            #expect(history == Array(1...(try manifestSequence(url))))
        }
    }

    @Test func aCompactionThatAnotherCompactionOvertookIsAbandoned() throws {
        try withTemporaryDirectory { url in
            let (store, gate) = try storeWithACompactionHeldHalfWay(url)
            // Another store on the same directory (as another process would) compacts meanwhile.
            let other = try Store.open(at: url, configuration: StoreConfiguration(compactionThreshold: nil))
            try writeSampleTransactions(other, count: 3, seed: 4)
            try other.compact()
            let compactedAt = try manifestSequence(url)
            gate.release()
            try store.waitForBackgroundCompaction()

            #expect(try manifestSequence(url) == compactedAt, "the overtaken compaction was installed")
            #expect(try temporaryFiles(url).isEmpty)
            #expect(failureWarnings(store).isEmpty)
            try store.refresh()
            #expect(StoreContent(store) == StoreContent(other))
            let expected = StoreContent(other)
            store.close()
            other.close()
            #expect(StoreContent(try Store.open(at: url)) == expected)
        }
    }

    @Test func closingGivesUpACompactionInProgress() throws {
        try withTemporaryDirectory { url in
            let (store, gate) = try storeWithACompactionHeldHalfWay(url)
            let manifestBefore = try readBytes(url.appending("manifest.json"))
            let expected = StoreContent(store)
            let closed = DispatchSemaphore(value: 0)
            DispatchQueue.global().async {
                store.close()
                closed.signal()
            }
            while !store.compactions.isCancelled { usleep(1000) }
            gate.release()
            #expect(closed.wait(timeout: .now() + 120) == .success, "close did not return")

            #expect(try readBytes(url.appending("manifest.json")) == manifestBefore, "a given-up compaction was installed")
            #expect(try temporaryFiles(url).isEmpty)
            #expect(StoreContent(try Store.open(at: url)) == expected)
        }
    }

    /// A background compaction that fails (here: its snapshot's fsync, or the rename that installs it)
    /// is reported in `warnings`, loses nothing and leaves no files; the next one succeeds.
    @Test(arguments: [FileOperation.fsync, .rename])
    func aFailedBackgroundCompactionIsReportedAndTheNextOneSucceeds(_ operation: FileOperation) throws {
        try withTemporaryDirectory { url in
            let faults = FaultInjectingFileSystem()
            let store = try openStore(url, fileSystem: faults)
            // With `.none` durability the first fsync is the one that makes the journal durable before
            // the compaction starts; the second is the new snapshot's. The first rename installs it.
            faults.arm([operation], at: operation == .fsync ? 2 : 1, fault: .error(EIO))
            // The fault fires inside the compaction, which may fail and end before the loop sees it run;
            // writing on would then start a second compaction, which would succeed.
            _ = try writeUntilACompactionStarts(store, started: { faults.didFire })
            try store.waitForBackgroundCompaction()
            #expect(faults.didFire)
            let failures = failureWarnings(store)
            #expect(failures.count == 1)
            #expect(failures.first?.contains("injected") == true, "the warning says what failed: \(failures)")
            #expect(try manifestSequence(url) == 0)
            #expect(try temporaryFiles(url).isEmpty)

            // Later writes go on, and the next compaction succeeds.
            var seed: UInt64 = 300
            while (try manifestSequence(url)) == 0 {
                try writeSampleTransactions(store, count: 1, seed: seed)
                try store.waitForBackgroundCompaction()
                seed += 1
                try #require(seed < 600, "no compaction succeeded after the failure")
            }
            #expect(failureWarnings(store).count == 1)
            let expected = StoreContent(store)
            store.close()
            #expect(StoreContent(try Store.open(at: url)) == expected)
        }
    }

    @Test func aLoadWithManyBackgroundCompactionsKeepsEveryTransaction() throws {
        try withTemporaryDirectory { url in
            let store = try openStore(url)
            let committed = try writeSampleTransactions(store, count: 400, seed: 5)
            try store.waitForBackgroundCompaction()
            #expect(try manifestSequence(url) > 0, "no compaction ran")
            #expect(failureWarnings(store).isEmpty)
            let expected = StoreContent(store)
            #expect(expected.lastSequence == committed.last?.sequence)
            // The journal holds exactly the transactions after the manifest's sequence.
            let sequence = try manifestSequence(url)
            let journal = try journalSequences(url)
            #expect(journal == (journal.isEmpty ? [] : Array(sequence + 1...expected.lastSequence)))
            store.close()
            #expect(StoreContent(try Store.open(at: url)) == expected)
        }
    }
}
