import Foundation
import FolioTestSupport
import Testing
@testable import FolioStorage

/// Copies a directory tree (to restart each fault case from the same files).
func copyDirectory(_ source: URL, to destination: URL) throws {
    try? FileManager.default.removeItem(at: destination)
    try FileManager.default.copyItem(at: source, to: destination)
}

@Suite("Fault injection at every write, fsync, rename and truncate")
struct FaultInjectionTests {
    enum Operation: String, CaseIterable, Sendable {
        case write, compact, writeAfterTornTail
    }

    /// Watched operations, fault, persistent. The last entry fails *every* mutating call from the n-th on:
    /// the process "dies" at that step without any chance to clean up (a crash between two steps).
    static let faults: [(Set<FileOperation>, FaultInjectingFileSystem.Fault, Bool)] = [
        ([.write], .error(EIO), false), ([.write], .error(ENOSPC), false), ([.write], .shortWrite, false),
        ([.fsync], .error(EIO), false), ([.rename], .error(EIO), false), ([.truncate], .error(EIO), false),
        ([.syncDirectory], .error(EIO), false), ([.makeDirectory], .error(ENOSPC), false),
        ([.write, .truncate], .error(ENOSPC), true), ([.unlink], .error(EIO), false),
        ([.open, .write, .fsync, .truncate, .rename, .unlink, .makeDirectory, .syncDirectory], .shortWrite, true),
    ]

    /// The operation under test. Deterministic, so its effect on the state is known.
    static func perform(_ operation: Operation, on store: Store) throws {
        switch operation {
        case .write, .writeAfterTornTail:
            try store.write(author: "fault") { tx in
                let hash = try tx.putBlob(Data("blob for fault test".utf8))
                let id = tx.allocateID()
                try tx.insert(entity: "Photo", id: id, values: ["image": BlobStore.reference(hash)])
                if let first = tx.records(of: "Item").first { try tx.update(entity: "Item", id: first.id, values: ["title": .string("faulted")]) }
                if let last = tx.records(of: "Item").last { try tx.delete(entity: "Item", id: last.id) }
            }
        case .compact:
            try store.compact()
        }
    }

