import Foundation
import Testing
@testable import FolioStorage

/// The compaction mark: the first line of a compacted journal names the last transaction the snapshots hold.
@Suite("Compaction mark")
struct CompactionMarkTests {
    static func lines(_ url: URL) throws -> [JournalTransaction] {
        try JournalThreeWayMerge.read(readBytes(url.appending("journal.jsonl")), name: "journal").map(\.transaction)
    }

    @Test func aCompactedJournalStartsWithTheMarkOfItsLastTransaction() throws {
        try withTemporaryDirectory { url in
            let expected = try makeStore(at: url, transactions: 6, compactAfter: 4)
            let journal = try Self.lines(url)
            #expect(journal.map(\.sequence) == [4, 5, 6] && journal[0].isCompactionMark && !journal[1].isCompactionMark)
            #expect(journal[0].changedRecordCount == 0 && journal[0].nextID == 0)
            #expect(journal[0].historyFrom == 1, "the mark says history.jsonl keeps everything from the first transaction")
            let store = try Store.open(at: url)
            defer { store.close() }
            #expect(StoreContent(store) == expected)
            // History keeps transaction 4 with its changes, not the mark that repeats its sequence.
            #expect(try store.history(after: 3).first?.changedRecordCount ?? 0 > 0)
        }
    }

    @Test func theMarkSaysWhereTheRetainedHistoryStarts() throws {
        try withTemporaryDirectory { url in
            let store = try Store.open(
                at: url,
                configuration: StoreConfiguration(
                    compactionThreshold: nil, historyRetention: .init(maximumCount: 2)))
            for n in 1...5 { try store.write { try $0.insert(entity: "Trip", id: Int64(n), values: ["n": .int(Int64(n))]) } }
            try store.compact()
            #expect(try Self.lines(url).first?.historyFrom == 4, "transactions 4 and 5 are kept")
            store.close()
            let none = try Store.open(
                at: url,
                configuration: StoreConfiguration(
                    compactionThreshold: nil, historyRetention: .init(maximumCount: 0)))
            try none.write { try $0.insert(entity: "Trip", id: 6, values: [:]) }
            try none.compact()
            #expect(try Self.lines(url).first?.historyFrom == 7, "none kept: one past the mark")
            none.close()
        }
    }

    @Test func inAGitWorkTreeTheHistoryKeepsWhatACompactionFolds() throws {
        try withTemporaryDirectory { url in
            try FileManager.default.createDirectory(at: url.appending(".git"), withIntermediateDirectories: true)
            let storeURL = url.appending("Trips.folio")
            let store = try Store.open(
                at: storeURL,
                configuration: StoreConfiguration(
                    compactionThreshold: nil, historyRetention: .init(maximumCount: 1)))
            defer { store.close() }
            for n in 1...5 { try store.write { try $0.insert(entity: "Trip", id: Int64(n), values: [:]) } }
            try store.compact()
            #expect(try Self.lines(storeURL).first?.historyFrom == 1, "a git merge may need every transaction since the last compaction")
            for n in 6...7 { try store.write { try $0.insert(entity: "Trip", id: Int64(n), values: [:]) } }
            try store.compact()
            #expect(try Self.lines(storeURL).first?.historyFrom == 6, "older ones go as the policy says")
        }
    }

    @Test func aMarkPastTheManifestOrBelowTheFirstLineIsRefused() throws {
        try withTemporaryDirectory { url in
            _ = try makeStore(at: url, transactions: 6, compactAfter: 4)
            let path = url.appending("journal.jsonl")
            let original = try fileLinesOf(path)
            var past = try Self.lines(url)[0]
            past.sequence = 5
            try writeBytes(try past.encodedLine() + original.dropFirst(2).flatMap { $0 + [0x0A] }, to: path)
            try expectOpenFailure(url, code: .inconsistentStore, file: "journal.jsonl", line: 1)

            try writeBytes([original[1], original[0], original[2]].flatMap { $0 + [0x0A] }, to: path)
            try expectOpenFailure(url, code: .duplicateSequence, file: "journal.jsonl", line: 2)
        }
    }

    @Test func aMarkHoldingChangesIsNotATransaction() throws {
        var mark = JournalTransaction.compactionMark(
            for: JournalTransaction(
                sequence: 3, transactionID: "t", timestamp: Date(timeIntervalSince1970: 0), author: nil, inserted: [], updated: [], deleted: [],
                nextID: 1))
        mark.inserted = [StoredRecord(entity: "Note", id: 1, values: [:])]
        let line = try mark.encodedLine()
        #expect(throws: StorageError.self) {
            try Array(line.dropLast()).withUnsafeBufferPointer { try JournalTransaction(members: LineFraming.decode($0)) }
        }
    }

    func fileLinesOf(_ url: URL) throws -> [[UInt8]] {
        try readBytes(url).split(separator: 0x0A).map(Array.init)
    }
}
