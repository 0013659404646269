import Foundation
import Testing
@testable import FolioStorage

@Suite("Locks, leftovers and threads")
struct LockingAndLeftoversTests {
    @Test(arguments: ["", "garbage \u{0}\u{1}", "pid 999999 host elsewhere\n"])
    func aLeftoverLockFileNeverBlocksAWriter(_ content: String) throws {
        try withTemporaryDirectory { url in
            try writeSampleTransactions(try Store.open(at: url), count: 2)
            try writeBytes(Array(content.utf8), to: url.appending("lock"))
            let store = try Store.open(at: url)
            try writeSampleTransactions(store, count: 1, seed: 5)
            #expect(store.lastSequence == 3)
        }
    }

    @Test func temporaryFilesFromACrashAreIgnoredThenRemovedByCompaction() throws {
        try withTemporaryDirectory { url in
            let content = try makeStore(at: url, transactions: 8, compactAfter: 4)
            let leftovers = ["manifest.json.tmp-123-abc", "journal.jsonl.tmp-9-x", "snapshots/Item.jsonl.tmp-1-y"]
            for name in leftovers { try writeBytes(Array("half a fi".utf8), to: url.appending(name)) }
            let store = try Store.open(at: url)
            #expect(StoreContent(store) == content)
            #expect(StoreVerifier.verify(at: url).warnings.count == leftovers.count)
            try store.compact()
            for name in leftovers { #expect(!FileManager.default.fileExists(atPath: url.appending(name).path)) }
        }
    }

    @Test func aThrowingBodyWritesNothing() throws {
        try withTemporaryDirectory { url in
            let store = try Store.open(at: url)
            try writeSampleTransactions(store, count: 2)
            let before = try readBytes(url.appending("journal.jsonl"))
            struct Cancelled: Error {}
            #expect(throws: Cancelled.self) {
                try store.write { tx in
                    try tx.insert(entity: "Item", id: tx.allocateID(), values: [:])
                    throw Cancelled()
                }
            }
            #expect(try readBytes(url.appending("journal.jsonl")) == before)
            #expect(store.lastSequence == 2)
        }
    }

    @Test func threadsAndTwoStoreObjectsOnOneDirectorySerialiseTheirWrites() throws {
        try withTemporaryDirectory { url in
            let first = try Store.open(at: url)
            let second = try Store.open(at: url)
            try first.write { tx in try tx.insert(entity: "Counter", id: tx.allocateID(), values: ["value": .int(0)]) }
            DispatchQueue.concurrentPerform(iterations: 4) { worker in
                let store = worker % 2 == 0 ? first : second
                for _ in 0..<25 {
                    _ = try? store.write { tx in
                        let value = tx.record(id: 1)?.values["value"]?.intValue ?? 0
                        try tx.update(entity: "Counter", id: 1, values: ["value": .int(value + 1)])
                    }
                }
            }
            try second.refresh()
            try first.refresh()
            #expect(first.record(id: 1)?.values["value"] == .int(100))
            #expect(second.record(id: 1)?.values["value"] == .int(100))
            #expect(first.lastSequence == 101)
        }
    }

    @Test func inMemoryStoresOfferTheSameOperationsWithoutFiles() throws {
        let store = Store.inMemory()
        var hash = ""
        try store.write { tx in
            hash = try tx.putBlob(Data("hello".utf8))
            try tx.insert(entity: "Doc", id: tx.allocateID(), values: ["body": BlobStore.reference(hash)])
            tx.setSchema(.string("v1"))
        }
        #expect(try store.blob(hash) == Data("hello".utf8))
        #expect(try store.history(after: 0).count == 1)
        #expect(try store.refresh().isEmpty)
        try store.compact()
        #expect(store.schema == .string("v1"))
        #expect(try store.statistics().recordCounts == ["Doc": 1])
        #expect(store.directory == nil)
    }
}
