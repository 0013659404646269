import Foundation
import Testing
@testable import FolioStorage

@Suite("Automatic compaction policy")
struct CompactionPolicyTests {
    /// A bulk load must not rewrite the whole store every `compactionThreshold` bytes: compaction waits
    /// until the journal is as large as the snapshots, so its cost stays proportional to what was written.
    @Test func theJournalMayGrowAsLargeAsTheSnapshotsBeforeCompacting() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("folio-policy-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        var configuration = StoreConfiguration()
        configuration.durability = .none
        configuration.compactionThreshold = 4096
        let store = try Store.open(at: directory, configuration: configuration)
        func writeBatch(_ count: Int) throws {
            _ = try store.write { transaction in
                for _ in 0..<count {
                    let id = transaction.allocateID()
                    try transaction.insert(entity: "Item", id: id, values: ["name": .string("item \(id) with some padding text")])
                }
            }
        }
        var compactions = 0
        var previousJournal: Int64 = 0
        for _ in 0..<200 {
            try writeBatch(20)
            let journal = try store.statistics().journalBytes
            if journal < previousJournal { compactions += 1 }
            previousJournal = journal
        }
        let statistics = try store.statistics()
        #expect(statistics.recordCounts["Item"] == 4000)
        // With a fixed 4 KiB threshold this load would compact after nearly every batch; growing with the
        // snapshots it compacts a handful of times.
        #expect(compactions > 0)
        #expect(compactions < 12)
    }

    /// Writes one transaction inserting or updating `Item`s with `padding` bytes of text each.
    private func write(_ store: Store, ids: [Int64]? = nil, inserting count: Int = 1, padding: Int) throws {
        _ = try store.write { transaction in
            let text = JSONValue.string(String(repeating: "x", count: padding))
            if let ids {
                for id in ids { try transaction.update(entity: "Item", id: id, values: ["text": text]) }
            } else {
                for _ in 0..<count { try transaction.insert(entity: "Item", id: transaction.allocateID(), values: ["text": text]) }
            }
        }
    }

    private func fileSize(_ directory: URL, _ name: String) throws -> Int64 {
        let attributes = try FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent(name).path)
        return try #require(attributes[.size] as? Int64)
    }

    /// Reopens the store with automatic compaction in the write itself, then writes small transactions
    /// until one of them compacts. Returns the journal's size after each write before that one.
    private func journalSizesUntilCompaction(_ directory: URL, threshold: Int64, write: (Store) throws -> Void) throws -> [Int64] {
        var configuration = StoreConfiguration(durability: .none, compactionThreshold: threshold)
        configuration.compactsInBackground = false
        let store = try Store.open(at: directory, configuration: configuration)
        defer { store.close() }
        var sizes: [Int64] = []
        for _ in 0..<2000 {
            try write(store)
            let journal = try store.statistics().journalBytes
            if journal < (sizes.last ?? 0) { return sizes }
            sizes.append(journal)
        }
        Issue.record("no compaction in 2,000 writes")
        return sizes
    }

    /// A compaction writes the snapshots and the retained history again, so it waits until the journal
    /// is as large as both; waiting only for the snapshots made a bulk load write its history again at
    /// every compaction, as many bytes as the snapshots once the history is full.
    @Test func aCompactionWaitsUntilTheJournalIsAsLargeAsTheSnapshotsAndTheHistory() throws {
        try withTemporaryDirectory { directory in
            // Half of the transactions retained: a history about half the snapshots' size.
            let store = try Store.open(
                at: directory,
                configuration: StoreConfiguration(
                    durability: .none, compactionThreshold: nil, historyRetention: .init(maximumCount: 5)))
            for _ in 0..<10 { try write(store, inserting: 10, padding: 100) }
            try store.compact()
            store.close()
            let snapshots = try fileSize(directory, "snapshots/Item.jsonl")
            let history = try fileSize(directory, "history.jsonl")
            #expect(history > snapshots / 3 && history < snapshots)

            let sizes = try journalSizesUntilCompaction(directory, threshold: 1024) { try write($0, inserting: 1, padding: 100) }
            let largest = try #require(sizes.last)
            // Past the snapshots' size without compacting, and compacting by the write that reached both.
            #expect(largest >= snapshots)
            #expect(largest < snapshots + history)
            #expect(largest + 300 >= snapshots + history)
        }
    }

    /// The history counts only up to the snapshots' size: a small store whose history is long (large
    /// transactions rewriting the same records) compacts once its journal is twice its snapshots,
    /// so the journal replayed at open stays small.
    @Test func aLongHistoryDelaysCompactionOnlyUntilTheJournalIsTwiceTheSnapshots() throws {
        try withTemporaryDirectory { directory in
            let store = try Store.open(at: directory, configuration: StoreConfiguration(durability: .none, compactionThreshold: nil))
            try write(store, inserting: 4, padding: 500)
            for _ in 0..<40 { try write(store, ids: [1, 2, 3, 4], padding: 500) }
            try store.compact()
            store.close()
            let snapshots = try fileSize(directory, "snapshots/Item.jsonl")
            let history = try fileSize(directory, "history.jsonl")
            #expect(history > 10 * snapshots)

            let sizes = try journalSizesUntilCompaction(directory, threshold: 1024) { try write($0, ids: [1], padding: 500) }
            let largest = try #require(sizes.last)
            #expect(largest >= snapshots)
            #expect(largest < 2 * snapshots)
            #expect(largest + 700 >= 2 * snapshots)
        }
    }
}
