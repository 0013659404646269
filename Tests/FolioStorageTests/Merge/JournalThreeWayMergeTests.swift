import Foundation
import Testing
@testable import FolioStorage

/// The journal merge that `folio merge-driver` runs, on the bytes of three versions.
@Suite("Three-way journal merge")
struct JournalThreeWayMergeTests {
    static func transaction(
        _ sequence: UInt64, _ id: String, at millisecond: Int, inserted: [StoredRecord] = [], updated: [StoredRecord] = [],
        deleted: [DeletedRecord] = [], nextID: Int64
    ) -> JournalTransaction {
        JournalTransaction(
            sequence: sequence, transactionID: id, timestamp: Date(timeIntervalSince1970: 1_800_000_000 + Double(millisecond) / 1000),
            author: nil, inserted: inserted, updated: updated, deleted: deleted, nextID: nextID)
    }

    static func file(_ transactions: [JournalTransaction]) throws -> [UInt8] {
        try transactions.flatMap { try $0.encodedLine() }
    }

    static let blockA = IdentifierBlocks.first(in: 7), blockB = IdentifierBlocks.first(in: 9)
    static let base = transaction(
        1, "base", at: 0,
        inserted: [
            StoredRecord(entity: "Note", id: 1, values: ["title": .string("one"), "pinned": .bool(false)]),
            StoredRecord(entity: "Note", id: 2, values: ["title": .string("two")]),
        ], nextID: 3)

    /// Ours and theirs as the new transactions of two clones.
    static func sides() -> (ours: [JournalTransaction], theirs: [JournalTransaction]) {
        let ours = [
            transaction(
                2, "a1", at: 10, inserted: [StoredRecord(entity: "Note", id: blockA, values: ["title": .string("a")])],
                updated: [StoredRecord(entity: "Note", id: 1, values: ["title": .string("one (a)")])], nextID: blockA + 1),
            transaction(3, "a2", at: 30, updated: [StoredRecord(entity: "Note", id: 2, values: ["title": .string("two (a)")])], nextID: blockA + 1),
        ]
        let theirs = [
            transaction(
                2, "b1", at: 20, inserted: [StoredRecord(entity: "Note", id: blockB, values: ["title": .string("b")])],
                updated: [StoredRecord(entity: "Note", id: 1, values: ["title": .string("one (b)"), "pinned": .bool(true)])],
                nextID: blockB + 1),
            transaction(3, "b2", at: 40, deleted: [DeletedRecord(entity: "Note", id: 2, tombstone: [:])], nextID: blockB + 1),
        ]
        return (ours, theirs)
    }

    /// The records a journal's bytes replay to.
    static func replay(_ bytes: [UInt8]) throws -> [Int64: RecordValues] {
        var state = StoreState()
        for line in try JournalThreeWayMerge.read(bytes, name: "merged") {
            #expect(state.apply(line.transaction).isEmpty, "transaction \(line.transaction.sequence) applies cleanly")
        }
        var records: [Int64: RecordValues] = [:]
        state.forEachRecord { id, _, values in records[id] = values }
        return records
    }

    @Test func mergingEitherWayRoundGivesTheSameBytes() throws {
        let (ours, theirs) = Self.sides()
        let base = try Self.file([Self.base])
        let forward = try JournalThreeWayMerge.merge(base: base, ours: Self.file([Self.base] + ours), theirs: Self.file([Self.base] + theirs))
        let backward = try JournalThreeWayMerge.merge(base: base, ours: Self.file([Self.base] + theirs), theirs: Self.file([Self.base] + ours))
        #expect(forward.bytes == backward.bytes)
        #expect(Array(forward.bytes.prefix(try Self.file([Self.base]).count)) == base, "the base's lines keep their bytes")
        let sequences = try JournalThreeWayMerge.read(forward.bytes, name: "merged").map(\.transaction.sequence)
        #expect(sequences == [1, 2, 3, 4, 5])
        let order = try JournalThreeWayMerge.read(forward.bytes, name: "merged").map(\.transaction.transactionID)
        #expect(order == ["base", "a1", "b1", "a2", "b2"], "by commit time")
    }

