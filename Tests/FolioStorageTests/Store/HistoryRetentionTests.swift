import Foundation
import Testing
@testable import FolioStorage

@Suite("History retention by size")
struct HistoryRetentionTests {
    /// Writes one transaction per padding, each inserting an `Item` whose text is that many bytes, and
    /// closes the store: the tests reopen it with a byte limit computed from the transactions' lines.
    private func writeTransactions(at url: URL, paddings: [Int]) throws -> [JournalTransaction] {
        let store = try Store.open(at: url, configuration: StoreConfiguration(compactionThreshold: nil))
        defer { store.close() }
        return try paddings.map { padding in
            try #require(
                try store.write(author: "tests") { tx in
                    try tx.insert(entity: "Item", id: tx.allocateID(), values: ["text": .string(String(repeating: "x", count: padding))])
                })
        }
    }

    private func byteCount<Lines: Sequence<[UInt8]>>(_ lines: Lines) -> Int64 { Int64(lines.reduce(0) { $0 + $1.count }) }

    private func openWithRetention(_ url: URL, maximumCount: Int? = 1000, maximumBytes: Int64?) throws -> Store {
        try Store.open(
            at: url,
            configuration: StoreConfiguration(
                compactionThreshold: nil, historyRetention: .init(maximumCount: maximumCount, maximumBytes: maximumBytes)))
    }

    private func expectHistoryExpired(_ store: Store, after sequence: UInt64) {
        #expect {
            _ = try store.history(after: sequence)
        } throws: { error in
            (error as? StorageError)?.code == .historyExpired
        }
    }

    @Test func theDefaultRetentionKeepsAtMost64MiBOfHistory() {
        #expect(StoreConfiguration().historyRetention.maximumBytes == 64 << 20)
        #expect(StoreConfiguration.HistoryRetention().maximumCount == 1000)
    }

    @Test func compactionKeepsTheNewestTransactionsWhoseLinesFitInTheByteLimit() throws {
        try withTemporaryDirectory { url in
            let committed = try writeTransactions(at: url, paddings: Array(repeating: 1000, count: 10))
            let lines = try committed.map { try $0.encodedLine() }
            let limit = byteCount(lines[7...])  // exactly the newest three: a total equal to the limit fits
            let store = try openWithRetention(url, maximumBytes: limit)
            try store.compact()
            let file = try Data(contentsOf: url.appending("history.jsonl"))
            #expect(file == Data(lines[7...].joined()))
            #expect(Int64(file.count) <= limit)
            #expect(try store.history(after: 7) == Array(committed[7...]))
            #expect(store.oldestRetainedSequence == 8)
            expectHistoryExpired(store, after: 6)
            store.close()
            let reopened = try openWithRetention(url, maximumBytes: limit)
            defer { reopened.close() }
            #expect(reopened.oldestRetainedSequence == 8)
            #expect(try reopened.history(after: 7) == Array(committed[7...]))
            expectHistoryExpired(reopened, after: 0)
        }
    }

    @Test func aLimitOneByteShortOfTheNewestLinesDropsTheOldestOfThem() throws {
        try withTemporaryDirectory { url in
            let committed = try writeTransactions(at: url, paddings: Array(repeating: 1000, count: 10))
            let lines = try committed.map { try $0.encodedLine() }
            let store = try openWithRetention(url, maximumBytes: byteCount(lines[7...]) - 1)
            defer { store.close() }
            try store.compact()
            #expect(try Data(contentsOf: url.appending("history.jsonl")) == Data(lines[8...].joined()))
            #expect(store.oldestRetainedSequence == 9)
            #expect(try store.history(after: 8) == Array(committed[8...]))
            expectHistoryExpired(store, after: 7)
        }
    }

    @Test func withoutAByteLimitCompactionKeepsEveryTransactionWithinTheCount() throws {
        try withTemporaryDirectory { url in
            let committed = try writeTransactions(at: url, paddings: Array(repeating: 10_000, count: 10))
            let lines = try committed.map { try $0.encodedLine() }
            let store = try openWithRetention(url, maximumCount: 8, maximumBytes: nil)
            defer { store.close() }
            try store.compact()
            let file = try Data(contentsOf: url.appending("history.jsonl"))
            #expect(file == Data(lines[2...].joined()))
            #expect(file.count > 80_000)
            #expect(store.oldestRetainedSequence == 3)
            #expect(try store.history(after: 2) == Array(committed[2...]))
            expectHistoryExpired(store, after: 1)
        }
    }

    @Test func aTransactionThatDoesNotFitDropsEveryOlderOneSoHistoryHasNoGaps() throws {
        try withTemporaryDirectory { url in
            let committed = try writeTransactions(at: url, paddings: [100, 5000, 100, 100])
            let lines = try committed.map { try $0.encodedLine() }
            // The three small transactions would fit together; the large one between them does not.
            let store = try openWithRetention(url, maximumBytes: byteCount([lines[0], lines[2], lines[3]]))
            defer { store.close() }
            try store.compact()
            #expect(try Data(contentsOf: url.appending("history.jsonl")) == Data(lines[2...].joined()))
            #expect(store.oldestRetainedSequence == 3)
            #expect(try store.history(after: 2) == Array(committed[2...]))
            expectHistoryExpired(store, after: 0)
        }
    }

    @Test func aNewestTransactionLargerThanTheLimitLeavesNoHistory() throws {
        try withTemporaryDirectory { url in
            let committed = try writeTransactions(at: url, paddings: [100, 100, 5000])
            let lines = try committed.map { try $0.encodedLine() }
            let store = try openWithRetention(url, maximumBytes: byteCount(lines[0...1]))
            defer { store.close() }
            try store.compact()
            #expect(try Data(contentsOf: url.appending("history.jsonl")).isEmpty)
            #expect(store.oldestRetainedSequence == 4)
            #expect(try store.history(after: 3) == [])
            expectHistoryExpired(store, after: 2)
            #expect(store.count(of: "Item") == 3)
        }
    }

    @Test func anInMemoryStoreAppliesTheByteLimitWhenItCompacts() throws {
        let store = Store.inMemory(configuration: StoreConfiguration(historyRetention: .init(maximumBytes: 5000)))
        var committed: [JournalTransaction] = []
        for _ in 0..<5 {
            committed.append(
                try #require(
                    try store.write { tx in
                        try tx.insert(entity: "Item", id: tx.allocateID(), values: ["text": .string(String(repeating: "x", count: 2000))])
                    }))
        }
        let lines = try committed.map { try $0.encodedLine() }
        #expect(byteCount(lines[3...]) <= 5000 && byteCount(lines[2...]) > 5000)
        try store.compact()
        #expect(try store.history(after: 3) == Array(committed[3...]))
        #expect(store.oldestRetainedSequence == 4)
        expectHistoryExpired(store, after: 2)
    }

    @Test func deleteHistoryWritesOnlyTheLaterTransactionsThatFitTheByteLimit() throws {
        try withTemporaryDirectory { url in
            let committed = try writeTransactions(at: url, paddings: Array(repeating: 1000, count: 6))
            let lines = try committed.map { try $0.encodedLine() }
            let store = try openWithRetention(url, maximumBytes: byteCount(lines[1...]))
            defer { store.close() }
            try store.deleteHistory(through: 3)
            #expect(try Data(contentsOf: url.appending("history.jsonl")) == Data(lines[3...].joined()))
            #expect(
                try JournalThreeWayMerge.read(readBytes(url.appending("journal.jsonl")), name: "journal").map(\.transaction.isCompactionMark) == [
                    true
                ])
            #expect(store.oldestRetainedSequence == 4)
            #expect(try store.history(after: 3) == Array(committed[3...]))
            expectHistoryExpired(store, after: 2)
        }
    }
}
