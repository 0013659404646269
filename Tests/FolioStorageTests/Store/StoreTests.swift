import Foundation
import FolioTestSupport
import Testing
@testable import FolioStorage

@Suite("Store: records, identifiers, history, blobs")
struct StoreTests {
    @Test func writesAndReadsBackAfterReopen() throws {
        try withTemporaryDirectory { url in
            let store = try Store.open(at: url)
            let committed = try writeSampleTransactions(store, count: 40)
            #expect(committed.map(\.sequence) == Array(1...40))
            let before = StoreContent(store)
            store.close()
            let reopened = try Store.open(at: url)
            #expect(StoreContent(reopened) == before)
            try reopened.compact()
            reopened.close()
            #expect(StoreContent(try Store.open(at: url)) == before)
        }
    }

    @Test func looksUpARecordByIdentifierAloneWhateverItsEntity() throws {
        let store = Store.inMemory()
        var ids: [Int64] = []
        try store.write { tx in
            ids = [tx.allocateID(), tx.allocateID()]
            try tx.insert(entity: "Trip", id: ids[0], values: ["name": .string("Tokyo")])
            try tx.insert(entity: "BusinessTrip", id: ids[1], values: ["trip": .int(ids[0])])
        }
        #expect(store.record(id: ids[1])?.entity == "BusinessTrip")
        #expect(store.record(id: ids[0])?.values["name"] == .string("Tokyo"))
        #expect(ids[0] != ids[1])
    }

    @Test func countsAndEntityNamesFollowInterleavedInsertsAndDeletesThroughCompactionAndReopen() throws {
        try withTemporaryDirectory { url in
            let store = try Store.open(at: url)
            var tripIDs: [Int64] = []
            var stopIDs: [Int64] = []
            try store.write { tx in
                for n in 0..<10 {
                    let trip = tx.allocateID()
                    try tx.insert(entity: "Trip", id: trip, values: ["n": .int(Int64(n))])
                    tripIDs.append(trip)
                    let stop = tx.allocateID()
                    try tx.insert(entity: "Stop", id: stop, values: ["trip": .int(trip)])
                    stopIDs.append(stop)
                }
            }
            #expect(store.entityNames == ["Stop", "Trip"])
            #expect(store.count(of: "Trip") == 10 && store.count(of: "Stop") == 10 && store.recordCount == 20)
            #expect(store.records(of: "Trip").map(\.id) == tripIDs)
            var walked: [(Int64, String)] = []
            store.forEachRecord { id, entity, _ in walked.append((id, entity)) }
            #expect(walked.map(\.0) == (tripIDs + stopIDs).sorted())
            #expect(walked.filter { $0.1 == "Stop" }.map(\.0) == stopIDs)

            try store.write { tx in
                for id in stopIDs { try tx.delete(entity: "Stop", id: id) }
                try tx.delete(entity: "Trip", id: tripIDs[0])
            }
            func check(_ store: Store) {
                #expect(store.entityNames == ["Trip"])
                #expect(store.count(of: "Stop") == 0 && store.records(of: "Stop").isEmpty)
                #expect(store.count(of: "Trip") == 9 && store.recordCount == 9)
                #expect(store.records(of: "Trip").map(\.id) == Array(tripIDs.dropFirst()))
                #expect(store.record(id: stopIDs[3]) == nil)
            }
            check(store)
            try store.compact()
            check(store)
            store.close()
            let reopened = try Store.open(at: url)
            check(reopened)
            // The emptied entity comes back under its own name.
            try reopened.write { tx in try tx.insert(entity: "Stop", id: tx.allocateID(), values: [:]) }
            #expect(reopened.entityNames == ["Stop", "Trip"] && reopened.count(of: "Stop") == 1)
        }
    }

    @Test func identifiersAreNeverReusedAfterDeleteCompactionAndReopen() throws {
        try withTemporaryDirectory { url in
            var seen = Set<Int64>()
            for round in 0..<3 {
                let store = try Store.open(at: url)
                try store.write { tx in
                    for record in tx.records(of: "Item") { try tx.delete(entity: "Item", id: record.id) }
                    for _ in 0..<5 {
                        let id = tx.allocateID()
                        #expect(seen.insert(id).inserted)
                        try tx.insert(entity: "Item", id: id, values: ["round": .int(Int64(round))])
                    }
                }
                try store.write { tx in
                    for record in tx.records(of: "Item") { try tx.delete(entity: "Item", id: record.id) }
                }
                try store.compact()
                store.close()
            }
            let store = try Store.open(at: url)
            #expect(store.nextID == 16)
            #expect(store.count(of: "Item") == 0)
        }
    }

