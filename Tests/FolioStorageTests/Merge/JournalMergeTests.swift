import Foundation
import Testing
@testable import FolioStorage

/// The storage layer's resolution of a git merge of `journal.jsonl`, on typed transactions.
@Suite("Journal merge")
struct JournalMergeTests {
    /// Authors have books (to-many), books have an author; a `Novel` is a `Book`.
    static let schema: JSONValue = .object([
        "entities": .object([
            "Author": .object([
                "properties": .object([
                    "name": .object(["kind": .string("attribute"), "type": .string("String")]),
                    "books": .object(["kind": .string("relationship"), "destination": .string("Book"), "toMany": .bool(true)]),
                ])
            ]),
            "Book": .object([
                "properties": .object([
                    "title": .object(["kind": .string("attribute"), "type": .string("String")]),
                    "author": .object(["kind": .string("relationship"), "destination": .string("Author")]),
                ])
            ]),
            "Novel": .object([
                "superentity": .string("Book"),
                "properties": .object([
                    "genre": .object(["kind": .string("attribute"), "type": .string("String")])
                ]),
            ]),
        ])
    ])

    static func transaction(
        _ sequence: UInt64, _ id: String, inserted: [StoredRecord] = [], updated: [StoredRecord] = [],
        deleted: [DeletedRecord] = [], nextID: Int64
    ) -> JournalTransaction {
        JournalTransaction(
            sequence: sequence, transactionID: id, timestamp: Date(timeIntervalSince1970: 1_800_000_000 + Double(sequence)),
            author: nil, inserted: inserted, updated: updated, deleted: deleted, nextID: nextID)
    }

    /// The common transaction (Author 1), ours (Book 2 by Author 1), and theirs (Author 2 with Book 3).
    static let common = transaction(1, "common", inserted: [StoredRecord(entity: "Author", id: 1, values: ["name": .string("Le Guin")])], nextID: 2)
    static let ours = transaction(
        2, "ours", inserted: [StoredRecord(entity: "Book", id: 2, values: ["title": .string("The Dispossessed"), "author": .int(1)])], nextID: 3)
    static let theirs = transaction(
        2, "theirs",
        inserted: [
            StoredRecord(entity: "Author", id: 2, values: ["name": .string("Calvino"), "books": .array([.int(3)])]),
            StoredRecord(entity: "Book", id: 3, values: ["title": .string("Invisible Cities"), "author": .int(2)]),
        ], nextID: 4)

    static func lines(_ transactions: [JournalTransaction]) throws -> [[UInt8]] {
        try transactions.map { Array(try $0.encodedLine().dropLast()) }
    }

    @Test func aJournalInOrderNeedsNoMergeButMarkersOrARepeatedSequenceDo() throws {
        let inOrder = try Self.lines([Self.common, Self.ours])
        #expect(!ConflictedJournal.needsMerge(inOrder))
        #expect(ConflictedJournal.needsMerge(try Self.lines([Self.common, Self.ours, Self.theirs])))
        #expect(ConflictedJournal.needsMerge(inOrder + [Array("<<<<<<< HEAD".utf8)]))
    }

