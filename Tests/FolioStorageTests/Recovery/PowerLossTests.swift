import Foundation
import Testing
@testable import FolioStorage

@Suite("Simulated power loss")
struct PowerLossTests {
    /// Writes and compactions under `.always`; the power is cut at a random step; the directory a
    /// machine would find afterwards (synced contents under synced names, unsynced tails lost, partly
    /// kept or zero-filled) opens to the state after some number of transactions: under `.always` never
    /// fewer than were acknowledged; under `.none` perhaps fewer, but the store still opens, uncorrupted.
    /// 40 cuts per policy by default, 600 with `FOLIO_LONG_TESTS=1`.
    @Test(arguments: [StoreConfiguration.Durability.always, .none])
    func afterAPowerCutTheStoreOpensWithEveryAcknowledgedTransaction(_ durability: StoreConfiguration.Durability) throws {
        try withTemporaryDirectory { root in
            let seed = UInt64(Date().timeIntervalSince1970)
            var random = SeededGenerator(seed: seed)
            for round in 0..<(longTests ? 600 : 40) {
                let live = root.appending("live")
                try? FileManager.default.removeItem(at: live)
                // A starting point already on disk (durable).
                do {
                    let store = try Store.open(at: live)
                    try writeSampleTransactions(store, count: 5, seed: UInt64(round))
                    if round % 2 == 0 { try store.compact() }
                    store.close()
                }
                let filesystem = try PowerLossFileSystem(tracking: live)
                var configuration = StoreConfiguration()
                configuration.fileSystem = filesystem
                configuration.compactionThreshold = nil
                configuration.durability = durability
                let store = try Store.open(at: live, configuration: configuration)
                var states = [StoreContent(store)]  // states[k]: after k more transactions
                filesystem.crash(after: Int.random(in: 0...60, using: &random))
                var acknowledged = 0
                do {
                    for step in 0..<12 {
                        if step % 5 == 4 {
                            try store.compact()
                        } else {
                            try store.write { tx in
                                let id = tx.allocateID()
                                try tx.insert(entity: "Item", id: id, values: ["step": .int(Int64(step))])
                                if step % 3 == 0 { _ = try tx.putBlob(Data("blob \(step)".utf8)) }
                            }
                            acknowledged += 1
                            states.append(StoreContent(store))
                        }
                    }
                } catch {
                    // The power went: the step in progress may or may not have reached the disk.
                }
                store.close()
                let after = root.appending("after")
                try filesystem.materialize(into: after, from: live, using: &random)
                let label = "seed \(seed) round \(round)"
                let reopened: Store
                do {
                    reopened = try Store.open(at: after)
                } catch {
                    Issue.record("\(label): the store does not open after a power cut: \(error)")
                    continue
                }
                let content = StoreContent(reopened)
                let index = states.firstIndex { $0.records == content.records && $0.lastSequence == content.lastSequence }
                if let index {
                    if durability == .always { #expect(index >= acknowledged, "\(label): acknowledged \(acknowledged) transactions, found \(index)") }
                } else {
                    // Only the single in-flight transaction may be there beyond the acknowledged ones.
                    #expect(content.lastSequence == states[acknowledged].lastSequence + 1, "\(label): reopened to \(content)")
                    #expect(content.records.count >= states[acknowledged].records.count, "\(label)")
                }
                reopened.close()
            }
        }
    }
}
