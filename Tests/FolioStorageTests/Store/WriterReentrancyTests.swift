import Foundation
import Testing
@testable import FolioStorage

@Suite("The store's writer lock is not recursive")
struct WriterReentrancyTests {
    /// Runs `call` inside a write body and returns the error it threw, letting the write commit.
    func errorInsideWrite(_ store: Store, _ call: () throws -> Void) throws -> StorageError? {
        var thrown: (any Error)?
        try store.write { transaction in
            do { try call() } catch { thrown = error }
            try transaction.insert(entity: "Item", id: transaction.allocateID(), values: ["title": .string("outer")])
        }
        return thrown as? StorageError
    }

    @Test func aWriteInsideAWriteThrowsAnErrorNamingIt() throws {
        try withTemporaryDirectory { url in
            let store = try Store.open(at: url)
            defer { store.close() }
            let error = try #require(
                try errorInsideWrite(store) {
                    try store.write { transaction in
                        try transaction.insert(entity: "Item", id: transaction.allocateID(), values: ["title": .string("inner")])
                    }
                })
            #expect(error.code == .reentrantCall)
            #expect(error.message.contains("Store.write(author:_:) was called on a thread that is already inside it"))
            #expect(error.message.contains("read through the WriteTransaction"))
            // The outer write committed; the inner one wrote nothing.
            #expect(store.records(of: "Item").map { $0.values["title"] } == [.string("outer")])
            #expect(store.lastSequence == 1)
        }
    }

    @Test(arguments: ["refresh", "compact", "sync", "deleteHistory", "waitForBackgroundCompaction"])
    func aCallNeedingTheWriterLockThrowsInsideAWriteBody(_ call: String) throws {
        try withTemporaryDirectory { url in
            let store = try Store.open(at: url)
            defer { store.close() }
            let error = try #require(
                try errorInsideWrite(store) {
                    switch call {
                    case "refresh": _ = try store.refresh()
                    case "compact": try store.compact()
                    case "sync": try store.sync()
                    case "deleteHistory": try store.deleteHistory(through: 0)
                    default: try store.waitForBackgroundCompaction()
                    }
                })
            #expect(error.code == .reentrantCall)
            #expect(error.message.contains("Store.\(call)"))
            #expect(store.lastSequence == 1)
            // Outside the write the same call works.
            try store.compact()
            #expect(store.count(of: "Item") == 1)
        }
    }

    @Test func closingInsideAWriteBodyClosesTheStoreWhenTheWriteReturns() throws {
        try withTemporaryDirectory { url in
            let store = try Store.open(at: url)
            let committed = try store.write { transaction in
                store.close()
                try transaction.insert(entity: "Item", id: transaction.allocateID(), values: ["title": .string("kept")])
            }
            #expect(committed?.sequence == 1)
            let late = #expect(throws: StorageError.self) {
                try store.write { transaction in
                    try transaction.insert(entity: "Item", id: transaction.allocateID(), values: ["title": .string("late")])
                }
            }
            #expect(late?.code == .closed)
            let reopened = try Store.open(at: url)
            defer { reopened.close() }
            #expect(reopened.records(of: "Item").map { $0.values["title"] } == [.string("kept")])
        }
    }

    @Test func readingTheStoreInsideAWriteBodyNeedsNoSecondLock() throws {
        try withTemporaryDirectory { url in
            let store = try Store.open(at: url)
            defer { store.close() }
            try writeSampleTransactions(store, count: 3)
            let before = store.lastSequence
            let items = store.count(of: "Item")
            var seen: (records: Int, sequence: UInt64, history: Int, changed: Bool, retained: Int)?
            try store.write { transaction in
                seen = (
                    store.records(of: "Item").count, store.lastSequence, try store.history(after: 0).count,
                    store.hasExternalChanges(), try store.statistics().retainedTransactions
                )
                try transaction.insert(entity: "Item", id: transaction.allocateID(), values: ["title": .string("inside")])
            }
            let reads = try #require(seen)
            #expect(reads.records == items)
            #expect(reads.sequence == before)
            #expect(reads.history == Int(before))
            #expect(!reads.changed)
            #expect(reads.retained == Int(before))
            #expect(store.lastSequence == before + 1)
        }
    }

    @Test func writesFromSeveralThreadsTakeTurns() throws {
        try withTemporaryDirectory { url in
            var configuration = StoreConfiguration()
            configuration.durability = .none
            let store = try Store.open(at: url, configuration: configuration)
            defer { store.close() }
            DispatchQueue.concurrentPerform(iterations: 4) { thread in
                for n in 0..<25 {
                    _ = try? store.write { transaction in
                        try transaction.insert(entity: "Item", id: transaction.allocateID(), values: ["n": .int(Int64(thread * 100 + n))])
                    }
                }
            }
            #expect(store.lastSequence == 100)
            #expect(store.count(of: "Item") == 100)
            #expect(try store.history(after: 0).map(\.sequence) == Array(1...100))
        }
    }
}
