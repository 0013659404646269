import Foundation
import Testing
@testable import FolioStorage

/// A directory on a file system that lets a sparse file claim `Int64.max` bytes (Linux's tmpfs does),
/// or nil where none does: sizes are the one number the file system, not a file's bytes, reports.
func sparseCapableDirectory() -> URL? {
    let base = URL(fileURLWithPath: "/dev/shm")
    guard FileManager.default.isWritableFile(atPath: base.path) else { return nil }
    let probe = base.appendingPathComponent("folio-sparse-probe-\(UUID().uuidString)")
    guard FileManager.default.createFile(atPath: probe.path, contents: nil) else { return nil }
    defer { try? FileManager.default.removeItem(at: probe) }
    return (try? makeSparse(probe, size: .max)) != nil ? base : nil
}

/// Extends (or creates) `url` to `size` bytes without writing them.
func makeSparse(_ url: URL, size: Int64) throws {
    if !FileManager.default.fileExists(atPath: url.path) { _ = FileManager.default.createFile(atPath: url.path, contents: nil) }
    let handle = try FileHandle(forWritingTo: url)
    defer { try? handle.close() }
    try handle.truncate(atOffset: UInt64(size))
}

/// Numbers in store files at the ends of their types (offsets, sequence numbers, sizes): each is a typed
/// error or a defined result, never a trap, and never a loop or an allocation sized by the number.
@Suite("Extreme numbers read from a store's files", .timeLimit(.minutes(5)))
struct ExtremeFileValueTests {
    static let sparseBase = sparseCapableDirectory()

