import Foundation
import Testing
@_spi(FolioEngine) @testable import FolioStorage

/// A compaction copies the records inserted since the last one out of their journal lines instead of
/// encoding them again. The snapshot must come out byte for byte as encoding would write it, and a
/// record whose journal line is damaged, or that changed after its insert, must be encoded from memory.
@Suite("Compaction copies inserted records from the journal")
struct JournalRecordCopiesTests {
    /// The copier a compaction of `store` at this moment would use.
    private func copies(of store: Store) throws -> JournalRecordCopies {
        let paths = try #require(store.paths)
        let (transactions, spans, end) = store.withReadState { ($0.retained, $0.insertedSpans, $0.journalEnd) }
        return JournalRecordCopies(
            transactions: transactions, spans: spans, storedLines: store.storedLines(paths, journalLimit: end),
            fileSystem: PosixFileSystem(), journalPath: paths.journal)
    }

    /// Each record's line as the copier makes it, or nil where it does not copy; and the encoded line.
    private func lines(_ store: Store, _ copier: JournalRecordCopies) throws -> [(id: Int64, copied: [UInt8]?, encoded: [UInt8])] {
        try store.records(of: "Item").map { record in
            var copied: [UInt8] = []
            let didCopy = copier.appendLine(id: record.id, values: record.values, to: &copied)
            var encoded: [UInt8] = []
            try SnapshotFile.appendRecordLine(id: record.id, values: record.values, with: CanonicalJSONWriter(), to: &encoded)
            return (record.id, didCopy ? copied : nil, encoded)
        }
    }

    private func insertItems(_ store: Store, _ range: ClosedRange<Int>) throws -> [Int64] {
        var ids: [Int64] = []
        try store.write { tx in
            for n in range {
                let id = tx.allocateID()
                ids.append(id)
                try tx.insert(
                    entity: "Item", id: id,
                    values: [
                        "title": .string("item \(n) \"quoted\" \u{2028} é"), "count": .int(Int64(n)), "score": .double(Double(n) / 8),
                        "tags": .array([.string("a"), .null]), "place": .object(["rawValue": .string("I\(n)")]),
                    ])
            }
        }
        return ids
    }

    @Test func insertedRecordsAreCopiedWithTheBytesEncodingWouldGive() throws {
        try withTemporaryDirectory { url in
            let store = try Store.open(at: url)
            _ = try insertItems(store, 1...50)
            _ = try insertItems(store, 51...120)
            let copier = try copies(of: store)
            let made = try lines(store, copier)
            #expect(made.count == 120)
            #expect(made.allSatisfy { $0.copied != nil })
            #expect(made.allSatisfy { $0.copied == $0.encoded })
            #expect(copier.copiedCount == 120)

            // And the compaction that uses them writes the file a full encode would.
            try store.compact()
            var records: [Int64: RecordValues] = [:]
            for record in store.records(of: "Item") { records[record.id] = record.values }
            let header = try readBytes(url.appending("snapshots/Item.jsonl")).split(separator: 0x0A)[0]
            let sequence = try Array(header).withUnsafeBufferPointer { try SnapshotFile.decodeHeader(LineFraming.decode($0)).sequence }
            #expect(try readBytes(url.appending("snapshots/Item.jsonl")) == SnapshotFile.encode(entity: "Item", sequence: sequence, records: records))
            #expect(store.withReadState { $0.insertedSpans.isEmpty })
        }
    }

    @Test func aRecordChangedAfterItsInsertOrInsertedByAnotherProcessIsEncoded() throws {
        try withTemporaryDirectory { url in
            let store = try Store.open(at: url)
            let ids = try insertItems(store, 1...10)
            try store.write { tx in
                try tx.update(entity: "Item", id: ids[3], values: ["title": .string("changed")])
                try tx.delete(entity: "Item", id: ids[4])
            }
            // Another store on the same directory (as another process would) inserts more.
            let other = try Store.open(at: url)
            let theirs = try insertItems(other, 11...15)
            _ = try store.refresh()

            let made = try lines(store, try copies(of: store))
            #expect(made.count == 14)
            for line in made {
                let shouldCopy = ids.contains(line.id) && line.id != ids[3]
                #expect((line.copied != nil) == shouldCopy, "record \(line.id)")
                #expect(line.copied == nil || line.copied == line.encoded)
            }
            #expect(made.filter { theirs.contains($0.id) }.count == 5)
            other.close()
        }
    }

    @Test func recordsOfADamagedJournalLineAreEncodedFromMemoryNotCopied() throws {
        try withTemporaryDirectory { url in
            let store = try Store.open(at: url)
            let first = try insertItems(store, 1...20)
            let second = try insertItems(store, 21...40)
            // Damage the first line on disk after the store wrote it: one byte inside a record's title.
            let journal = url.appending("journal.jsonl")
            var bytes = try readBytes(journal)
            let firstLineEnd = try #require(bytes.firstIndex(of: 0x0A))
            let position = try #require(bytes[..<firstLineEnd].lastIndex(of: UInt8(ascii: "q")))
            bytes[position] = UInt8(ascii: "Q")
            try writeBytes(bytes, to: journal)

            let made = try lines(store, try copies(of: store))
            #expect(made.filter { first.contains($0.id) }.allSatisfy { $0.copied == nil })
            #expect(made.filter { second.contains($0.id) }.allSatisfy { $0.copied != nil && $0.copied == $0.encoded })

            // The compaction writes the records from memory: reopened, the store has the right values.
            let expected = StoreContent(store)
            try store.compact()
            store.close()
            #expect(StoreContent(try Store.open(at: url)) == expected)
        }
    }

    @Test func aStoreThatReloadsAfterAnotherProcessCompactedKeepsNoSpansOfLinesThatLeftTheJournal() throws {
        try withTemporaryDirectory { url in
            let store = try Store.open(at: url)
            _ = try insertItems(store, 1...30)
            #expect(store.withReadState { $0.insertedSpans.count } == 1)
            // Another store on the directory (as another process) compacts: the line leaves the journal.
            let other = try Store.open(at: url)
            try other.compact()
            _ = try store.refresh()
            #expect(store.withReadState { $0.insertedSpans.isEmpty })
            // Lines written after the reload are noted again.
            _ = try insertItems(store, 31...40)
            #expect(store.withReadState { $0.insertedSpans.count } == 1)
            other.close()
        }
    }
}
