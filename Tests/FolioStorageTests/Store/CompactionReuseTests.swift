import Foundation
import Testing
@testable import FolioStorage

/// Compaction copies the lines of unchanged records and of already-written transactions instead of
/// encoding them again; the files must come out byte for byte as a full encode would write them, and a
/// damaged line on disk must never be copied.
@Suite("Compaction reuses lines already on disk")
struct CompactionReuseTests {
    private func items(_ range: ClosedRange<Int64>, prefix: String = "item") -> [Int64: RecordValues] {
        var records: [Int64: RecordValues] = [:]
        for id in range {
            records[id] = RecordValues(["title": .string("\(prefix) \(id) \"quoted\" \u{2028}"), "count": .int(id), "score": .double(Double(id) / 8)])
        }
        return records
    }

    @Test func aSnapshotRewrittenFromTheEarlierFileHasTheBytesOfAFullEncode() throws {
        try withTemporaryDirectory { url in
            let earlier = url.appending("Item.jsonl")
            var records = items(1...200)
            try writeBytes(try SnapshotFile.encode(entity: "Item", sequence: 4, records: records), to: earlier)
            // Since then: 3 updated, 2 deleted, 4 inserted (two between existing identifiers, two after).
            records[10] = RecordValues(["title": .string("changed")])
            records[11] = RecordValues(["title": .string("changed too"), "extra": .bool(true)])
            records[200] = RecordValues(["count": .int(-1)])
            records[1] = nil
            records[150] = nil
            let changed: Set<Int64> = [10, 11, 200, 1, 150, 205, 206, 1000, 1001]
            for id: Int64 in [205, 206, 1000, 1001] { records[id] = RecordValues(["title": .string("new \(id)")]) }

            let reused = try SnapshotFile.encode(
                entity: "Item", sequence: 9, records: records,
                reusing: .init(path: earlier.path, sequence: 4, changedIDs: changed), fileSystem: PosixFileSystem())
            let full = try SnapshotFile.encode(entity: "Item", sequence: 9, records: records)
            #expect(try #require(reused) == full)
        }
    }

    @Test func aSnapshotLargerThanOnePieceIsWrittenInPiecesWithTheSameBytes() throws {
        try withTemporaryDirectory { url in
            var records = items(1...3_000)
            let chunkSize = 16 << 10
            let full = try SnapshotFile.encode(entity: "Item", sequence: 3, records: records)
            #expect(full.count > 4 * chunkSize)
            var pieces: [[UInt8]] = []
            try SnapshotFile.write(entity: "Item", sequence: 3, records: EntityRecords(records), chunkSize: chunkSize) { pieces.append($0) }
            #expect(pieces.count > 4)
            #expect(pieces.dropLast().allSatisfy { $0.count >= chunkSize })
            #expect(pieces.flatMap { $0 } == full)

            // Reused, with changes on both sides of the piece boundaries.
            let earlier = url.appending("Item.jsonl")
            try writeBytes(full, to: earlier)
            var changed = Set<Int64>()
            for id in stride(from: Int64(7), through: 3_000, by: 97) {
                records[id] = RecordValues(["title": .string("changed \(id)")])
                changed.insert(id)
            }
            records[1_500] = nil
            changed.insert(1_500)
            var reusedPieces: [[UInt8]] = []
            let complete = try SnapshotFile.write(
                entity: "Item", sequence: 4, records: EntityRecords(records), reusing: .init(path: earlier.path, sequence: 3, changedIDs: changed),
                fileSystem: PosixFileSystem(), chunkSize: chunkSize
            ) { reusedPieces.append($0) }
            #expect(complete)
            #expect(reusedPieces.count > 4)
            #expect(reusedPieces.flatMap { $0 } == (try SnapshotFile.encode(entity: "Item", sequence: 4, records: records)))
        }
    }

