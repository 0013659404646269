import Foundation
import Testing
@testable import FolioStorage

/// Opening with `defersLoadingRecords`: counts from the files' headers, records read on first use,
/// and every problem with the files reported as opening would have reported it.
@Suite("Deferred record loading")
struct DeferredLoadingTests {
    private var deferring: StoreConfiguration {
        var configuration = StoreConfiguration()
        configuration.defersLoadingRecords = true
        return configuration
    }

    /// A compacted store with a few transactions in its journal after the compaction.
    private func makeStore(_ url: URL) throws {
        let store = try Store.open(at: url)
        try writeSampleTransactions(store, count: 40, seed: 21)
        try store.compact()
        try writeSampleTransactions(store, count: 15, seed: 22)
        store.close()
    }

    private func counts(_ store: Store) -> [String: Int] {
        var counts: [String: Int] = [:]
        for entity in store.entityNames { counts[entity] = store.count(of: entity) }
        return counts
    }

    @Test func countsComeFromTheHeadersAndTheJournalAndRecordsAreReadOnFirstUse() throws {
        try withTemporaryDirectory { url in
            try makeStore(url)
            let eager = try Store.open(at: url, configuration: StoreConfiguration(readOnly: true))
            let expected = StoreContent(eager)
            let expectedCounts = counts(eager)
            eager.close()

            let store = try Store.open(at: url, configuration: deferring)
            #expect(!store.hasLoadedRecords)
            #expect(try store.recordCounts() == expectedCounts)
            #expect(store.lastSequence == expected.lastSequence)
            #expect(store.schema == expected.schema)
            #expect(!store.hasLoadedRecords)
            #expect(StoreContent(store) == expected)
            #expect(store.hasLoadedRecords)
            #expect(try store.recordCounts() == expectedCounts)
        }
    }

    @Test func aWriteReadsTheRecordsFirst() throws {
        try withTemporaryDirectory { url in
            try makeStore(url)
            let store = try Store.open(at: url, configuration: deferring)
            let before = try store.recordCounts()
            try store.write { tx in
                try tx.insert(entity: "Item", id: tx.allocateID(), values: ["title": .string("after a deferred open")])
            }
            #expect(store.hasLoadedRecords)
            #expect(store.count(of: "Item") == (before["Item"] ?? 0) + 1)
            store.close()
            #expect(counts(try Store.open(at: url, configuration: StoreConfiguration(readOnly: true)))["Item"] == (before["Item"] ?? 0) + 1)
        }
    }

    @Test func countsFollowWhatOtherStoresWriteAndCompactWithoutReadingRecords() throws {
        try withTemporaryDirectory { url in
            try makeStore(url)
            let reader = try Store.open(at: url, configuration: deferring)
            let before = try reader.recordCounts()
            let writer = try Store.open(at: url)
            try writer.write { tx in
                for _ in 0..<3 { try tx.insert(entity: "Item", id: tx.allocateID(), values: ["title": .string("new")]) }
            }
            #expect(try reader.recordCounts()["Item"] == (before["Item"] ?? 0) + 3)
            #expect(!reader.hasLoadedRecords)
            try writer.compact()
            #expect(try reader.recordCounts()["Item"] == (before["Item"] ?? 0) + 3)
            #expect(!reader.hasLoadedRecords)
            #expect(reader.lastSequence == writer.lastSequence)
        }
    }

    @Test func aSnapshotNotOfTheSizeTheManifestRecordedIsReadAtOpenAndItsDamageReported() throws {
        try withTemporaryDirectory { url in
            try makeStore(url)
            // Drop the last record line: every line is intact, but the header's count is now wrong.
            let snapshot = url.appending("snapshots/Item.jsonl")
            var bytes = try readBytes(snapshot)
            bytes.removeLast()
            let lastLineStart = try #require(bytes.lastIndex(of: 0x0A)) + 1
            try writeBytes(Array(bytes[..<lastLineStart]), to: snapshot)
            let before = try directoryContents(url)
            var eagerError: StorageError?
            do { _ = try Store.open(at: url) } catch let error as StorageError { eagerError = error }
            var deferredError: StorageError?
            do { _ = try Store.open(at: url, configuration: deferring) } catch let error as StorageError { deferredError = error }
            #expect(eagerError?.code == .inconsistentStore)
            #expect(deferredError?.code == eagerError?.code)
            #expect(deferredError?.file == snapshot.path)
            #expect(try directoryContents(url) == before)
        }
    }

    @Test func damageFoundWhenTheRecordsAreReadIsThrownByEveryCallThatNeedsThemAndNothingIsWritten() throws {
        try withTemporaryDirectory { url in
            try makeStore(url)
            // Flip one byte inside a record: same size, so only reading the line finds it.
            let snapshot = url.appending("snapshots/Item.jsonl")
            var bytes = try readBytes(snapshot)
            let secondLine = try #require(bytes.firstIndex(of: 0x0A)) + 1
            bytes[secondLine + 45] = bytes[secondLine + 45] == UInt8(ascii: "x") ? UInt8(ascii: "y") : UInt8(ascii: "x")
            try writeBytes(bytes, to: snapshot)
            let before = try directoryContents(url)

            let store = try Store.open(at: url, configuration: deferring)
            #expect(try store.recordCounts()["Item"] != nil)
            var loadError: StorageError?
            do { try store.loadRecords() } catch let error as StorageError { loadError = error }
            #expect(loadError?.code == .checksumMismatch)
            #expect(loadError?.file == snapshot.path)
            #expect(loadError?.line == 2)
            #expect(throws: StorageError.self) { try store.write { tx in _ = tx.allocateID() } }
            #expect(throws: StorageError.self) { try store.compact() }
            #expect(throws: StorageError.self) { try store.recordCounts() }
            #expect(store.records(of: "Item").isEmpty)
            #expect(try directoryContents(url) == before)
        }
    }

    @Test func aManifestWithoutSnapshotSizesIsLoadedAtOpen() throws {
        try withTemporaryDirectory { url in
            try makeStore(url)
            let manifestPath = url.appending("manifest.json")
            var manifest = try Manifest.decode(try readBytes(manifestPath), path: manifestPath.path)
            #expect(!manifest.snapshotBytes.isEmpty)
            manifest.snapshotBytes = [:]
            try writeBytes(try manifest.encoded(), to: manifestPath)
            let store = try Store.open(at: url, configuration: deferring)
            #expect(store.hasLoadedRecords)
        }
    }
}
