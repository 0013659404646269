import FolioStorage
import Foundation

/// `folio-storage-worker sync-churn DIR COUNT NAME SEED`: COUNT random saves to the store in DIR, a
/// clone's work tree, by author NAME (insert, update or delete a Trip), with a `GitSync` with the
/// clone's upstream at random moments between them.
///
/// Prints `ack TRANSACTION-ID` once a save returned, `sync ok SENT RECEIVED` or `sync error CODE`
/// after each sync. Seeded: the same SEED makes the same choices (what git and the other clones do
/// between them is not seeded). A worker whose parent has gone exits.
enum SyncChurn {
    /// A SplitMix64 generator: small, and the same sequence on every platform.
    struct Generator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static func run(directory: URL, count: Int, name: String, seed: UInt64) throws {
        var generator = Generator(state: seed)
        var configuration = StoreConfiguration()
        configuration.compactionThreshold = nil
        let store = try Store.open(at: directory, configuration: configuration)
        defer { store.close() }
        let parent = getppid()
        for iteration in 0..<count {
            if getppid() != parent || parent == 1 { exit(0) }
            save(store, iteration: iteration, name: name, generator: &generator)
            if Int.random(in: 0..<6, using: &generator) == 0 { sync(directory) }
            usleep(UInt32.random(in: 0..<3_000, using: &generator))
        }
    }

    /// One random save; a save the store refuses (an update of a record a merge deleted) is not acknowledged.
    static func save(_ store: Store, iteration: Int, name: String, generator: inout Generator) {
        let existing = store.records(of: "Trip").map(\.id)
        let choice = existing.isEmpty ? 0 : Int.random(in: 0..<10, using: &generator)
        let target = existing.isEmpty ? 0 : existing[Int.random(in: 0..<existing.count, using: &generator)]
        let price = Double(Int.random(in: 1...500, using: &generator))
        do {
            let committed = try store.write(author: name) { t in
                switch choice {
                case 0..<5:
                    try t.insert(
                        entity: "Trip", id: t.allocateID(), values: ["name": .string("\(name) \(iteration)"), "price": .double(price)])
                case 5..<8: try t.update(entity: "Trip", id: target, values: ["price": .double(price)])
                default: try t.delete(entity: "Trip", id: target)
                }
            }
            if let committed { acknowledge("ack \(committed.transactionID)") }
        } catch {
            acknowledge("refused \(error)")
        }
    }

    static func sync(_ directory: URL) {
        do {
            let report = try GitSync.run(store: directory)
            acknowledge("sync ok \(report.sent.count) \(report.received.count)")
        } catch {
            acknowledge("sync error \(error.code)")
        }
    }
}
