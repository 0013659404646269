import Foundation
import Testing
@testable import FolioStorage

/// ``Store/records(asOf:at:configuration:)`` against a replay, kept in plain Swift, of the transactions
/// a seeded run committed, with compactions in between.
@Suite("Records as of a sequence")
struct RecordsAsOfTests {
    typealias Records = [Int64: (entity: String, values: [String: JSONValue])]

    /// The records after the transactions of `committed` up to `sequence`, replayed with dictionaries.
    static func plainReplay(_ committed: [JournalTransaction], through sequence: UInt64) -> (records: Records, schema: JSONValue?) {
        var records: Records = [:]
        var schema: JSONValue? = nil
        for transaction in committed where transaction.sequence <= sequence {
            for record in transaction.deleted { records[record.id] = nil }
            for record in transaction.inserted { records[record.id] = (record.entity, record.values.dictionary) }
            for record in transaction.updated {
                records[record.id]?.values.merge(record.values.dictionary) { _, new in new }
            }
            if let set = transaction.schema { schema = set }
        }
        return (records, schema)
    }

    static func records(_ past: PastRecords) -> Records {
        var result: Records = [:]
        past.records.forEachInNumberOrder { id, entry in result[id] = (entry.entity, entry.values.dictionary) }
        return result
    }

    static func same(_ lhs: Records, _ rhs: Records) -> Bool {
        lhs.count == rhs.count && lhs.allSatisfy { id, record in rhs[id].map { $0.entity == record.entity && $0.values == record.values } == true }
    }

    /// Commits `count` random transactions (inserts, updates of some members, deletes, now and then a
    /// schema), compacting before some of them. Most updates go to the oldest live record and write
    /// `a`, so that a record older than the retained history has members written again and again
    /// within it, which rolling back restores.
    static func writeRandomTransactions(_ store: Store, count: Int, random: inout SeededGenerator) throws -> [JournalTransaction] {
        var committed: [JournalTransaction] = []
        let members = ["b", "c"]
        for n in 0..<count {
            if Int.random(in: 0..<8, using: &random) == 0 { try store.compact() }
            let choice = Int.random(in: 0..<10, using: &random)
            let transaction = try store.write(author: "seeded") { tx in
                let live = tx.records(of: "Item") + tx.records(of: "Tag")
                if choice < 2, let victim = live.randomElement(using: &random) {
                    try tx.delete(entity: victim.entity, id: victim.id)
                } else if choice < 6,
                    let target = Int.random(in: 0..<5, using: &random) > 0 ? live.min(by: { $0.id < $1.id }) : live.randomElement(using: &random)
                {
                    var values: [String: JSONValue] = ["a": .int(Int64(n))]
                    for member in members.shuffled(using: &random).prefix(Int.random(in: 0...1, using: &random)) {
                        values[member] = .int(Int64(n * 10 + Int.random(in: 0..<10, using: &random)))
                    }
                    try tx.update(entity: target.entity, id: target.id, values: values)
                } else {
                    var values: [String: JSONValue] = ["a": .string("item \(n)")]
                    if Bool.random(using: &random) { values["b"] = .int(Int64(n)) }
                    try tx.insert(entity: n % 3 == 0 ? "Tag" : "Item", id: tx.allocateID(), values: values)
                }
                if choice == 9 { tx.setSchema(.string("schema \(n)")) }
            }
            committed.append(try #require(transaction))
        }
        return committed
    }

    @Test(arguments: 1...12)
    func theRecordsAsOfEachRetainedSequenceEqualAPlainReplay(seed: Int) throws {
        try withTemporaryDirectory { url in
            var random = SeededGenerator(seed: UInt64(seed))
            let keepsAll = seed % 3 == 0
            var configuration = StoreConfiguration(compactionThreshold: nil)
            configuration.durability = .none
            configuration.historyRetention = StoreConfiguration.HistoryRetention(
                maximumCount: keepsAll ? nil : Int.random(in: 0...30, using: &random), maximumBytes: nil)
            let store = try Store.open(at: url, configuration: configuration)
            let committed = try Self.writeRandomTransactions(store, count: 80, random: &random)
            if Bool.random(using: &random) { try store.compact() }
            store.close()
            let files = try directoryContents(url)
            let manifest = try Manifest.decode(try readBytes(url.appending("manifest.json")), path: "manifest.json")
            let last = try #require(committed.last).sequence
            var reached: [UInt64] = []
            var refused: [UInt64] = []
            for sequence in 0...last {
                let expected = Self.plainReplay(committed, through: sequence)
                do {
                    let past = try Store.records(asOf: sequence, at: url, configuration: configuration)
                    #expect(Self.same(Self.records(past), expected.records), "seed \(seed), sequence \(sequence)")
                    #expect(past.records.lastSequence == sequence, "seed \(seed), sequence \(sequence)")
                    #expect(past.schema == expected.schema, "seed \(seed), sequence \(sequence)")
                    reached.append(sequence)
                } catch let error as StorageError where error.code == .historyExpired {
                    #expect(error.file == url.appending("history.jsonl").path, "seed \(seed)")
                    refused.append(sequence)
                }
            }
            // What is reachable is every sequence from the oldest reachable on, the compaction point's included.
            let oldest = try #require(reached.first)
            #expect(reached == Array(oldest...last), "seed \(seed)")
            #expect(oldest <= manifest.sequence, "seed \(seed)")
            #expect(refused == Array(0..<oldest), "seed \(seed)")
            if keepsAll { #expect(refused.isEmpty, "seed \(seed): a store that keeps all its history reaches back to its start") }
            if let refusedOne = refused.last {
                let error = #expect(throws: StorageError.self) { try Store.records(asOf: refusedOne, at: url, configuration: configuration) }
                #expect(error?.message.contains("sequence \(oldest)") == true, "seed \(seed): the error names the oldest reachable sequence")
            }
            let beyond = #expect(throws: StorageError.self) { try Store.records(asOf: last + 1, at: url, configuration: configuration) }
            #expect(beyond?.code == .missingSequence)
            #expect(try directoryContents(url) == files, "seed \(seed): nothing is written")
        }
    }

    @Test func anEmptyFolderHoldsNoRecordsAsOfSequenceZero() throws {
        try withTemporaryDirectory { url in
            let past = try Store.records(asOf: 0, at: url)
            #expect(past.records.count == 0 && past.records.lastSequence == 0)
            #expect(throws: StorageError.self) { try Store.records(asOf: 1, at: url) }
            #expect(try FileManager.default.contentsOfDirectory(atPath: url.path).isEmpty)
        }
    }
}