    @Test func aFileProducedInPiecesThatFailsHalfWayLeavesTheOldFileAndNoTemporaryFile() throws {
        try withTemporaryDirectory { url in
            let path = url.appending("data.jsonl")
            try writeBytes(Array("old\n".utf8), to: path)
            struct Stop: Error {}
            #expect(throws: Stop.self) {
                try PosixFileSystem().replaceFile(at: path.path) { write in
                    try write(Array("new first half\n".utf8))
                    throw Stop()
                }
            }
            #expect(try readBytes(path) == Array("old\n".utf8))
            #expect(try FileManager.default.contentsOfDirectory(atPath: url.path) == ["data.jsonl"])
            try PosixFileSystem().replaceFile(at: path.path) { write in
                try write(Array("new ".utf8))
                try write(Array("content\n".utf8))
            }
            #expect(try readBytes(path) == Array("new content\n".utf8))
        }
    }

    @Test func anEarlierFileThatIsNotWhatTheStoreWroteIsNotReused() throws {
        try withTemporaryDirectory { url in
            let earlier = url.appending("Item.jsonl")
            let records = items(1...50)
            let bytes = try SnapshotFile.encode(entity: "Item", sequence: 4, records: records)
            try writeBytes(bytes, to: earlier)
            let fs = PosixFileSystem()
            func reuse(sequence: UInt64 = 4, changed: Set<Int64> = []) throws -> [UInt8]? {
                try SnapshotFile.encode(
                    entity: "Item", sequence: 5, records: records, reusing: .init(path: earlier.path, sequence: sequence, changedIDs: changed),
                    fileSystem: fs)
            }
            #expect(try reuse() != nil)
            // Another header sequence: the file is not the one the store expects.
            #expect(try reuse(sequence: 3) == nil)
            // A record in the file that is neither in memory nor changed.
            #expect(
                try SnapshotFile.encode(
                    entity: "Item", sequence: 5, records: items(1...49), reusing: .init(path: earlier.path, sequence: 4, changedIDs: []),
                    fileSystem: fs) == nil)
            // A damaged line (one byte flipped in a record's title).
            var damaged = bytes
            let position = try #require(damaged.indices.last { damaged[$0] == UInt8(ascii: "q") })
            damaged[position] = UInt8(ascii: "Q")
            try writeBytes(damaged, to: earlier)
            #expect(try reuse() == nil)
            // A torn last line.
            try writeBytes(Array(bytes.dropLast(5)), to: earlier)
            #expect(try reuse() == nil)
            // No file.
            try FileManager.default.removeItem(at: earlier)
            #expect(try reuse() == nil)
        }
    }

    @Test func compactionAfterChangesWritesTheSameFilesAsAFreshStoreWouldAndCopiesNoDamage() throws {
        try withTemporaryDirectory { url in
            let store = try Store.open(at: url)
            try writeSampleTransactions(store, count: 60, seed: 7)
            try store.compact()
            let committed = try writeSampleTransactions(store, count: 40, seed: 8)
            #expect(!committed.isEmpty)
            // Damage, after the store read it, a line of an unchanged record in the snapshot on disk: the
            // compaction must write that record from memory, not copy the damage.
            let snapshot = url.appending("snapshots/Item.jsonl")
            var bytes = try readBytes(snapshot)
            let secondLineStart = try #require(bytes.firstIndex(of: 0x0A)) + 1
            let flip = secondLineStart + 40
            bytes[flip] = bytes[flip] == UInt8(ascii: "x") ? UInt8(ascii: "y") : UInt8(ascii: "x")
            try writeBytes(bytes, to: snapshot)
            try store.compact()

            for entity in store.entityNames {
                var records: [Int64: RecordValues] = [:]
                for record in store.records(of: entity) { records[record.id] = record.values }
                let header = try readBytes(url.appending("snapshots/\(entity).jsonl")).split(separator: 0x0A)[0]
                let sequence = try Array(header).withUnsafeBufferPointer { try SnapshotFile.decodeHeader(LineFraming.decode($0)).sequence }
                #expect(
                    try readBytes(url.appending("snapshots/\(entity).jsonl"))
                        == SnapshotFile.encode(entity: entity, sequence: sequence, records: records))
            }
            let history = try store.history(after: store.oldestRetainedSequence - 1)
            #expect(try readBytes(url.appending("history.jsonl")) == history.flatMap { try $0.encodedLine() })
            store.close()
            let reopened = try Store.open(at: url)
            #expect(StoreContent(reopened) == StoreContent(try Store.open(at: url, configuration: StoreConfiguration(readOnly: true))))
            #expect(reopened.records(of: "Item").count == store.records(of: "Item").count)
        }
    }

    @Test func everyRetainedTransactionIsFoundOnDiskSoNoneIsEncodedAgain() throws {
        try withTemporaryDirectory { url in
            let store = try Store.open(at: url)
            let first = try writeSampleTransactions(store, count: 15, seed: 5)
            try store.compact()
            let second = try writeSampleTransactions(store, count: 10, seed: 6)
            let paths = try #require(store.paths)
            let stored = store.storedLines(paths, journalLimit: store.withReadState { $0.journalEnd })
            #expect(Set(stored.keys) == Set((first + second).map(\.sequence)))
            #expect(stored.values.filter(\.inJournal).count == second.count)
            let kept = try store.retainedHistory(try store.history(after: 0), stored: stored)
            #expect(kept.count == first.count + second.count)
            #expect(kept.allSatisfy { $0.encoded == nil && $0.stored != nil })
            let (bytes, damaged) = try store.historyFileBytes(kept, paths: paths)
            #expect(damaged.isEmpty)
            #expect(try bytes == (first + second).flatMap { try $0.encodedLine() })
        }
    }

    @Test func theStoreKnowsWhichRecordsChangedSinceEachSnapshotWasWritten() throws {
        try withTemporaryDirectory { url in
            let store = try Store.open(at: url, configuration: StoreConfiguration(historyRetention: .init(maximumCount: 5)))
            try writeSampleTransactions(store, count: 30, seed: 11)
            try store.compact()
            let paths = try #require(store.paths)
            let base = try #require(store.withReadState { $0.snapshotBases["Item"] })
            let later = try writeSampleTransactions(store, count: 12, seed: 12)
            var touched = Set<Int64>()
            for transaction in later {
                for record in transaction.inserted + transaction.updated where record.entity == "Item" { touched.insert(record.id) }
                for record in transaction.deleted where record.entity == "Item" { touched.insert(record.id) }
            }
            let retained = store.withReadState { $0.retained }
            let earlier = try #require(store.earlierSnapshot(of: "Item", at: base, through: store.lastSequence, paths: paths, transactions: retained))
            #expect(earlier.changedIDs == touched)
            #expect(earlier.sequence == base)
            // Transactions before the oldest retained one are not in memory: a file that old cannot be reused.
            #expect(store.oldestRetainedSequence > 1)
            #expect(store.earlierSnapshot(of: "Item", at: 0, through: store.lastSequence, paths: paths, transactions: retained) == nil)
        }
    }

    @Test func aDamagedHistoryLineIsEncodedAgainNotCopied() throws {
        try withTemporaryDirectory { url in
            let store = try Store.open(at: url)
            try writeSampleTransactions(store, count: 20, seed: 3)
            try store.compact()
            let history = url.appending("history.jsonl")
            let expected = try readBytes(history)
            // Flip one byte inside the third line's content.
            var damaged = expected
            let newlines = damaged.indices.filter { damaged[$0] == 0x0A }
            let position = newlines[1] + 30
            damaged[position] = damaged[position] == UInt8(ascii: "a") ? UInt8(ascii: "b") : UInt8(ascii: "a")
            try writeBytes(damaged, to: history)
            try store.compact()
            #expect(try readBytes(history) == expected)
        }
    }

    @Test func theSequenceOfAJournalLineIsReadFromItsTopLevelOnly() throws {
        let transaction = JournalTransaction(
            sequence: 77, transactionID: "T", timestamp: Date(timeIntervalSince1970: 0), author: "a \"seq\":5",
            inserted: [
                StoredRecord(
                    entity: "Item", id: 1,
                    values: RecordValues(["seq": .int(12), "nested": .object(["seq": .int(3)]), "text": .string("\\\"seq\":9")]))
            ],
            updated: [], deleted: [], schema: nil, nextID: 2)
        let line = try transaction.encodedLine().dropLast()
        #expect(Array(line).withUnsafeBufferPointer { JournalTransaction.sequence(inLine: $0) } == 77)
        // With `updated`, the last member is no longer `time`: the line is walked from the start.
        var withUpdate = transaction
        withUpdate.updated = [StoredRecord(entity: "Item", id: 9, values: RecordValues(["seq": .int(4), "time": .string("x")]))]
        withUpdate.sequence = 78
        let updateLine = try withUpdate.encodedLine().dropLast()
        #expect(updateLine.last == UInt8(ascii: "}") && updateLine.dropLast().last == UInt8(ascii: "]"))
        #expect(Array(updateLine).withUnsafeBufferPointer { JournalTransaction.sequence(inLine: $0) } == 78)
        let noSequence = Array(#"{"a":{"seq":1},"b":"seq"}"#.utf8)
        #expect(noSequence.withUnsafeBufferPointer { JournalTransaction.sequence(inLine: $0) } == nil)
    }
}