    /// Postings whose offsets and lengths are at the ends of their types: the read-ahead advice of
    /// several postings is computed before any is checked.
    @Test func postingsAtTheEndsOfTheirTypesAreATypedErrorNotATrap() throws {
        try withTemporaryDirectory { directory in
            let fixture = try SnapshotCacheFixture.make(at: directory)
            let cache = try fixture.open().get()
            let forged = [
                SnapshotCachePosting(id: 1, offset: .min, length: 10), SnapshotCachePosting(id: 2, offset: .min, length: .max),
                SnapshotCachePosting(id: .min, offset: .max, length: .max), SnapshotCachePosting(id: .max, offset: -1, length: .min),
            ]
            for pair in [[forged[0], forged[1]], [forged[2], forged[3]], [forged[1], forged[2]]] {
                #expect { _ = try cache.readRecords(pair) } throws: { error in
                    (error as? StorageError)?.code == .malformedLine && (error as? StorageError)?.file == fixture.cache
                }
            }
            #expect(SnapshotCache.readAheadRange(of: forged[1]) == (0, .max))
            #expect(SnapshotCache.readAheadRange(of: SnapshotCachePosting(id: 1, offset: 40, length: 30)) == (39, 32))
        }
    }

    /// The same, with the offsets written into the cache file and every checksum over them made right.
    @Test func postingOffsetsOfInt64MinInACacheFileAreATypedError() throws {
        try withTemporaryDirectory { directory in
            let fixture = try SnapshotCacheFixture.make(at: directory)
            var bytes = try fixture.cacheBytes()
            let headerLength = Int(LittleEndianReader.u32(bytes, at: 12))
            var header = try SnapshotCacheHeader.decode(Array(bytes[0..<headerLength]))
            #expect(header.members[0].name == "destination")
            let directoryStart = Int(header.members[0].directoryOffset)
            let directoryEnd = directoryStart + Int(header.members[0].directoryLength)
            // The first key's postings: every offset becomes Int64.min.
            let postingsStart = Int(LittleEndianReader.u64(bytes, at: directoryStart + 16))
            let postingsCount = Int(LittleEndianReader.u64(bytes, at: directoryStart + 24))
            #expect(postingsCount > 1)
            for index in 0..<postingsCount {
                SnapshotCacheRegions.store(UInt64(1) << 63, in: &bytes, at: postingsStart + index * SnapshotCacheFile.postingLength + 8)
            }
            let postingsEnd = postingsStart + postingsCount * SnapshotCacheFile.postingLength
            SnapshotCacheRegions.store(CRC32.checksum(Array(bytes[postingsStart..<postingsEnd])), in: &bytes, at: directoryStart + 12)
            header.members[0].directoryChecksum = CRC32.checksum(Array(bytes[directoryStart..<directoryEnd]))
            bytes.replaceSubrange(0..<headerLength, with: header.encoded())
            try fixture.writeCache(bytes)

            let cache = try fixture.open().get()
            let keyLength = Int(LittleEndianReader.u32(bytes, at: directoryStart + 8))
            let keyStart = directoryStart + Int(header.members[0].keyCount) * SnapshotCacheFile.directoryEntryLength
            let key = try JSONReader().parse(Array(bytes[keyStart..<(keyStart + keyLength)]))
            let postings = try #require(try cache.lookup(member: "destination", key: key))
            #expect(postings.count == postingsCount && postings.allSatisfy { $0.offset == .min })
            #expect { _ = try cache.readRecords(postings) } throws: { error in
                (error as? StorageError)?.code == .malformedLine && "\(error)".contains("-9223372036854775808")
            }
        }
    }

    /// A journal whose line after a damaged one jumps to the largest sequence number: repair moves the
    /// damaged line and leaves the gap it cannot explain, instead of writing 2^62 empty transactions.
    @Test func repairLeavesAGapWiderThanTheMovedLinesForVerificationToReport() throws {
        try withTemporaryDirectory { directory in
            let store = try Store.open(at: directory, configuration: StoreConfiguration(compactionThreshold: nil))
            try writeSampleTransactions(store, count: 2)
            store.close()
            let journal = directory.appending("journal.jsonl")
            var lines = try readBytes(journal).split(separator: 0x0A).map(Array.init)
            #expect(lines.count == 2)
            var members = try lines[1].withUnsafeBufferPointer { try LineFraming.decode($0) }
            members["seq"] = .int(Int64.max >> 1)
            members["id"] = .string(UUID().uuidString)
            lines.append(Array(try LineFraming.encode(members).dropLast()))
            lines[1][lines[1].count / 2] ^= 0x01
            try writeBytes(lines.flatMap { $0 + [0x0A] }, to: journal)

            let report = try StoreRepair.repair(at: directory, options: RepairOptions(moveDamagedLines: true))
            #expect(report.actions.contains { $0.hasPrefix("moved line 2 of") })
            #expect(report.actions.contains { $0.contains("left transactions 2…4611686018427387902") }, "\(report.actions)")
            #expect(!report.actions.contains { $0.contains("empty transaction") })
            #expect(report.remainingProblems.contains { $0.code == .missingSequence }, "\(report.remainingProblems)")
            #expect(try readBytes(journal).split(separator: 0x0A).count == 2)
        }
    }

    /// Sparse files that claim `Int64.max` bytes: the sizes the store adds up are held at `Int64.max`.
    @Test(.enabled(if: sparseBase != nil, "needs a file system that holds a sparse file of Int64.max bytes (tmpfs)"))
    func sizesOfSparseFilesAddUpToInt64MaxWithoutATrap() throws {
        let directory = try #require(Self.sparseBase).appendingPathComponent("folio-sparse-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        var configuration = StoreConfiguration(compactionThreshold: 1)
        configuration.compactsInBackground = false
        let store = try Store.open(at: directory, configuration: configuration)
        defer { store.close() }
        try store.write(author: "tests") { tx in
            let one = try tx.putBlob(Data("one".utf8)), two = try tx.putBlob(Data("two".utf8))
            try tx.insert(entity: "Item", id: tx.allocateID(), values: ["n": .int(1), "blob": BlobStore.reference(one)])
            try tx.insert(entity: "Tag", id: tx.allocateID(), values: ["n": .int(2), "blob": BlobStore.reference(two)])
        }
        try store.compact()
        let paths = StorePaths(directory: directory.path)
        for entity in ["Item", "Tag"] { try makeSparse(URL(fileURLWithPath: paths.snapshot(entity)), size: .max) }
        let blobs = try FileManager.default.subpathsOfDirectory(atPath: paths.blobs).filter { $0.count > 60 }
        #expect(blobs.count == 2)
        for blob in blobs { try makeSparse(URL(fileURLWithPath: paths.blobs).appendingPathComponent(blob), size: .max) }

        let statistics = try store.statistics()
        #expect(statistics.fileSizes["blobs"] == .max)
        #expect(statistics.fileSizes["snapshots/Item.jsonl"] == .max)
        #expect(!statistics.isCompactionDue, "the journal is never as large as snapshots of Int64.max bytes")
        #expect(store.snapshotBytes(paths) == .max)
        // A write past the threshold asks whether a compaction is due, and goes on.
        try store.write(author: "tests") { tx in try tx.insert(entity: "Item", id: tx.allocateID(), values: ["n": .int(3)]) }
        #expect(store.records(of: "Item").count == 2)
    }

    @Test func saturatingSumsHoldAtTheEndsOfInt64() {
        #expect([Int64.max, 1].saturatingSum() == .max)
        #expect([Int64.max, .max, .min].saturatingSum() == -1)
        #expect([Int64.min, -1].saturatingSum() == .min)
        #expect([Int64.max, 1, -5].saturatingSum() == .max - 5)
        #expect([Int64]().saturatingSum() == 0)
        #expect([1, 2, 3].saturatingSum() == 6)
    }
}
