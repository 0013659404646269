import Foundation
import Testing
@testable import FolioStorage

/// The format is documented well enough for a short Python script to rebuild a store's state.
@Suite("Python reader (Tools/folio_read_store.py)")
struct PythonReaderTests {
    static let python: URL? = ["/usr/bin/python3", "/usr/local/bin/python3", "/opt/homebrew/bin/python3"]
        .map { URL(fileURLWithPath: $0) }.first { FileManager.default.isExecutableFile(atPath: $0.path) }

    static var script: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appending("Tools/folio_read_store.py")
    }

    func runScript(_ directory: URL) throws -> JSONValue {
        let process = Process()
        process.executableURL = Self.python
        process.arguments = [Self.script.path, directory.path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        return try JSONReader().parse([UInt8](data))
    }

    func engineState(_ store: Store) -> JSONValue {
        var records: [String: JSONValue] = [:]
        for entity in store.entityNames {
            records[entity] = .array(store.records(of: entity).map { .object(["id": .int($0.id), "values": .object($0.values.dictionary)]) })
        }
        return .object([
            "lastSequence": .int(Int64(store.lastSequence)), "nextID": .int(store.nextID), "schema": store.schema ?? .null,
            "records": .object(records),
        ])
    }

    @Test(.enabled(if: python != nil, "python3 is not installed"))
    func pythonRebuildsTheSameStateAsTheEngine() throws {
        try withTemporaryDirectory { url in
            let store = try Store.open(at: url)
            try writeSampleTransactions(store, count: 30)
            try store.write { tx in
                tx.setSchema(.object(["Item": .object(["title": .string("String")])]))
                try tx.insert(
                    entity: "Item", id: tx.allocateID(),
                    values: [
                        "text": .string("line\u{2028}sep\u{85}nel\r\n\"quoted\" é 😀 \u{0}"), "big": .int(.max), "small": .double(1e-7),
                        "huge": .double(1e300), "neg": .double(-0.5),
                    ])
            }
            #expect(try runScript(url) == engineState(store))
            try store.compact()
            #expect(try runScript(url) == engineState(store))
            try writeSampleTransactions(store, count: 10, seed: 77)
            #expect(try runScript(url) == engineState(store))
            // With a torn tail too.
            let journal = url.appending("journal.jsonl")
            try writeBytes(try readBytes(journal) + Array(#"{"$crc":"1234"#.utf8), to: journal)
            #expect(try runScript(url) == engineState(store))
        }
    }

    @Test(.enabled(if: python != nil, "python3 is not installed"))
    func pythonLetsAMergedLineThatDidNotSeeADeleteChangeNothing() throws {
        try withTemporaryDirectory { url in
            let store = try Store.open(at: url)
            var ids: [Int64] = []
            try store.write { tx in
                for title in ["kept", "deleted by the other side"] {
                    let id = tx.allocateID()
                    try tx.insert(entity: "Item", id: id, values: ["title": .string(title)])
                    ids.append(id)
                }
            }
            try store.write { try $0.delete(entity: "Item", id: ids[1], tombstone: [:]) }
            let last = store.lastSequence
            store.close()
            // What a merge writes: a line of the other side, which updated the record before it knew of the delete.
            var merged = JournalTransaction(
                sequence: last + 1, transactionID: UUID().uuidString, timestamp: Date(timeIntervalSince1970: 1_800_000_000), author: "b",
                inserted: [],
                updated: [
                    StoredRecord(entity: "Item", id: ids[0], values: ["title": .string("changed")]),
                    StoredRecord(entity: "Item", id: ids[1], values: ["title": .string("lost")]),
                ],
                deleted: [],
                nextID: ids[1] + 1)
            merged.folded = FoldedTransactions(sequences: last...last, seen: false)
            let journal = url.appending("journal.jsonl")
            try writeBytes(try readBytes(journal) + merged.encodedLine(), to: journal)
            let reopened = try Store.open(at: url)
            #expect(reopened.records(of: "Item").map(\.id) == [ids[0]])
            #expect(try runScript(url) == engineState(reopened))
        }
    }

    @Test(.enabled(if: python != nil, "python3 is not installed"))
    func pythonAppliesMigrationsAsTheEngineDoes() throws {
        try withTemporaryDirectory { url in
            let store = try Store.open(at: url)
            try writeSampleTransactions(store, count: 20)
            try store.compact()
            try writeSampleTransactions(store, count: 10, seed: 5)
            try store.write { tx in
                try tx.migrate(
                    RecordMigration(
                        entity: "Item", renamedMembers: ["title": "name", "count": "flag", "flag": "count"],
                        removedMembers: ["score"]))
                try tx.migrate(RecordMigration(entity: "Tag", removesEntity: true))
                try tx.insert(entity: "Item", id: tx.allocateID(), values: ["name": .string("after the migration")])
            }
            let migrated = engineState(store)
            #expect(migrated.objectValue?["records"]?.objectValue?["Tag"] == nil)
            #expect(migrated.objectValue?["records"]?.objectValue?["Item"]?.arrayValue?.first?.objectValue?["values"]?.objectValue?["name"] != nil)
            #expect(try runScript(url) == migrated)
            try writeSampleTransactions(store, count: 5, seed: 6)
            #expect(try runScript(url) == engineState(store))
            try store.compact()
            #expect(try runScript(url) == engineState(store))
        }
    }

    @Test(.enabled(if: python != nil, "python3 is not installed"))
    func pythonReplaysAMergeBasesJournalAsTheEngineDoes() throws {
        try withTemporaryDirectory { url in
            let merged = try BaseJournalReplayTests.makeMergedStore(in: url)
            let readOnly = try Store.open(at: merged, configuration: StoreConfiguration(readOnly: true))
            #expect(readOnly.record(id: 11) == nil, "the engine replayed the base's journal in memory")
            #expect(try runScript(merged) == engineState(readOnly))
            readOnly.close()
            let store = try Store.open(at: merged)
            #expect(try runScript(merged) == engineState(store))
            store.close()
        }
    }

    @Test(.enabled(if: python != nil, "python3 is not installed"))
    func pythonMendsAGitMergeOfTwoCompactedCopiesAsTheEngineDoes() throws {
        try withTemporaryDirectory { url in
            try CrossFileReconciliationTests.makeMergedStore(at: url)
            let readOnly = try Store.open(at: url, configuration: StoreConfiguration(readOnly: true))
            #expect(readOnly.record(id: 22) == nil, "the engine mended the records in memory")
            #expect(try runScript(url) == engineState(readOnly))
            readOnly.close()
            // Once committed, the mend is an ordinary journal line.
            let store = try Store.open(at: url)
            #expect(try runScript(url) == engineState(store))
            store.close()
        }
    }
}