    @Test(arguments: Operation.allCases)
    func aFailedStepLeavesTheStateBeforeOrAfterNeverAMixture(_ operation: Operation) throws {
        try withTemporaryDirectory { root in
            let template = root.appending("template")
            do {
                let store = try Store.open(at: template)
                try writeSampleTransactions(store, count: 12)
                try store.compact()
                try writeSampleTransactions(store, count: 6, seed: 42)
                try store.write { tx in _ = try tx.putBlob(Data("unreferenced".utf8)) }
                store.close()
            }
            if operation == .writeAfterTornTail {
                let journal = template.appending("journal.jsonl")
                try writeBytes(try readBytes(journal) + Array(#"{"$crc":"torn"#.utf8), to: journal)
            }
            // The expected outcomes: before, and after the operation succeeded on the real file system.
            let before = StoreContent(try Store.open(at: template, configuration: StoreConfiguration(readOnly: true)))
            let reference = root.appending("reference")
            try copyDirectory(template, to: reference)
            let after: StoreContent = try {
                let store = try Store.open(at: reference)
                defer { store.close() }
                try Self.perform(operation, on: store)
                return StoreContent(store)
            }()
            var cases = 0
            for (watched, fault, persistent) in Self.faults {
                for n in 1... {
                    let work = root.appending("work")
                    try copyDirectory(template, to: work)
                    let filesystem = FaultInjectingFileSystem()
                    var configuration = StoreConfiguration()
                    configuration.fileSystem = filesystem
                    configuration.compactionThreshold = nil
                    let store = try Store.open(at: work, configuration: configuration)
                    filesystem.arm(watched, at: n, fault: fault, persistent: persistent)
                    var thrown: (any Error)? = nil
                    do { try Self.perform(operation, on: store) } catch { thrown = error }
                    let fired = filesystem.didFire
                    filesystem.disarm()
                    if !fired {
                        #expect(thrown == nil)
                        store.close()
                        break
                    }
                    cases += 1
                    let label = "\(operation) \(watched) #\(n) \(fault) persistent: \(persistent)"
                    #expect(thrown != nil, "\(label): the fault was swallowed")
                    // A failed journal fsync poisons the store: no retrying fsync and carrying on.
                    if let error = thrown as? StorageError, watched == [.fsync], error.file?.hasSuffix("journal.jsonl") == true, operation != .compact
                    {
                        #expect(throws: StorageError.self, "\(label): store not poisoned") { try store.write { tx in _ = tx.allocateID() } }
                    }
                    // Reopening a copy of the files gives the state before or after.
                    let check = root.appending("check")
                    try copyDirectory(work, to: check)
                    let checked = StoreContent(try Store.open(at: check))
                    #expect(checked == before || checked == after, "\(label): reopened to \(checked), neither \(before) nor \(after)")
                    // Unless poisoned, the same store object keeps working and stays consistent with its files.
                    if (try? store.write(author: "after") { tx in try tx.insert(entity: "After", id: tx.allocateID(), values: [:]) }) != nil {
                        let continued = StoreContent(store)
                        store.close()
                        #expect(StoreContent(try Store.open(at: work)) == continued, "\(label): the store diverged from its files")
                        continue
                    }
                    store.close()
                    let reopened = try Store.open(at: work)
                    let content = StoreContent(reopened)
                    #expect(content == before || content == after, "\(label): reopened to \(content), neither \(before) nor \(after)")
                    // And the store keeps working.
                    try Self.perform(operation, on: reopened)
                    reopened.close()
                    #expect(try Store.open(at: work).lastSequence >= content.lastSequence)
                    if n > 200 { break }
                }
            }
            #expect(cases >= 5)
        }
    }

    @Test func aFailedJournalFsyncPoisonsTheStoreUntilReopened() throws {
        try withTemporaryDirectory { url in
            let filesystem = FaultInjectingFileSystem()
            var configuration = StoreConfiguration()
            configuration.fileSystem = filesystem
            let store = try Store.open(at: url, configuration: configuration)
            try writeSampleTransactions(store, count: 2)
            filesystem.arm([.fsync], at: 1, fault: .error(EIO))
            #expect(throws: StorageError.self) { try writeSampleTransactions(store, count: 1) }
            filesystem.disarm()
            do {
                try writeSampleTransactions(store, count: 1)
                Issue.record("a poisoned store accepted a write")
            } catch {
                #expect((error as? StorageError)?.code == .storePoisoned)
            }
            store.close()
            let reopened = try Store.open(at: url, configuration: configuration)
            try writeSampleTransactions(reopened, count: 1)
            #expect(reopened.lastSequence >= 3)
        }
    }

    @Test func batchedDurabilitySyncsInTheBackgroundAndAFailureSurfacesOnTheNextWrite() throws {
        try withTemporaryDirectory { url in
            let filesystem = FaultInjectingFileSystem()
            var configuration = StoreConfiguration(durability: .batched(0.02))
            configuration.fileSystem = filesystem
            let store = try Store.open(at: url, configuration: configuration)
            filesystem.arm([.fsync], at: 1, fault: .error(EIO))
            try writeSampleTransactions(store, count: 1)  // no fsync here: the timer does it
            // Wait for the background fsync (a bound so that a broken timer fails instead of hanging).
            var waited = 0
            while !filesystem.didFire && waited < 30_000 {
                usleep(10_000)
                waited += 10
            }
            #expect(filesystem.didFire)
            filesystem.disarm()
            do {
                try writeSampleTransactions(store, count: 1)
                Issue.record("the failed background fsync did not surface")
            } catch {
                #expect((error as? StorageError)?.code == .storePoisoned)
            }
        }
    }

    @Test func aShortWriteIsTruncatedAndWritesResumeWhenSpaceReturns() throws {
        try withTemporaryDirectory { url in
            let filesystem = FaultInjectingFileSystem()
            var configuration = StoreConfiguration()
            configuration.fileSystem = filesystem
            let store = try Store.open(at: url, configuration: configuration)
            try writeSampleTransactions(store, count: 3)
            let size = try readBytes(url.appending("journal.jsonl")).count
            filesystem.arm([.write], at: 1, fault: .shortWrite)
            #expect(throws: StorageError.self) { try writeSampleTransactions(store, count: 1) }
            #expect(try readBytes(url.appending("journal.jsonl")).count == size, "the partial line was not truncated")
            filesystem.disarm()
            try writeSampleTransactions(store, count: 1)
            #expect(store.lastSequence == 4)
        }
    }

    @Test func compactionReplacesEachFileInTheSafeOrder() throws {
        try withTemporaryDirectory { url in
            let filesystem = FaultInjectingFileSystem()
            var configuration = StoreConfiguration()
            configuration.fileSystem = filesystem
            let store = try Store.open(at: url, configuration: configuration)
            try writeSampleTransactions(store, count: 10)
            filesystem.clearLog()
            try store.compact()
            let log = filesystem.log.map { ($0.0, $0.1.replacingOccurrences(of: url.path + "/", with: "")) }
            // Every new file is written and fsynced under a temporary name before anything is renamed;
            // then the snapshots are renamed (their directory fsynced once), then history, manifest and
            // journal, each followed by an fsync of its directory.
            let renames = log.enumerated().filter { $0.element.0 == .rename }
            #expect(
                renames.map { $0.element.1 } == ["snapshots/Item.jsonl", "snapshots/Tag.jsonl", "history.jsonl", "manifest.json", "journal.jsonl"])
            let firstRename = try #require(renames.first?.offset)
            for (index, entry) in renames {
                let earlier = entry.1 == "manifest.json" || entry.1 == "journal.jsonl" ? log[..<index] : log[..<firstRename]
                let temp = try #require(earlier.last { $0.0 == .fsync && $0.1.hasPrefix(entry.1 + ".tmp-") }?.1)
                #expect(earlier.contains { $0.0 == .write && $0.1 == temp } || entry.1 == "journal.jsonl")
                let next = log[index + 1]
                if entry.1.hasPrefix("snapshots/") {
                    #expect(next.0 == .syncDirectory || next.0 == .rename)
                } else {
                    #expect(next.0 == .syncDirectory)
                }
            }
            let lastSnapshotRename = try #require(renames.last { $0.element.1.hasPrefix("snapshots/") }?.offset)
            #expect(log[lastSnapshotRename + 1].0 == .syncDirectory && log[lastSnapshotRename + 1].1 == "snapshots")
        }
    }
}