    @Test func theOtherSidesTransactionsAreRenumberedAfterOursWithFreshIdentifiers() throws {
        let theirUpdate = Self.transaction(
            3, "theirs-2", updated: [StoredRecord(entity: "Author", id: 1, values: ["books": .array([.int(3)])])], nextID: 4)
        let journal = ConflictedJournal(transactions: [Self.common, Self.ours, Self.theirs, theirUpdate])
        let result = try JournalMerge.merge(journal, base: JournalMergeBase(nextID: 1, schema: Self.schema))

        #expect(result.transactions.map(\.sequence) == [1, 2, 3, 4])
        #expect(result.transactions.map(\.transactionID) == ["common", "ours", "theirs", "theirs-2"])
        #expect(Array(result.transactions.prefix(2)) == [Self.common, Self.ours])
        let replayed = result.transactions[2]
        #expect(
            replayed.inserted == [
                StoredRecord(entity: "Author", id: 3, values: ["name": .string("Calvino"), "books": .array([.int(4)])]),
                StoredRecord(entity: "Book", id: 4, values: ["title": .string("Invisible Cities"), "author": .int(3)]),
            ])
        #expect(replayed.nextID == 5)
        #expect(result.transactions[3].updated == [StoredRecord(entity: "Author", id: 1, values: ["books": .array([.int(4)])])])
        #expect(result.transactions[3].nextID == 5)
        #expect(result.resolutions == [.replayed(original: 2...3, base: 1, renumbered: 3...4, newIdentifiers: 3...4)])
        #expect(
            result.resolutions.map(\.description) == [
                "replayed the 2 transactions of the other side (sequence 2–3 after 1) as 3–4, giving their 2 new records the identifiers 3–4"
            ])
    }

    @Test func deletesAndTombstonesOfReplayedTransactionsFollowTheNewIdentifiers() throws {
        let theirDelete = Self.transaction(
            3, "theirs-2",
            deleted: [
                DeletedRecord(entity: "Book", id: 3, tombstone: ["author": .int(2), "title": .string("Invisible Cities")])
            ], nextID: 4)
        let result = try JournalMerge.merge(
            ConflictedJournal(transactions: [Self.common, Self.ours, Self.theirs, theirDelete]),
            base: JournalMergeBase(nextID: 1, schema: Self.schema))
        #expect(
            result.transactions[3].deleted == [
                DeletedRecord(entity: "Book", id: 4, tombstone: ["author": .int(3), "title": .string("Invisible Cities")])
            ])
    }

    @Test func relationshipsInheritedFromASuperentityAreRewritten() throws {
        // `Novel` declares no relationship; its `author` is `Book`'s.
        let theirs = Self.transaction(
            2, "theirs",
            inserted: [
                StoredRecord(entity: "Novel", id: 2, values: ["title": .string("Cosmicomics"), "author": .int(3), "genre": .string("fable")]),
                StoredRecord(entity: "Author", id: 3, values: ["name": .string("Calvino"), "books": .array([.int(2)])]),
            ], nextID: 4)
        let result = try JournalMerge.merge(
            ConflictedJournal(transactions: [Self.common, Self.ours, theirs]), base: JournalMergeBase(nextID: 1, schema: Self.schema))
        let inserted = result.transactions[2].inserted
        #expect(inserted.map(\.id) == [3, 4])
        #expect(inserted.first { $0.entity == "Novel" }?.values["author"] == .int(4))
        #expect(inserted.first { $0.entity == "Author" }?.values["books"] == .array([.int(3)]))
    }

    @Test func aTransactionBothSidesHaveIsKeptOnce() throws {
        let journal = ConflictedJournal(transactions: [Self.common, Self.ours, Self.ours])
        let result = try JournalMerge.merge(journal, base: JournalMergeBase())
        #expect(result.transactions == [Self.common, Self.ours])
        #expect(result.resolutions == [.keptOneCopy(transactionID: "ours", line: 3)])
        #expect(result.resolutions.map(\.description) == ["kept one copy of transaction ours (line 3), which both sides had"])
    }

    @Test func conflictMarkersAreCountedAndTheAncestorSectionIsSetAside() throws {
        let lines =
            try Self.lines([Self.common])
            + [Array("<<<<<<< HEAD".utf8)] + (try Self.lines([Self.ours]))
            + [Array("||||||| base".utf8)] + (try Self.lines([Self.common]))
            + [Array("=======".utf8)] + (try Self.lines([Self.theirs])).map { $0 + [0x0D] }
            + [Array(">>>>>>> theirs".utf8)]
        let journal = try ConflictedJournal(lines: lines)
        #expect(journal.markerLineCount == 4)
        #expect(journal.ancestor == [Self.common])
        #expect(journal.entries.map(\.line) == [1, 3, 7])
        #expect(journal.entries.map(\.transaction) == [Self.common, Self.ours, Self.theirs])

        let result = try JournalMerge.merge(journal, base: JournalMergeBase(nextID: 1, schema: Self.schema))
        #expect(result.resolutions.first == .removedConflictMarkers(count: 4))
        #expect(result.resolutions.first?.description == "removed 4 git conflict marker lines")
        #expect(result.transactions.map(\.transactionID) == ["common", "ours", "theirs"])
    }

    @Test func aRunWithoutInsertsNeedsNoSchemaAndGetsNoNewIdentifiers() throws {
        let theirs = Self.transaction(
            2, "theirs", updated: [StoredRecord(entity: "Author", id: 1, values: ["name": .string("Ursula K. Le Guin")])], nextID: 2)
        let result = try JournalMerge.merge(ConflictedJournal(transactions: [Self.common, Self.ours, theirs]), base: JournalMergeBase())
        #expect(result.transactions.map(\.sequence) == [1, 2, 3])
        #expect(result.transactions[2].nextID == 3, "the counter does not go back to theirs")
        #expect(result.resolutions.map(\.description) == ["replayed the 1 transaction of the other side (sequence 2–2 after 1) as 3–3"])
    }

    @Test func renumberingRecordsWithoutASchemaIsRefused() throws {
        #expect(throws: JournalMergeFailure.noSchema) {
            try JournalMerge.merge(ConflictedJournal(transactions: [Self.common, Self.ours, Self.theirs]), base: JournalMergeBase())
        }
    }

    @Test func aSequenceThatSkipsAheadIsRefused() throws {
        let later = Self.transaction(4, "later", nextID: 3)
        #expect(throws: JournalMergeFailure.missingTransactions(sequence: 4, line: 3, after: 2)) {
            try JournalMerge.merge(ConflictedJournal(transactions: [Self.common, Self.ours, later]), base: JournalMergeBase())
        }
        #expect(
            JournalMergeFailure.missingTransactions(sequence: 4, line: 3, after: 2).description
                == "sequence 4 on line 3 follows 2: transactions are missing")
    }

    @Test func aDamagedLineIsNamedByItsLineNumber() throws {
        var lines = try Self.lines([Self.common, Self.ours])
        lines[1][lines[1].count - 3] ^= 0x01
        #expect {
            _ = try ConflictedJournal(lines: lines)
        } throws: { error in
            guard case .damagedLine(let line, _)? = error as? JournalMergeFailure else { return false }
            return line == 2
        }
        let noID = Array(try LineFraming.encode(["seq": .int(2)]).dropLast())
        #expect {
            _ = try ConflictedJournal(lines: try Self.lines([Self.common]) + [noID])
        } throws: { error in
            (error as? JournalMergeFailure) == .damagedLine(2, "no seq or id")
        }
    }

    @Test func outOfRangeNumbersFromACallerAreRefusedNotTrapped() throws {
        let zero = Self.transaction(0, "zero", nextID: 1)
        #expect(throws: JournalMergeFailure.self) {
            try JournalMerge.merge(ConflictedJournal(transactions: [zero, zero]), base: JournalMergeBase())
        }
        let exhausted = Self.transaction(2, "theirs", inserted: [StoredRecord(entity: "Author", id: 2, values: [:])], nextID: .max)
        #expect(throws: JournalMergeFailure.self) {
            try JournalMerge.merge(ConflictedJournal(transactions: [Self.common, exhausted, exhausted]), base: JournalMergeBase(schema: Self.schema))
        }
    }

    @Test func theMergedJournalReadsBackAsTheMergedTransactions() throws {
        let result = try JournalMerge.merge(
            ConflictedJournal(transactions: [Self.common, Self.ours, Self.theirs]), base: JournalMergeBase(nextID: 1, schema: Self.schema))
        let bytes = try result.journalBytes()
        #expect(bytes.last == 0x0A)
        let lines = bytes.split(separator: 0x0A).map(Array.init)
        #expect(!ConflictedJournal.needsMerge(lines))
        #expect(try ConflictedJournal(lines: lines).entries.map(\.transaction) == result.transactions)
    }

    @Test func theBaseIsReadFromTheManifest() throws {
        let base = JournalMergeBase(manifest: ["nextID": .int(41), "schema": .object(["value": Self.schema])])
        #expect(base == JournalMergeBase(nextID: 41, schema: Self.schema))
        #expect(JournalMergeBase(manifest: nil) == JournalMergeBase(nextID: 1, schema: nil))
        let line = Array(try LineFraming.encode(["nextID": .int(7)]).dropLast())
        #expect(JournalMergeBase(manifestLine: line).nextID == 7)
        #expect(JournalMergeBase(manifestLine: Array("not json".utf8)) == JournalMergeBase())
    }

    @Test func theOtherSidesInsertsFollowTheCounterOfTheTransactionTheyFollow() throws {
        // Theirs follows the common transaction (counter 2): its record 2 is new and is renumbered;
        // a record below that counter existed before the branches parted and keeps its identifier.
        let theirs = Self.transaction(
            2, "theirs",
            inserted: [
                StoredRecord(entity: "Author", id: 1, values: ["name": .string("again")]),
                StoredRecord(entity: "Author", id: 2, values: ["name": .string("Calvino")]),
            ], nextID: 3)
        let result = try JournalMerge.merge(
            ConflictedJournal(transactions: [Self.common, Self.ours, theirs]), base: JournalMergeBase(schema: Self.schema))
        #expect(result.transactions[2].inserted.map(\.id) == [1, 3])
        #expect(result.transactions[2].nextID == 4)
    }
}
