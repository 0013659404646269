import Foundation
import Testing
@_spi(FolioEngine) @testable import FolioStorage

/// `Store.stagingCopy(of:)` and a commit that takes the copy's state (what a migration's custom stage
/// does): the store's state afterwards must be exactly what applying the transaction, or a reopen, gives.
@Suite("Staging copies")
struct StagingCopyTests {
    /// Every record with its entity, version and values, the counts, sequence, counter and the
    /// entities' last modifications: what a state is, as text.
    static func snapshot(_ store: Store) -> [String] {
        store.withState { state in
            var rows: [String] = []
            state.records.forEachInNumberOrder { id, entry in
                let values = entry.values.dictionary.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
                rows.append("\(id) \(state.entityNames[Int(entry.entity)]) v\(entry.version) \(values)")
            }
            rows.append("counts \(state.recordCounts.sorted { $0.key < $1.key }) last \(state.lastSequence) next \(state.nextID)")
            let modified = state.lastModified.filter { state.recordCounts[$0.key, default: 0] > 0 }.sorted { $0.key < $1.key }
            rows.append("modified \(modified) schema \(String(describing: state.schema))")
            return rows
        }
    }

    @Test(arguments: [false, true])
    func aCommitTakingTheCopysCommitsLeavesTheStateAReopenLoads(taking: Bool) throws {
        try withTemporaryDirectory { url in
            let store = try Store.open(at: url)
            try store.write { tx in
                for n in 1...4 {
                    try tx.insert(entity: "Trip", id: tx.allocateID(), values: ["name": .string("trip \(n)"), "price": .int(Int64(n))])
                }
                try tx.insert(entity: "Note", id: tx.allocateID(), values: ["text": .string("kept")])
            }
            let rename = RecordMigration(entity: "Trip", renamedMembers: ["name": "title"], removedMembers: [])
            try store.write(author: "migration") { tx in
                let staging = try store.stagingCopy(of: tx)
                let start = staging.lastSequence
                // Three commits in the copy, as a custom stage makes them: its schema, the records'
                // migration, then what its code saves.
                try staging.write { s in s.setSchema(.string("v2")) }
                try staging.write { s in try s.migrate(rename) }
                var inserted: Int64 = 0
                try staging.write { s in
                    try s.update(entity: "Trip", id: 2, values: ["price": .int(20)])
                    try s.delete(entity: "Trip", id: 3)
                    inserted = s.allocateID()
                    try s.insert(entity: "Trip", id: inserted, values: ["title": .string("new"), "price": .int(9)])
                }
                if taking {
                    try tx.takeCommits(of: staging, after: start)
                    #expect(tx.record(id: 2)?.values["title"] == .string("trip 2"), "reads see the copy's records")
                    #expect(tx.entity(ofRecord: 3) == nil)
                    #expect(tx.records(of: "Trip").map(\.id) == [1, 2, 4, inserted])
                } else {
                    // The same changes, made in the store's transaction.
                    try tx.migrate(rename)
                    try tx.update(entity: "Trip", id: 2, values: ["price": .int(20)])
                    try tx.delete(entity: "Trip", id: 3)
                    #expect(tx.allocateID() == inserted)
                    try tx.insert(entity: "Trip", id: inserted, values: ["title": .string("new"), "price": .int(9)])
                }
                tx.setSchema(.string("v2"))
            }
            let committed = Self.snapshot(store)
            #expect(committed.contains { $0.hasPrefix("2 Trip v2 ") && $0.contains("price=int(20)") && $0.contains("title=") })
            #expect(committed.contains { $0.hasPrefix("1 Trip v2 ") }, "a migrated record takes the migration's sequence")
            #expect(committed.contains { $0.hasPrefix("5 Note v1 ") }, "a record no commit wrote keeps its version")
            store.close()
            #expect(Self.snapshot(try Store.open(at: url)) == committed)
        }
    }

    /// Commits that change records on both sides of a migration are replayed in the names the later
    /// migrations give, and a delete of a record whose entity a later migration removes is dropped.
    @Test func takenCommitsAroundAMigrationGiveTheStateOfMakingThemInTheStore() throws {
        try withTemporaryDirectory { url in
            let store = try Store.open(at: url)
            try store.write { tx in
                for n in 1...3 {
                    try tx.insert(entity: "Trip", id: tx.allocateID(), values: ["name": .string("trip \(n)"), "price": .int(Int64(n))])
                }
                try tx.insert(entity: "Note", id: tx.allocateID(), values: ["text": .string("gone")])
                try tx.insert(entity: "Note", id: tx.allocateID(), values: ["text": .string("gone too")])
            }
            let rename = RecordMigration(entity: "Trip", renamedMembers: ["name": "title"], removedMembers: ["price"])
            let removeNotes = RecordMigration(entity: "Note", removesEntity: true)
            try store.write(author: "migration") { tx in
                let staging = try store.stagingCopy(of: tx)
                let start = staging.lastSequence
                try staging.write { s in
                    try s.update(entity: "Trip", id: 1, values: ["name": .string("renamed before")])
                    try s.delete(entity: "Note", id: 4)
                    try s.insert(entity: "Trip", id: s.allocateID(), values: ["name": .string("inserted before"), "price": .int(7)])
                }
                try staging.write { s in
                    try s.migrate(rename)
                    try s.migrate(removeNotes)
                }
                try staging.write { s in try s.update(entity: "Trip", id: 2, values: ["title": .string("set after")]) }
                try tx.takeCommits(of: staging, after: start)
                #expect(throws: StorageError.self) { try tx.update(entity: "Trip", id: 2, values: ["title": .string("more")]) }
                tx.setSchema(.string("v2"))
            }
            let committed = Self.snapshot(store)
            #expect(
                committed.contains {
                    $0.hasPrefix("1 Trip v2 ") && $0.contains("title=string") && $0.contains("renamed before") && !$0.contains("price")
                })
            #expect(committed.contains { $0.hasPrefix("6 Trip v2 ") && $0.contains("inserted before") && !$0.contains("price") })
            #expect(committed.contains { $0.hasPrefix("2 Trip v2 ") && $0.contains("set after") })
            #expect(!committed.contains { $0.contains(" Note ") })
            let line = try store.history(after: 1)
            #expect(line.count == 1 && line[0].deleted.isEmpty && line[0].migrations.count == 2)
            store.close()
            #expect(Self.snapshot(try Store.open(at: url)) == committed)
        }
    }
}
