import Foundation
import Testing
@testable import FolioStorage

/// Journal and snapshot lines are written member by member for speed; they must stay byte for byte
/// what the general canonical writer gives for the same members.
@Suite("Line encoding")
struct LineEncodingTests {
    static let awkwardValues: [RecordValues] = [
        [:],
        ["name": .string("Tokyo"), "price": .double(1045.44), "count": .int(-3), "ok": .bool(true), "none": .null],
        ["nested": .object(["b": .array([.int(1), .string("\u{2028}\"\\")]), "a": .object([:])]), "Z": .string("upper first")],
        // Names whose String order and byte order differ: a decomposed "é" sorts with "é" for Swift.
        ["e\u{301}x": .int(1), "éa": .int(2), "f": .int(3)],
        ["日本": .string("東京"), "ascii": .string("\u{7F}\u{80}\u{9F}")],
    ]

    @Test(arguments: awkwardValues)
    func aSnapshotRecordLineIsTheCanonicalEncodingOfItsMembers(_ values: RecordValues) throws {
        var body: [UInt8] = []
        try SnapshotFile.encodeRecord(id: 42, values: values, with: CanonicalJSONWriter(), into: &body)
        let expected = try LineFraming.encode(["id": .int(42), "values": .object(values.dictionary)])
        #expect(LineFraming.frame(body: body) == expected)
    }

    @Test func aJournalLineIsTheCanonicalEncodingOfItsMembers() throws {
        let records = Self.awkwardValues.enumerated().map { StoredRecord(entity: "Trip", id: Int64($0.offset + 1), values: $0.element) }
        let variants = [
            JournalTransaction(
                sequence: 1, transactionID: "T1", timestamp: Date(timeIntervalSince1970: 1_700_000_000.123), author: nil,
                inserted: records, updated: [], deleted: [], nextID: 6),
            JournalTransaction(
                sequence: 9, transactionID: "T9", timestamp: Date(timeIntervalSince1970: 0), author: "importer \u{e9}",
                inserted: [], updated: records, deleted: [DeletedRecord(entity: "Trip", id: 3, tombstone: ["name": .string("x")])],
                schema: .object(["version": .string("1.0.0")]), nextID: 12),
            JournalTransaction(
                sequence: 10, transactionID: "T10", timestamp: Date(timeIntervalSince1970: 86_400), author: "",
                inserted: Array(records.prefix(2)), updated: Array(records.suffix(2)),
                deleted: [DeletedRecord(entity: "Other", id: 99)], nextID: 100),
            // Deletions: tombstones empty and not, with names out of byte order, entities needing escapes.
            JournalTransaction(
                sequence: 12, transactionID: "T12", timestamp: Date(timeIntervalSince1970: 86_402), author: nil,
                inserted: [], updated: [],
                deleted: [
                    DeletedRecord(entity: "Trip", id: 1),
                    DeletedRecord(entity: "Odd\"Name\u{1}", id: 2, tombstone: Self.awkwardValues[3].dictionary),
                    DeletedRecord(entity: "日本", id: (1 << 62) - 1, tombstone: Self.awkwardValues[2].dictionary),
                    DeletedRecord(entity: "Trip", id: 7, tombstone: ["z": .null, "a": .array([])]),
                ], nextID: 200),
            // Entities alternating within one list, one of them needing an escape.
            JournalTransaction(
                sequence: 11, transactionID: "T11", timestamp: Date(timeIntervalSince1970: 86_401), author: nil,
                inserted: records.enumerated().map { position, record in
                    var record = record
                    record.entity = ["Trip", "Stop", "Trip", "Odd\"Name", "Odd\"Name"][position % 5]
                    return record
                }, updated: [], deleted: [], nextID: 101),
        ]
        // A merged transaction: its conflicts and the folded transactions it did not see.
        var merged = variants[2]
        merged.conflicts = [MergeConflict(entity: "Trip", id: 1, member: "price", kept: nil, lost: .double(2), lostTransaction: "T4")]
        merged.folded = FoldedTransactions(sequences: 4...8, seen: false)
        for transaction in variants + [merged] {
            let line = try transaction.encodedLine()
            #expect(line == (try LineFraming.encode(transaction.jsonMembers())))
            let decoded = try line.dropLast().withUnsafeBufferPointer { try JournalTransaction(members: LineFraming.decode($0)) }
            #expect(decoded == transaction)
        }
    }

