import Foundation
import Testing

@testable import FolioStorage

/// Blame's partial reading of journal lines (``ByteSearch``, ``JSONSkim``, ``RecordLineFilter``),
/// compared with a naive search and with decoding whole lines.
@Suite("Record line reading")
struct RecordLineReadingTests {
    @Test(arguments: 1...40 as ClosedRange<UInt64>)
    func theSearchFindsTheFirstOccurrenceANaiveSearchFinds(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        // A small alphabet makes partial and whole matches frequent, at every offset of a 32-byte block.
        let alphabet = Array("ab\"i:1".utf8)
        let haystack = (0..<Int.random(in: 0...300, using: &random)).map { _ in alphabet.randomElement(using: &random)! }
        func word() -> [UInt8] { (0..<Int.random(in: 2...6, using: &random)).map { _ in alphabet.randomElement(using: &random)! } }
        let (first, second) = (word(), word())
        let start = Int.random(in: 0...max(0, haystack.count), using: &random)
        let search = ByteSearch(first, second)!
        let found = haystack.withUnsafeBufferPointer { search.firstMatch(in: $0, from: start) }
        func occurs(_ needle: [UInt8], at offset: Int) -> Bool {
            offset + needle.count <= haystack.count && Array(haystack[offset..<(offset + needle.count)]) == needle
        }
        let expected = (start..<max(start, haystack.count)).lazy.compactMap { offset -> (Int, Bool)? in
            if occurs(first, at: offset) { return (offset, true) }
            return occurs(second, at: offset) ? (offset, false) : nil
        }.first
        #expect(found?.offset == expected?.0 && found?.isFirst == expected?.1, "seed \(seed): \(String(decoding: haystack, as: UTF8.self))")
    }

    @Test func aNeedleShorterThanTwoBytesIsRefused() {
        #expect(ByteSearch([1], [1, 2]) == nil)
    }

    /// A transaction whose values hold what could mislead a skim: the record's `"id":N` inside strings,
    /// members named `id`, escapes, nested objects and arrays.
    static func trickyTransaction(seed: UInt64, target: Int64) -> JournalTransaction {
        var random = SeededGenerator(seed: seed)
        func value() -> JSONValue {
            switch Int.random(in: 0..<7, using: &random) {
            case 0: return .string("\"id\":\(target)} ] \\\" {")
            case 1: return .object(["id": .int(target), "deeper": .array([.object(["id": .int(target)])])])
            case 2: return .int(Int64.random(in: -5...5, using: &random))
            case 3: return .string("é\u{1}\n")
            case 4: return .array([.null, .bool(true), .double(1.5)])
            case 5: return .int(target)
            default: return .null
            }
        }
        func values() -> RecordValues {
            RecordValues(
                Dictionary(uniqueKeysWithValues: ["a", "id", "inserted"].prefix(Int.random(in: 0...3, using: &random)).map { ($0, value()) }))
        }
        var ids = Array(Set((0..<12).map { _ in Int64.random(in: max(1, target - 3)...(target + 3), using: &random) })).sorted().shuffled(
            using: &random)
        func take() -> [Int64] {
            let count = min(ids.count, Int.random(in: 0...4, using: &random))
            defer { ids.removeFirst(count) }
            return ids.prefix(count).sorted()
        }
        let inserted = take().map { StoredRecord(entity: "Item", id: $0, values: values()) }
        let updated = take().map { StoredRecord(entity: "Item", id: $0, values: values()) }
        let deleted = take().map { DeletedRecord(entity: "Item", id: $0) }
        return JournalTransaction(
            sequence: UInt64.random(in: 1...1_000, using: &random), transactionID: UUID().uuidString, timestamp: Date(timeIntervalSince1970: 1_000),
            author: Bool.random(using: &random) ? "a\"uthor" : nil, inserted: inserted, updated: updated, deleted: deleted,
            nextID: min(target + 10, 1 << 62))
    }

    @Test(arguments: 1...60 as ClosedRange<UInt64>)
    func aFilteredLineHoldsExactlyTheRecordsEntriesOfTheWholeLine(seed: UInt64) throws {
        let target: Int64 = [1, 7, 12_345, (1 << 62) - 4][Int(seed % 4)]
        let transaction = Self.trickyTransaction(seed: seed, target: target)
        var line = try transaction.encodedLine()
        line.removeLast()  // the newline
        try line.withUnsafeBufferPointer { bytes in
            let scanned = ScannedLine(bytes: bytes, number: 1, offset: 0, end: Int64(bytes.count))
            let whole = try JournalReader.decode(scanned, in: "journal.jsonl", reader: JSONReader())
            let filtered = try RecordLineFilter.transaction(of: scanned, keepingRecord: target, in: "journal.jsonl", reader: JSONReader())
            var expected = whole
            expected.inserted = whole.inserted.filter { $0.id == target }
            expected.updated = whole.updated.filter { $0.id == target }
            expected.deleted = whole.deleted.filter { $0.id == target }
            #expect(filtered == expected, "seed \(seed): \(String(decoding: line, as: UTF8.self))")
            #expect(try RecordLineFilter.sequence(of: scanned, in: nil, reader: JSONReader()) == whole.sequence, "seed \(seed)")
        }
    }

    @Test(arguments: 1...200 as ClosedRange<UInt64>)
    func aDamagedLineWithAValidChecksumGivesAnErrorOrAnAnswerButNeverTraps(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        var line = try Self.trickyTransaction(seed: seed, target: 7).encodedLine()
        line.removeLast()
        // Damage the body, then checksum it again, so that only the skim and the parser stand guard.
        var body = [UInt8(ascii: "{")] + line[LineFraming.prefixLength...]
        for _ in 0..<Int.random(in: 1...4, using: &random) {
            let index = Int.random(in: 0..<body.count, using: &random)
            switch Int.random(in: 0..<3, using: &random) {
            case 0: body[index] = Array("{}[]\",:\\7".utf8).randomElement(using: &random)!
            case 1: body.remove(at: index)
            default: body.removeSubrange(index...)
            }
            if body.isEmpty { body = [UInt8(ascii: "{")] }
        }
        var framed = LineFraming.frame(body: body)
        framed.removeLast()
        framed.withUnsafeBufferPointer { bytes in
            let scanned = ScannedLine(bytes: bytes, number: 3, offset: 10, end: Int64(bytes.count) + 10)
            do {
                _ = try RecordLineFilter.transaction(of: scanned, keepingRecord: 7, in: "history.jsonl", reader: JSONReader())
                _ = try RecordLineFilter.sequence(of: scanned, in: "history.jsonl", reader: JSONReader())
            } catch let error as StorageError {
                #expect(error.file == "history.jsonl" && error.line == 3, "seed \(seed): \(error)")
            } catch {
                Issue.record("seed \(seed): not a StorageError: \(error)")
            }
        }
    }
}
