import Foundation
import Testing
@testable import FolioStorage

/// The compaction mark names the migrations it folded, for git's merge driver.
@Suite("Folded migrations on the compaction mark")
struct FoldedMigrationsTests {
    static func mark(_ url: URL) throws -> JournalTransaction? {
        try CompactionMarkTests.lines(url).first.flatMap { $0.isCompactionMark ? $0 : nil }
    }

    @Test func aMarkNamesTheMigrationsFoldedAndKeepsThemWhenTheHistoryNoLongerDoes() throws {
        try withTemporaryDirectory { url in
            let store = try Store.open(
                at: url, configuration: StoreConfiguration(compactionThreshold: nil, historyRetention: .init(maximumCount: 0)))
            defer { store.close() }
            try store.write { try $0.insert(entity: "Trip", id: 1, values: ["n": .int(1)]) }
            let migration = RecordMigration(entity: "Trip", renamedMembers: ["n": "m"])
            let migrating = try #require(
                try store.write { tx in
                    try tx.migrate(migration)
                    tx.setSchema(.object(["checksum": .string("c2"), "entities": .object([:])]))
                })
            try store.compact()
            let expected = FoldedMigration(
                transactionID: migrating.transactionID, sequence: migrating.sequence, migrations: [migration], schemaChecksum: "c2")
            #expect(try Self.mark(url)?.foldedMigrations == [expected])

            try store.write { try $0.update(entity: "Trip", id: 1, values: ["m": .int(2)]) }
            try store.compact()
            #expect(try Self.mark(url)?.foldedMigrations == [expected], "carried from the previous mark, the history kept none")
        }
    }

    @Test func aMarkNamesTheNewestSixteen() throws {
        try withTemporaryDirectory { url in
            let store = try Store.open(at: url, configuration: StoreConfiguration(compactionThreshold: nil))
            defer { store.close() }
            try store.write { try $0.insert(entity: "Trip", id: 1, values: ["n0": .int(1)]) }
            var sequences: [UInt64] = []
            for step in 0..<17 {
                let committed = try #require(
                    try store.write { tx in try tx.migrate(RecordMigration(entity: "Trip", renamedMembers: ["n\(step)": "n\(step + 1)"])) })
                sequences.append(committed.sequence)
                if step % 5 == 0 { try store.compact() }
            }
            try store.compact()
            #expect(try Self.mark(url)?.foldedMigrations.map(\.sequence) == Array(sequences.suffix(16)))
        }
    }
}
