import Foundation
import Testing
@testable import FolioStorage

/// Builds a store with `count` transactions, optionally compacted, and returns its directory.
func makeStore(at url: URL, transactions count: Int = 10, compactAfter: Int? = nil) throws -> StoreContent {
    let store = try Store.open(at: url)
    try writeSampleTransactions(store, count: compactAfter ?? count)
    if let compactAfter {
        try store.compact()
        try writeSampleTransactions(store, count: count - compactAfter, seed: 99)
    }
    defer { store.close() }
    return StoreContent(store)
}

/// Opens and expects a typed error; checks nothing on disk changed.
func expectOpenFailure(
    _ url: URL, code: StorageError.Code, file: String, line: Int?, configuration: StoreConfiguration = StoreConfiguration(),
    sourceLocation: SourceLocation = #_sourceLocation
) throws {
    let before = try directoryContents(url)
    do {
        _ = try Store.open(at: url, configuration: configuration)
        Issue.record("open succeeded; expected \(code)", sourceLocation: sourceLocation)
    } catch let error as StorageError {
        #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
        #expect(error.file?.hasSuffix(file) == true, "\(error)", sourceLocation: sourceLocation)
        if let line { #expect(error.line == line, "\(error)", sourceLocation: sourceLocation) }
        #expect(error.description.contains(file), sourceLocation: sourceLocation)
    }
    #expect(try directoryContents(url) == before, "a failed open modified files", sourceLocation: sourceLocation)
}

@Suite("Damaged and hostile files")
struct DamagedFileTests {
    @Test(arguments: ["torn", "whole line without newline", "NUL bytes", "random junk"])
    func aTornOrJunkTailIsIgnoredThenMovedAsideOnTheNextWrite(_ kind: String) throws {
        try withTemporaryDirectory { url in
            let content = try makeStore(at: url, transactions: 5)
            let journal = url.appending("journal.jsonl")
            var bytes = try readBytes(journal)
            let intact = bytes
            switch kind {
            case "torn":
                let line = try #require(String(decoding: bytes, as: UTF8.self).split(separator: "\n").last)
                bytes += Array(line.utf8.prefix(30))
            case "whole line without newline":
                let line = try #require(String(decoding: bytes, as: UTF8.self).split(separator: "\n").last)
                bytes += Array(line.utf8)
            case "NUL bytes":
                bytes += [UInt8](repeating: 0, count: 12)
            default:
                var random = SeededGenerator(seed: 5)
                bytes += (0..<300).map { _ in UInt8.random(in: 0x0B...0xFF, using: &random) }
            }
            try writeBytes(bytes, to: journal)
            let store = try Store.open(at: url)
            #expect(StoreContent(store) == content)
            #expect(store.warnings.count == 1)
            #expect(store.warnings.first?.contains("journal.jsonl:6") == true)
            #expect(try readBytes(journal) == bytes, "opening must not modify the file")
            try store.write { tx in try tx.insert(entity: "Item", id: tx.allocateID(), values: [:]) }
            store.close()
            let after = try readBytes(journal)
            #expect(Array(after.prefix(intact.count)) == intact)
            #expect(after.count > intact.count && after.last == 0x0A)
            #expect(FileManager.default.fileExists(atPath: url.appending("journal.jsonl.corrupt-tail").path))
            #expect(try Store.open(at: url).lastSequence == 6)
        }
    }

    @Test func aThreeLineJournalWithATornTailStillOpens() throws {
        try withTemporaryDirectory { url in
            _ = try makeStore(at: url, transactions: 3)
            let journal = url.appending("journal.jsonl")
            try writeBytes(try readBytes(journal) + Array(#"{"$crc":"0000"#.utf8), to: journal)
            #expect(try Store.open(at: url).lastSequence == 3)
        }
    }

    @Test func aTailLargerThanTheLimitRefusesToOpen() throws {
        try withTemporaryDirectory { url in
            _ = try makeStore(at: url, transactions: 3)
            let journal = url.appending("journal.jsonl")
            try writeBytes(try readBytes(journal) + [UInt8](repeating: 0x41, count: 5000), to: journal)
            var configuration = StoreConfiguration()
            configuration.maximumTornTailBytes = 4096
            try expectOpenFailure(url, code: .tailTooLarge, file: "journal.jsonl", line: 4, configuration: configuration)
        }
    }

    @Test func aFlippedByteInTheMiddleOfTheJournalNamesFileAndLine() throws {
        try withTemporaryDirectory { url in
            _ = try makeStore(at: url, transactions: 6)
            let journal = url.appending("journal.jsonl")
            var bytes = try readBytes(journal)
            let lineStarts = [0] + bytes.indices.filter { bytes[$0] == 0x0A }.map { $0 + 1 }
            // Flip a byte inside a value on line 3.
            let position = lineStarts[2] + 40
            bytes[position] ^= 0x01
            try writeBytes(bytes, to: journal)
            try expectOpenFailure(url, code: .checksumMismatch, file: "journal.jsonl", line: 3)
        }
    }

    @Test func everySingleByteFlipInTheJournalIsCaught() throws {
        try withTemporaryDirectory { url in
            _ = try makeStore(at: url, transactions: 3)
            let journal = url.appending("journal.jsonl")
            let original = try readBytes(journal)
            let lastNewline = try #require(original.lastIndex(of: 0x0A))
            var random = SeededGenerator(seed: 11)
            for _ in 0..<60 {
                var bytes = original
                let position = Int.random(in: 0..<lastNewline, using: &random)
                bytes[position] ^= UInt8(1 << Int.random(in: 0..<8, using: &random))
                try writeBytes(bytes, to: journal)
                #expect(throws: StorageError.self, "flip at \(position) not caught") { try Store.open(at: url).close() }
            }
        }
    }

    @Test func anUnparseableSnapshotLineNamesFileAndLine() throws {
        try withTemporaryDirectory { url in
            _ = try makeStore(at: url, transactions: 12, compactAfter: 12)
            let snapshot = url.appending("snapshots/Item.jsonl")
            var lines = String(decoding: try readBytes(snapshot), as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).map(
                String.init)
            lines[2] = ##"{"$crc":"12345678","id":2,"values":{"#"##
            try writeBytes(Array(lines.joined(separator: "\n").utf8), to: snapshot)
            try expectOpenFailure(url, code: .checksumMismatch, file: "snapshots/Item.jsonl", line: 3)
        }
    }

    @Test(arguments: ["journal.jsonl", "snapshots/Item.jsonl"])
    func mergeConflictMarkersAreAHardErrorNamingTheLine(_ file: String) throws {
        try withTemporaryDirectory { url in
            _ = try makeStore(at: url, transactions: 12, compactAfter: 8)
            let target = url.appending(file)
            var lines = String(decoding: try readBytes(target), as: UTF8.self).split(separator: "\n").map(String.init)
            lines.insert("<<<<<<< HEAD", at: 1)
            lines.insert("=======", at: 3)
            lines.insert(">>>>>>> other", at: 5)
            try writeBytes(Array((lines.joined(separator: "\n") + "\n").utf8), to: target)
            try expectOpenFailure(url, code: .mergeConflict, file: file, line: 2)
        }
    }

    @Test func aDuplicatedSequenceNumberIsAnError() throws {
        try withTemporaryDirectory { url in
            _ = try makeStore(at: url, transactions: 4)
            let journal = url.appending("journal.jsonl")
            let lines = String(decoding: try readBytes(journal), as: UTF8.self).split(separator: "\n").map(String.init)
            let merged = [lines[0], lines[1], lines[1], lines[2], lines[3]]
            try writeBytes(Array((merged.joined(separator: "\n") + "\n").utf8), to: journal)
            try expectOpenFailure(url, code: .duplicateSequence, file: "journal.jsonl", line: 3)
        }
    }

    @Test func aMissingSequenceNumberIsAnError() throws {
        try withTemporaryDirectory { url in
            _ = try makeStore(at: url, transactions: 4)
            let journal = url.appending("journal.jsonl")
            var lines = String(decoding: try readBytes(journal), as: UTF8.self).split(separator: "\n").map(String.init)
            lines.remove(at: 1)
            try writeBytes(Array((lines.joined(separator: "\n") + "\n").utf8), to: journal)
            try expectOpenFailure(url, code: .missingSequence, file: "journal.jsonl", line: 2)
        }
    }

    @Test func aJournalStartingAfterTheSnapshotsIsMissingTransactions() throws {
        try withTemporaryDirectory { url in
            _ = try makeStore(at: url, transactions: 6, compactAfter: 3)
            let journal = url.appending("journal.jsonl")
            let lines = String(decoding: try readBytes(journal), as: UTF8.self).split(separator: "\n").map(String.init)
            // Without the compaction mark and transaction 4, the journal starts at 5.
            try writeBytes(Array((lines.dropFirst(2).joined(separator: "\n") + "\n").utf8), to: journal)
            try expectOpenFailure(url, code: .missingSequence, file: "journal.jsonl", line: 1)
        }
    }

    @Test func aNewerFormatVersionIsRefused() throws {
        try withTemporaryDirectory { url in
            _ = try makeStore(at: url, transactions: 2)
            try writeBytes(
                Array(#"{"$crc":"00000000","format":"folio-store","nextID":1,"sequence":0,"version":2}"#.utf8) + [0x0A],
                to: url.appending("manifest.json"))
            try expectOpenFailure(url, code: .newerFormatVersion, file: "manifest.json", line: 1)
        }
    }

    @Test func anIdentifierInTwoEntitiesSnapshotsIsRefusedNamingFileLineAndOwner() throws {
        try withTemporaryDirectory { url in
            let store = try Store.open(at: url)
            try store.write { tx in
                try tx.insert(entity: "Item", id: 1, values: ["title": .string("first")])
                try tx.insert(entity: "Tag", id: 2, values: ["title": .string("second")])
            }
            try store.compact()
            store.close()
            // Tag's snapshot claims number 1, which Item's holds: a hand edit or a bad merge.
            let tags = try SnapshotFile.encode(entity: "Tag", sequence: 1, records: [1: ["title": .string("second")]])
            try writeBytes(tags, to: url.appending("snapshots/Tag.jsonl"))
            try expectOpenFailure(url, code: .inconsistentStore, file: "snapshots/Tag.jsonl", line: 2)
            do {
                _ = try Store.open(at: url)
            } catch let error as StorageError {
                #expect(error.description.contains("identifier 1 is also used by entity Item"), "\(error)")
            }
            // Verification, which goes on past problems, reports it too.
            let verification = StoreVerifier.verify(at: url)
            #expect(verification.problems.contains { $0.code == .inconsistentStore && $0.line == 2 })
        }
    }

    @Test func anUnknownEntityIsRefusedWithFileAndLine() throws {
        try withTemporaryDirectory { url in
            _ = try makeStore(at: url, transactions: 6)
            try expectOpenFailure(
                url, code: .unknownEntity, file: "journal.jsonl", line: 1, configuration: StoreConfiguration(knownEntities: ["Item"]))
            _ = try makeStore(at: url.appending("compacted"), transactions: 6, compactAfter: 6)
            try expectOpenFailure(
                url.appending("compacted"), code: .unknownEntity, file: "snapshots/Tag.jsonl", line: 1,
                configuration: StoreConfiguration(knownEntities: ["Item"]))
        }
    }

    @Test func aMissingManifestBesideStoreFilesIsAnError() throws {
        try withTemporaryDirectory { url in
            _ = try makeStore(at: url, transactions: 2)
            try FileManager.default.removeItem(at: url.appending("manifest.json"))
            try expectOpenFailure(url, code: .missingManifest, file: "manifest.json", line: nil)
        }
    }

    @Test func aSnapshotTruncatedAtALineBoundaryIsCaughtByItsRecordCount() throws {
        try withTemporaryDirectory { url in
            _ = try makeStore(at: url, transactions: 12, compactAfter: 12)
            let snapshot = url.appending("snapshots/Item.jsonl")
            let lines = String(decoding: try readBytes(snapshot), as: UTF8.self).split(separator: "\n").map(String.init)
            try writeBytes(Array((lines.dropLast().joined(separator: "\n") + "\n").utf8), to: snapshot)
            try expectOpenFailure(url, code: .inconsistentStore, file: "snapshots/Item.jsonl", line: 1)
        }
    }

    @Test func aJournalConvertedToCRLFLoadsIdentically() throws {
        try withTemporaryDirectory { url in
            let content = try makeStore(at: url, transactions: 12, compactAfter: 6)
            for file in ["journal.jsonl", "snapshots/Item.jsonl", "history.jsonl", "manifest.json"] {
                let target = url.appending(file)
                let text = String(decoding: try readBytes(target), as: UTF8.self)
                try writeBytes(Array(text.replacingOccurrences(of: "\n", with: "\r\n").utf8), to: target)
            }
            #expect(StoreContent(try Store.open(at: url)) == content)
        }
    }

    @Test func identifiersOutOfRangeAreRefusedInFilesAndWrites() throws {
        try withTemporaryDirectory { url in
            _ = try makeStore(at: url, transactions: 2)
            let line = try LineFraming.encode([
                "seq": .int(3), "id": .string("x"), "time": .string("2026-01-01T00:00:00.000Z"), "nextID": .int(.max),
            ])
            let journal = url.appending("journal.jsonl")
            try writeBytes(try readBytes(journal) + line, to: journal)
            try expectOpenFailure(url, code: .malformedLine, file: "journal.jsonl", line: 3)
        }
        let store = Store.inMemory()
        #expect(throws: StorageError.self) { try store.write { tx in try tx.insert(entity: "Item", id: .max, values: [:]) } }
        #expect(throws: StorageError.self) { try store.write { tx in try tx.insert(entity: "Item", id: -1, values: [:]) } }
    }

    @Test func errorsCanBeCaughtByCode() throws {
        try withTemporaryDirectory { url in
            _ = try makeStore(at: url, transactions: 2)
            try writeBytes(Array("<<<<<<< HEAD\n".utf8), to: url.appending("journal.jsonl"))
            do {
                _ = try Store.open(at: url)
                Issue.record("opened a conflicted journal")
            } catch StorageError.Code.mergeConflict {
                // Expected.
            } catch {
                Issue.record("unexpected \(error)")
            }
        }
    }

    @Test func aFreshEmptyDirectoryOpensAsANewStore() throws {
        try withTemporaryDirectory { url in
            let store = try Store.open(at: url.appending("new/nested"))
            #expect(store.lastSequence == 0)
            #expect(FileManager.default.fileExists(atPath: url.appending("new/nested/manifest.json").path))
        }
    }
}