    @Test(arguments: [
        #"{"from":5,"seen":true,"through":3}"#, #"{"from":0,"seen":true,"through":3}"#, #"{"from":1,"seen":1,"through":3}"#,
        #"{"from":1,"through":3}"#, #"{"from":1,"seen":false,"through":3,"x":1}"#, #"[1,3]"#,
        #"{"from":1,"seen":false,"through":4611686018427387904}"#,
    ])
    func aFoldedMemberThatIsNotARangeOfSequencesIsRefused(_ folded: String) throws {
        var members: [String: JSONValue] = ["seq": .int(9), "id": .string("T9"), "time": .string("2026-01-31T12:00:00.000Z"), "nextID": .int(1)]
        members["folded"] = try JSONReader().parse(folded)
        let error = #expect(throws: StorageError.self) { try JournalTransaction(members: members) }
        #expect(error?.code == .malformedLine && error?.message.contains("\"folded\" must be") == true, "\(String(describing: error))")
    }

    /// A transaction with thousands of records has them written in runs on separate threads: the line
    /// is still the canonical encoding, and each noted span is its record's `"id":N,"values":{…}}`.
    @Test func aLargeTransactionWrittenInRunsIsTheCanonicalEncodingWithEachRecordSpanInPlace() throws {
        let count = 3 * ParallelRuns.minimumCount + 17
        let inserted = (0..<count).map { index in
            StoredRecord(
                entity: index % 700 < 350 ? "Trip" : "Stop", id: Int64(index + 1),
                values: Self.awkwardValues[index % Self.awkwardValues.count])
        }
        let updated = inserted.prefix(ParallelRuns.minimumCount + 5).map { record in
            var record = record
            record.id += Int64(count)
            return record
        }
        let transaction = JournalTransaction(
            sequence: 3, transactionID: "T3", timestamp: Date(timeIntervalSince1970: 1_700_000_000), author: "bulk",
            inserted: inserted, updated: Array(updated), deleted: [], nextID: Int64(3 * count))
        var line: [UInt8] = []
        var spans: InsertedRecordSpans? = nil
        try transaction.encodeLine(into: &line, spans: &spans)
        #expect(line == (try LineFraming.encode(transaction.jsonMembers())))
        let bounds = try #require(spans).bounds
        #expect(bounds.count == 2 * count)
        for (position, record) in inserted.enumerated() where position % 97 == 0 || position == count - 1 {
            var expected: [UInt8] = []
            try SnapshotFile.encodeRecord(id: record.id, values: record.values, with: CanonicalJSONWriter(), into: &expected)
            #expect(Array(line[Int(bounds[2 * position])..<Int(bounds[2 * position + 1])]) == Array(expected.dropFirst()))
        }
    }
}

@Suite("Line framing in place")
struct LineFramingInPlaceTests {
    @Test func appendingALineGivesTheSameBytesAsFramingABody() throws {
        let cases: [[String: JSONValue]] = [[:], ["a": .int(1)], ["id": .int(7), "values": .object(["x": .string("é\n")])]]
        for members in cases {
            var output: [UInt8] = Array("previous line\n".utf8)
            let body = try CanonicalJSONWriter().bytes(.object(members))
            LineFraming.appendLine(to: &output) { $0.append(contentsOf: body.dropFirst()) }
            #expect(output == Array("previous line\n".utf8) + (try LineFraming.encode(members)))
        }
    }

    @Test func aSnapshotFileIsItsHeaderAndOneCanonicalLinePerRecordInIdentifierOrder() throws {
        let records: [Int64: RecordValues] = [9: ["b": .int(2)], 3: [:], 5: ["a": .string("x")]]
        var expected = try LineFraming.encode(["snapshot": .int(1), "entity": .string("E"), "records": .int(3), "sequence": .int(4)])
        for id in [Int64(3), 5, 9] {
            expected += try LineFraming.encode(["id": .int(id), "values": .object(records[id]!.dictionary)])
        }
        #expect(try SnapshotFile.encode(entity: "E", sequence: 4, records: records) == expected)
    }
}
