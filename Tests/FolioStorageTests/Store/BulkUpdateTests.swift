import Foundation
import Testing
@_spi(FolioEngine) @testable import FolioStorage

/// A bulk update (``WriteTransaction/updateInBulk(_:)``) writes the same store, journal line and
/// history as the same updates made one by one, and refuses what a one-by-one update would refuse.
@Suite("Bulk updates")
struct BulkUpdateTests {
    /// A store with `count` items, and their identifiers.
    private func store(_ url: URL, count: Int) throws -> (Store, [Int64]) {
        let store = try Store.open(at: url)
        var ids: [Int64] = []
        try store.write { tx in
            for n in 0..<count {
                let id = tx.allocateID()
                ids.append(id)
                try tx.insert(entity: n % 5 == 0 ? "Other" : "Item", id: id, values: ["n": .int(Int64(n)), "name": .string("item \(n)")])
            }
        }
        return (store, ids)
    }

    @Test("a bulk update leaves the store, its line and its history as updates one by one would (seeded)")
    func bulkEqualsOneByOne() throws {
        let seed: UInt64 = 20_261_207
        var rng = SeededGenerator(seed: seed)
        try withTemporaryDirectory { root in
            let (bulk, ids) = try store(root.appending("bulk"), count: 200)
            let (single, _) = try store(root.appending("single"), count: 200)
            for round in 0..<5 {
                let chosen = ids.filter { _ in Int.random(in: 0..<3, using: &rng) == 0 }
                let records = try chosen.map { id in
                    let entity = try #require(bulk.record(id: id)?.entity)
                    return StoredRecord(entity: entity, id: id, values: ["n": .int(Int64(round) * 1000 + id), "round": .int(Int64(round))])
                }
                let a = try #require(try bulk.write { tx in try tx.updateInBulk(records) })
                let b = try #require(
                    try single.write { tx in
                        for record in records.reversed() { try tx.update(entity: record.entity, id: record.id, values: record.values) }
                    })
                #expect(a.updated == b.updated, "seed \(seed), round \(round)")
                #expect(StoreContent(bulk) == StoreContent(single), "seed \(seed), round \(round)")
            }
            bulk.close()
            single.close()
            #expect(StoreContent(try Store.open(at: root.appending("bulk"))) == StoreContent(try Store.open(at: root.appending("single"))))
        }
    }

    @Test("a bulk update's reads see it, and it refuses disorder, missing records, other entities and later changes")
    func bulkUpdateIsChecked() throws {
        try withTemporaryDirectory { url in
            let (store, ids) = try store(url, count: 10)
            let item = { (id: Int64) in StoredRecord(entity: "Item", id: id, values: ["n": .int(-id)]) }
            _ = try store.write { tx in
                try tx.updateInBulk([item(ids[1]), item(ids[2])])
                #expect(tx.record(id: ids[2])?.values["n"] == .int(-ids[2]))
                #expect(tx.record(id: ids[2])?.values["name"] == .string("item 2"))
                #expect(throws: StorageError.self) { try tx.update(entity: "Item", id: ids[3], values: ["n": .int(0)]) }
                #expect(throws: StorageError.self) { try tx.updateInBulk([item(ids[3])]) }
            }
            for bad in [[item(ids[2]), item(ids[1])], [item(ids[1]), item(ids[1])], [item(999_999)], [item(ids[0])]] {
                let error = #expect(throws: StorageError.self) { try store.write { tx in try tx.updateInBulk(bad) } }
                #expect(error?.code == .invalidTransaction, "\(bad.map(\.id))")
            }
            #expect(store.record(id: ids[1])?.values["n"] == .int(-ids[1]))
            #expect(store.record(id: ids[3])?.values["n"] == .int(3))
        }
    }
}