    @Test func reservedIdentifiersCanBeInsertedLaterAndAreNeverHandedOutAgain() throws {
        try withTemporaryDirectory { url in
            let store = try Store.open(at: url)
            let reserved = try store.reserveIDs(3)
            #expect(reserved == 1...3)
            let other = try Store.open(at: url)
            var otherID: Int64 = 0
            try other.write { tx in
                otherID = tx.allocateID()
                try tx.insert(entity: "Item", id: otherID, values: [:])
            }
            #expect(!reserved.contains(otherID))
            try store.write { tx in try tx.insert(entity: "Item", id: 2, values: ["reserved": .bool(true)]) }
            #expect(store.record(id: 2)?.values["reserved"] == .bool(true))
            // Another store object did not reserve 3.
            #expect(throws: StorageError.self) { try other.write { tx in try tx.insert(entity: "Item", id: 3, values: [:]) } }
            #expect(throws: StorageError.self) { try store.reserveIDs(0) }
            store.close()
            #expect(try Store.open(at: url).nextID == 5)
        }
    }

    @Test func refusesToReinsertADeletedIdentifier() throws {
        let store = Store.inMemory()
        var id: Int64 = 0
        try store.write { tx in
            id = tx.allocateID()
            try tx.insert(entity: "Item", id: id, values: [:])
        }
        try store.write { tx in try tx.delete(entity: "Item", id: id) }
        #expect(throws: StorageError.self) {
            try store.write { tx in try tx.insert(entity: "Item", id: id, values: [:]) }
        }
    }

    @Test func deleteThenInsertIsNotShadowedByTheTombstone() throws {
        try withTemporaryDirectory { url in
            let store = try Store.open(at: url)
            var first: Int64 = 0
            var second: Int64 = 0
            try store.write { tx in
                first = tx.allocateID()
                try tx.insert(entity: "Item", id: first, values: ["name": .string("a")])
            }
            try store.write { tx in
                try tx.delete(entity: "Item", id: first, tombstone: ["name": .string("a")])
                second = tx.allocateID()
                try tx.insert(entity: "Item", id: second, values: ["name": .string("a")])
            }
            let check: (Store) -> Void = { store in
                #expect(store.record(id: first) == nil)
                #expect(store.record(id: second)?.values["name"] == .string("a"))
            }
            check(store)
            try store.compact()
            check(store)
            store.close()
            check(try Store.open(at: url))
        }
    }

    @Test func combinesChangesToOneRecordWithinATransaction() throws {
        let store = Store.inMemory()
        let committed = try store.write { tx in
            let a = tx.allocateID()
            let b = tx.allocateID()
            try tx.insert(entity: "Item", id: a, values: ["x": .int(1)])
            try tx.update(entity: "Item", id: a, values: ["y": .int(2)])
            try tx.insert(entity: "Item", id: b, values: [:])
            try tx.delete(entity: "Item", id: b)
        }
        #expect(committed?.inserted == [StoredRecord(entity: "Item", id: 1, values: ["x": .int(1), "y": .int(2)])])
        #expect(committed?.deleted == [])
        #expect(store.nextID == 3)
    }

    @Test func recordsOnlyChangedValuesInUpdates() throws {
        let store = Store.inMemory()
        try store.write { tx in try tx.insert(entity: "Item", id: tx.allocateID(), values: ["a": .int(1), "b": .int(2)]) }
        let committed = try store.write { tx in try tx.update(entity: "Item", id: 1, values: ["b": .int(3)]) }
        #expect(committed?.updated == [StoredRecord(entity: "Item", id: 1, values: ["b": .int(3)])])
        #expect(store.record(id: 1)?.values == ["a": .int(1), "b": .int(3)])
    }

    @Test func anEmptyWriteCommitsNothing() throws {
        let store = Store.inMemory()
        #expect(try store.write { _ in } == nil)
        #expect(store.lastSequence == 0)
    }

    @Test func keepsTheSchemaSlotInTheManifestAcrossCompaction() throws {
        try withTemporaryDirectory { url in
            let schema = JSONValue.object(["entities": .array([.string("Trip")]), "version": .int(2)])
            let store = try Store.open(at: url)
            try store.write { tx in tx.setSchema(schema) }
            #expect(store.schema == schema)
            try store.compact()
            store.close()
            let manifest = try String(contentsOf: url.appending("manifest.json"), encoding: .utf8)
            #expect(manifest.contains(#""schema":{"value":{"entities":["Trip"],"version":2}}"#))
            #expect(try Store.open(at: url).schema == schema)
        }
    }

    @Test func theSameTransactionsGiveByteIdenticalSnapshots() throws {
        try withTemporaryDirectory { url in
            let a = url.appending("a")
            let b = url.appending("b")
            let storeA = try Store.open(at: a)
            let storeB = try Store.open(at: b)
            var random = SeededGenerator(seed: 3)
            // A compacts often, B once: the snapshots must not depend on when compaction ran.
            for n in 0..<60 {
                try writeSampleTransactions(storeA, count: 1, seed: UInt64(n))
                try writeSampleTransactions(storeB, count: 1, seed: UInt64(n))
                if Int.random(in: 0..<5, using: &random) == 0 { try storeA.compact() }
            }
            try storeA.compact()
            try storeB.compact()
            let snapshotsA = try directoryContents(a.appending("snapshots"))
            let snapshotsB = try directoryContents(b.appending("snapshots"))
            #expect(!snapshotsA.isEmpty)
            #expect(snapshotsA == snapshotsB)
        }
    }

    @Test func changingOneRecordChangesOneRecordLineOfItsSnapshot() throws {
        try withTemporaryDirectory { url in
            let store = try Store.open(at: url)
            try store.write { tx in
                for n in 0..<10 { try tx.insert(entity: "Item", id: tx.allocateID(), values: ["n": .int(Int64(n))]) }
            }
            try store.compact()
            let before = try String(contentsOf: url.appending("snapshots/Item.jsonl"), encoding: .utf8).split(separator: "\n")
            try store.write { tx in try tx.update(entity: "Item", id: 4, values: ["n": .int(40)]) }
            try store.compact()
            let after = try String(contentsOf: url.appending("snapshots/Item.jsonl"), encoding: .utf8).split(separator: "\n")
            let changed = zip(before, after).enumerated().filter { $0.element.0 != $0.element.1 }.map(\.offset)
            #expect(changed == [0, 4])  // the header (its sequence) and record 4
        }
    }

    @Test func historyReturnsRetainedTransactionsAndThrowsWhenExpired() throws {
        try withTemporaryDirectory { url in
            var configuration = StoreConfiguration()
            configuration.historyRetention = .init(maximumCount: 5)
            let store = try Store.open(at: url, configuration: configuration)
            let committed = try writeSampleTransactions(store, count: 12)
            #expect(try store.history(after: 0) == committed)
            try store.compact()
            #expect(try store.history(after: 7) == Array(committed[7...]))
            #expect(try store.history(after: 12) == [])
            do {
                _ = try store.history(after: 6)
                Issue.record("history after 6 should have expired")
            } catch {
                #expect((error as? StorageError)?.code == .historyExpired)
            }
            store.close()
            let reopened = try Store.open(at: url, configuration: configuration)
            #expect(try reopened.history(after: 7) == Array(committed[7...]))
            #expect(throws: StorageError.self) { try reopened.history(after: 2) }
        }
    }

    @Test func historyRetentionByAgeDropsOldTransactions() throws {
        let store = Store.inMemory(configuration: StoreConfiguration(historyRetention: .init(maximumCount: nil, maximumAge: 3600)))
        try writeSampleTransactions(store, count: 3)
        let kept = try store.retainedHistory(try store.history(after: 0), now: Date().addingTimeInterval(7200))
        #expect(kept.isEmpty)
    }

    @Test func blobsAreWrittenBeforeTheTransactionAndCollectedAtCompaction() throws {
        try withTemporaryDirectory { url in
            let filesystem = FaultInjectingFileSystem()
            var configuration = StoreConfiguration(historyRetention: .init(maximumCount: 0))
            configuration.fileSystem = filesystem
            let store = try Store.open(at: url, configuration: configuration)
            let data = Data((0..<100_000).map { UInt8($0 % 251) })
            var hash = ""
            filesystem.clearLog()
            try store.write { tx in
                hash = try tx.putBlob(data)
                try tx.insert(entity: "Photo", id: tx.allocateID(), values: ["image": BlobStore.reference(hash)])
            }
            let log = filesystem.log.map { "\($0.0.rawValue) \($0.1.replacingOccurrences(of: url.path, with: ""))" }
            let blobRename = try #require(log.firstIndex { $0.hasPrefix("rename /blobs/") })
            let journalWrite = try #require(log.firstIndex { $0 == "write /journal.jsonl" })
            #expect(blobRename < journalWrite)
            #expect(try store.blob(hash) == data)
            #expect(hash == SHA256.hexDigest([UInt8](data)))
            // Unreferenced after the delete: removed by compaction.
            try store.write { tx in try tx.delete(entity: "Photo", id: 1) }
            var orphan = ""
            try store.write { tx in orphan = try tx.putBlob(Data("orphan".utf8)) }
            try store.compact()
            #expect(throws: StorageError.self) { try store.blob(hash) }
            #expect(throws: StorageError.self) { try store.blob(orphan) }
        }
    }

    @Test func refusesARecordReferringToAMissingBlobOrAMalformedHash() throws {
        let store = Store.inMemory()
        #expect(throws: StorageError.self) {
            try store.write { tx in
                try tx.insert(entity: "Photo", id: tx.allocateID(), values: ["image": BlobStore.reference(String(repeating: "a", count: 64))])
            }
        }
        #expect(throws: StorageError.self) { try store.blob("../../etc/passwd") }
    }

    @Test func refusesUnknownEntitiesAndUnsafeEntityNames() throws {
        let store = Store.inMemory(configuration: StoreConfiguration(knownEntities: ["Trip"]))
        #expect(throws: StorageError.self) { try store.write { tx in try tx.insert(entity: "Other", id: tx.allocateID(), values: [:]) } }
        let open = Store.inMemory()
        for name in ["../x", "a/b", "", ".hidden", "naïve"] {
            #expect(throws: StorageError.self) { try open.write { tx in try tx.insert(entity: name, id: tx.allocateID(), values: [:]) } }
        }
    }

    @Test func refusesNonFiniteDoublesWithoutWriting() throws {
        try withTemporaryDirectory { url in
            let store = try Store.open(at: url)
            #expect(throws: StorageError.self) {
                try store.write { tx in try tx.insert(entity: "Item", id: tx.allocateID(), values: ["x": .double(.nan)]) }
            }
            #expect(store.lastSequence == 0)
        }
    }

    @Test func readOnlyStoresRefuseWrites() throws {
        try withTemporaryDirectory { url in
            try writeSampleTransactions(try Store.open(at: url), count: 3)
            let store = try Store.open(at: url, configuration: StoreConfiguration(readOnly: true))
            #expect(store.lastSequence == 3)
            do {
                try store.write { tx in _ = tx.allocateID() }
                Issue.record("read-only store accepted a write")
            } catch {
                #expect((error as? StorageError)?.code == .readOnly)
            }
        }
    }

    @Test func compactsAutomaticallyPastTheThreshold() throws {
        try withTemporaryDirectory { url in
            var configuration = StoreConfiguration(compactionThreshold: 2000)
            configuration.compactsInBackground = false
            let store = try Store.open(at: url, configuration: configuration)
            try writeSampleTransactions(store, count: 30)
            let statistics = try store.statistics()
            #expect(statistics.journalBytes <= 2000)
            #expect(statistics.lastSequence == 30)
            #expect(statistics.fileSizes["manifest.json"] != nil)
        }
    }

    @Test func statisticsDescribeTheStore() throws {
        try withTemporaryDirectory { url in
            let store = try Store.open(at: url, configuration: StoreConfiguration(compactionThreshold: 100))
            try store.write { tx in try tx.insert(entity: "Item", id: tx.allocateID(), values: [:]) }
            let statistics = try store.statistics()
            #expect(statistics.formatVersion == 1)
            #expect(statistics.recordCounts == ["Item": 1])
            #expect(statistics.lastTransaction?.sequence == 1)
        }
    }

    @Test func batchedDurabilitySyncsOnRequestAndOnClose() throws {
        try withTemporaryDirectory { url in
            let store = try Store.open(at: url, configuration: StoreConfiguration(durability: .batched(60)))
            try writeSampleTransactions(store, count: 5)
            try store.sync()
            store.close()
            #expect(try Store.open(at: url).lastSequence == 5)
        }
    }
}