    @Test func theLaterWriteWinsAndTheOtherIsRecorded() throws {
        let (ours, theirs) = Self.sides()
        let result = try JournalThreeWayMerge.merge(
            base: Self.file([Self.base]), ours: Self.file([Self.base] + ours), theirs: Self.file([Self.base] + theirs))
        let records = try Self.replay(result.bytes)
        #expect(records[1]?["title"] == .string("one (b)") && records[1]?["pinned"] == .bool(true))
        #expect(records[2] == nil, "the delete stands")
        #expect(records[Self.blockA] != nil && records[Self.blockB] != nil)
        let conflicts = Set(result.conflicts)
        #expect(
            conflicts == [
                MergeConflict(entity: "Note", id: 1, member: "title", kept: .string("one (b)"), lost: .string("one (a)"), lostTransaction: "a1"),
                MergeConflict(entity: "Note", id: 2, member: "title", kept: nil, lost: .string("two (a)"), lostTransaction: "a2"),
            ])
        let lines = try JournalThreeWayMerge.read(result.bytes, name: "merged")
        #expect(lines.first { $0.transaction.transactionID == "b1" }?.transaction.conflicts.count == 1, "recorded on the winning line")
    }

    @Test func anUpdateAfterTheOtherSidesDeleteIsDroppedAndATransactionBothHoldIsKeptOnce() throws {
        let delete = Self.transaction(2, "del", at: 10, deleted: [DeletedRecord(entity: "Note", id: 2, tombstone: [:])], nextID: 3)
        let update = Self.transaction(2, "upd", at: 20, updated: [StoredRecord(entity: "Note", id: 2, values: ["title": .string("late")])], nextID: 3)
        let shared = Self.transaction(3, "shared", at: 30, updated: [StoredRecord(entity: "Note", id: 1, values: ["pinned": .bool(true)])], nextID: 3)
        var sharedOnTheirs = shared
        sharedOnTheirs.sequence = 3
        let result = try JournalThreeWayMerge.merge(
            base: Self.file([Self.base]), ours: Self.file([Self.base, delete, shared]), theirs: Self.file([Self.base, update, sharedOnTheirs]))
        let lines = try JournalThreeWayMerge.read(result.bytes, name: "merged")
        #expect(lines.map(\.transaction.transactionID) == ["base", "del", "upd", "shared"])
        #expect(lines[2].transaction.updated.isEmpty, "the update of a deleted record is dropped")
        #expect(try Self.replay(result.bytes)[2] == nil)
        #expect(result.conflicts == [MergeConflict(entity: "Note", id: 2, member: "title", kept: nil, lost: .string("late"), lostTransaction: "upd")])
    }

    @Test func badInputIsRefusedNamingTheSideAndLine() throws {
        let good = try Self.file([Self.base])
        var damaged = try Self.file([Self.base, Self.sides().ours[0]])
        damaged[damaged.count - 10] ^= 0x01
        let cases: [(ours: [UInt8], line: Int?, says: String)] = [
            (Array("hello\n".utf8), 1, "not a Folio journal line"),
            (good + Array("<<<<<<< HEAD\n".utf8), 2, "conflict marker"),
            (damaged, 2, "checksum"),
            (Array("\n".utf8), 1, "empty line"),
        ]
        for (ours, line, says) in cases {
            let refusal = #expect(throws: JournalThreeWayMerge.Refusal.self) {
                try JournalThreeWayMerge.merge(base: good, ours: ours, theirs: good)
            }
            #expect(refusal?.file == "ours" && refusal?.line == line && refusal?.message.contains(says) == true, "\(String(describing: refusal))")
        }
    }

    @Test func aSideThatCompactedOrInsertedTheSameIdentifierIsRefused() throws {
        let (ours, _) = Self.sides()
        let compacted = #expect(throws: JournalThreeWayMerge.Refusal.self) {
            try JournalThreeWayMerge.merge(base: Self.file([Self.base]), ours: Self.file([]), theirs: Self.file([Self.base] + ours))
        }
        #expect(compacted?.message.contains("compacted") == true && compacted?.file == "ours")
        let same = Self.transaction(
            2, "other", at: 5, inserted: [StoredRecord(entity: "Note", id: Self.blockA, values: [:])], nextID: Self.blockA + 1)
        let collision = #expect(throws: JournalThreeWayMerge.Refusal.self) {
            try JournalThreeWayMerge.merge(base: Self.file([Self.base]), ours: Self.file([Self.base] + ours), theirs: Self.file([Self.base, same]))
        }
        #expect(collision?.message.contains("identifier \(Self.blockA)") == true)
    }
}
