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
}
