import Foundation
import Testing
@testable import FolioStorage

/// ``Store/past(asOf:transactionID:at:configuration:)``: a read-only store in memory as of a sequence,
/// with the history up to it, against a plain replay of a seeded run's transactions.
@Suite("Stores as of a sequence")
struct PastStoreTests {
    @Test(arguments: 1...6)
    func aStoreAsOfEachReachableSequenceHoldsTheRecordsAndHistoryUpToIt(seed: Int) throws {
        try withTemporaryDirectory { url in
            var random = SeededGenerator(seed: UInt64(seed))
            var configuration = StoreConfiguration(compactionThreshold: nil)
            configuration.durability = .none
            configuration.historyRetention = StoreConfiguration.HistoryRetention(
                maximumCount: Int.random(in: 5...40, using: &random), maximumBytes: nil)
            let store = try Store.open(at: url, configuration: configuration)
            let committed = try RecordsAsOfTests.writeRandomTransactions(store, count: 60, random: &random)
            store.close()
            let files = try directoryContents(url)
            let reach = try Store.historyReach(at: url, configuration: configuration)
            let last = try #require(committed.last).sequence
            #expect(reach.lastSequence == last, "seed \(seed)")
            for sequence in 0...last {
                let message = Comment(rawValue: "seed \(seed), sequence \(sequence)")
                guard sequence >= reach.oldestSequence else {
                    let error = #expect(throws: StorageError.self, message) { try Store.past(asOf: sequence, at: url, configuration: configuration) }
                    #expect(error?.code == .historyExpired, message)
                    continue
                }
                let past = try Store.past(asOf: sequence, at: url, configuration: configuration)
                let expected = RecordsAsOfTests.plainReplay(committed, through: sequence)
                var found: RecordsAsOfTests.Records = [:]
                past.forEachRecord { id, entity, values in found[id] = (entity, values.dictionary) }
                #expect(RecordsAsOfTests.same(found, expected.records), message)
                #expect(past.lastSequence == sequence, message)
                #expect(past.schema == expected.schema, message)
                #expect(past.directory == nil, message)
                // The history up to `sequence`: what the files retained, oldest first, without gaps.
                let oldest = past.oldestRetainedSequence
                let history = try past.history(after: oldest > 0 ? oldest - 1 : 0)
                #expect(history.map(\.sequence) == Array(oldest...max(oldest, sequence)).filter { $0 <= sequence }, message)
                #expect(
                    history.map(\.transactionID) == committed.filter { $0.sequence >= oldest && $0.sequence <= sequence }.map(\.transactionID),
                    message)
                if let known = committed.first(where: { $0.sequence == sequence }), oldest <= sequence {
                    #expect(
                        try Store.past(asOf: sequence, transactionID: known.transactionID, at: url, configuration: configuration).lastSequence
                            == sequence, message)
                    let other = #expect(throws: StorageError.self, message) {
                        try Store.past(asOf: sequence, transactionID: "another", at: url, configuration: configuration)
                    }
                    #expect(other?.code == .historyExpired, message)
                }
            }
            #expect(try directoryContents(url) == files, "seed \(seed): nothing is written")
        }
    }

    @Test func aStoreAsOfASequenceRefusesWritesAndReadsBlobsFromTheStoresDirectory() throws {
        try withTemporaryDirectory { url in
            let store = try Store.open(at: url)
            var hash = ""
            try store.write { tx in
                hash = try tx.putBlob(Data("cover".utf8))
                try tx.insert(entity: "Book", id: tx.allocateID(), values: ["cover": BlobStore.reference(hash)])
            }
            try store.write { tx in try tx.insert(entity: "Book", id: tx.allocateID(), values: ["title": .string("second")]) }
            store.close()
            let past = try Store.past(asOf: 1, at: url)
            #expect(past.recordCount == 1)
            #expect(try past.blob(hash) == Data("cover".utf8))
            #expect(try past.refresh().isEmpty)
            for attempt in [
                { _ = try past.write { tx in try tx.insert(entity: "Book", id: tx.allocateID(), values: [:]) } },
                { try past.compact() }, { try past.deleteHistory(through: 1) },
            ] {
                let error = #expect(throws: StorageError.self) { try attempt() }
                #expect(error?.code == .readOnly)
            }
            let beyond = #expect(throws: StorageError.self) { try Store.past(asOf: 3, at: url) }
            #expect(beyond?.code == .missingSequence)
        }
    }
}
