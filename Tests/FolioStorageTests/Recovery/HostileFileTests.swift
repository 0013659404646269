import Foundation
import Testing
@_spi(FolioEngine) @testable import FolioStorage

/// Store files from an untrusted source (git, another machine, a download), on real files: sparse
/// files, FIFOs and symbolic links. Each is refused with a typed error naming the file (and line and
/// member where there is one), within a stated memory bound, without blocking, and without touching
/// anything outside the store.
///
/// The time limit only catches a hang: it is generous, so that a busy machine (where tests wait for
/// one of two cores) makes the suite slower, never failing it.
@Suite("Hostile and damaged store files", .timeLimit(.minutes(30)))
struct HostileFileTests {
    /// The line limit the tests use, small so that refusing costs little.
    static let limit = 1 << 20

    static func configuration(_ fs: any FileSystem = PosixFileSystem(), readOnly: Bool = false) -> StoreConfiguration {
        var configuration = StoreConfiguration(compactionThreshold: nil, readOnly: readOnly)
        configuration.maximumLineBytes = limit
        configuration.fileSystem = fs
        return configuration
    }

    /// Runs `body` on a fresh copy of the damage template (snapshots, history and a journal after them).
    static func withStore(_ body: (URL) throws -> Void) throws {
        try withTemporaryDirectory { root in
            let url = root.appending("store")
            try makeDamageTemplate(at: url)
            try body(url)
        }
    }

    /// What verification reports with the small line limit.
    static func problems(_ url: URL, _ fs: any FileSystem = PosixFileSystem()) -> [StorageError] {
        StoreVerifier.verify(at: url, configuration: configuration(fs, readOnly: true)).problems
    }

    /// Extends a file with a hole (no disk space) to `size` bytes.
    static func extendSparse(_ url: URL, to size: UInt64) throws {
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        try handle.truncate(atOffset: size)
    }

    static func lineCount(_ url: URL) throws -> Int { try readBytes(url).filter { $0 == 0x0A }.count }

    /// Replaces the manifest by one with `members` changed (and a correct checksum).
    static func rewriteManifest(_ store: URL, _ change: (inout [String: JSONValue]) -> Void) throws {
        let path = store.appending("manifest.json")
        var members = try readBytes(path).withUnsafeBufferPointer { try LineFraming.decode(UnsafeBufferPointer(rebasing: $0.dropLast())) }
        change(&members)
        try writeBytes(try LineFraming.encode(members), to: path)
    }

    @Test func aJournalLineWithoutANewlineIsRefusedAfterReadingAtMostTheLimit() throws {
        try Self.withStore { url in
            let journal = url.appending("journal.jsonl")
            let lines = try Self.lineCount(journal)
            let size = try readBytes(journal).count
            try Self.extendSparse(journal, to: 64 << 20)
            let fs = ReadCountingFileSystem()
            #expect {
                _ = try Store.open(at: url, configuration: Self.configuration(fs, readOnly: true))
            } throws: { error in
                let error = error as? StorageError
                return error?.code == .lineTooLong && error?.file == journal.path && error?.line == lines + 1
                    && error?.offset == Int64(size)
            }
            #expect(fs.bytesRead(from: journal.path) <= Int64(size + Self.limit + LineScanner.chunkSize))
            #expect(fs.largestRead <= Self.limit + 2)
            let problems = Self.problems(url)
            #expect(problems.contains { $0.code == .lineTooLong && $0.file == journal.path && $0.line == lines + 1 })
        }
    }

    @Test func aLongLineEndingInANewlineIsRefusedNamingItsLine() throws {
        try Self.withStore { url in
            let journal = url.appending("journal.jsonl")
            let lines = try Self.lineCount(journal)
            try writeBytes(try readBytes(journal) + [UInt8](repeating: UInt8(ascii: "x"), count: Self.limit + 1) + [0x0A], to: journal)
            expectError(.lineTooLong) { try Store.open(at: url, configuration: Self.configuration(readOnly: true)) }
            let problems = Self.problems(url)
            #expect(problems.contains { $0.code == .lineTooLong && $0.file == journal.path && $0.line == lines + 1 })
        }
    }

    @Test func aSparseSnapshotIsRefusedAfterReadingAtMostTheLimit() throws {
        try Self.withStore { url in
            let snapshot = url.appending("snapshots/Item.jsonl")
            try Self.extendSparse(snapshot, to: 32 << 20)
            let fs = ReadCountingFileSystem()
            let problems = Self.problems(url, fs)
            #expect(problems.contains { $0.code == .lineTooLong && $0.file == snapshot.path && $0.line != nil })
            #expect(fs.bytesRead(from: snapshot.path) <= Int64(2 * Self.limit + LineScanner.chunkSize))
            expectError(.lineTooLong) { try Store.open(at: url, configuration: Self.configuration(readOnly: true)) }
        }
    }

    @Test func aWriteWhoseLineIsLongerThanTheLimitThrowsAndAppendsNothing() throws {
        try withTemporaryDirectory { root in
            let url = root.appending("store")
            var configuration = Self.configuration()
            configuration.maximumLineBytes = 4096
            let store = try Store.open(at: url, configuration: configuration)
            defer { store.close() }
            expectError(.lineTooLong) {
                try store.write { tx in
                    try tx.insert(entity: "Item", id: tx.allocateID(), values: ["text": .string(String(repeating: "a", count: 5000))])
                }
            }
            #expect(store.lastSequence == 0)
            let journal = url.appending("journal.jsonl")
            #expect(try !FileManager.default.fileExists(atPath: journal.path) || readBytes(journal).isEmpty)
            try store.write { tx in try tx.insert(entity: "Item", id: tx.allocateID(), values: ["text": .string("short")]) }
            #expect(store.lastSequence == 1)
        }
    }

    @Test func aManifestSequenceTooLargeIsRefusedNamingTheMember() throws {
        try Self.withStore { url in
            try Self.rewriteManifest(url) { $0["sequence"] = .int(.max) }
            let before = try directoryContents(url)
            #expect {
                _ = try Store.open(at: url, configuration: Self.configuration())
            } throws: { error in
                let error = error as? StorageError
                return error?.code == .malformedLine && error?.file == url.appending("manifest.json").path
                    && error?.line == 1 && error?.message.contains("\"sequence\"") == true
            }
            #expect(!StoreVerifier.verify(at: url).isHealthy)
            #expect(try directoryContents(url).filter { $0.key != "/lock" } == before.filter { $0.key != "/lock" })
        }
    }

    @Test func aManifestAheadOfTheJournalIsRefusedAndNothingIsWritten() throws {
        try withTemporaryDirectory { root in
            let url = root.appending("store")
            do {
                let store = try Store.open(at: url)
                try writeSampleTransactions(store, count: 3)
                store.close()
            }
            try Self.rewriteManifest(url) { $0["sequence"] = .int(10) }
            let before = try directoryContents(url)
            #expect {
                _ = try Store.open(at: url, configuration: Self.configuration())
            } throws: { error in
                let error = error as? StorageError
                return error?.code == .inconsistentStore && error?.file == url.appending("journal.jsonl").path && error?.line == 3
                    && error?.message.contains("\"sequence\"") == true
            }
            #expect(StoreVerifier.verify(at: url).problems.contains { $0.code == .inconsistentStore })
            #expect(try directoryContents(url).filter { $0.key != "/lock" } == before.filter { $0.key != "/lock" })
        }
        // The same disagreement after a compaction, opened without reading the records.
        try Self.withStore { url in
            try Self.rewriteManifest(url) { $0["sequence"] = .int(30) }
            var deferred = Self.configuration()
            deferred.defersLoadingRecords = true
            expectError(.inconsistentStore) { try Store.open(at: url, configuration: deferred) }
        }
    }

    @Test func aSnapshotRecordAtOrPastTheNextIdentifierIsRefused() throws {
        try Self.withStore { url in
            // Compacted to the end, so that only the manifest names the next identifier.
            let store = try Store.open(at: url)
            try store.compact()
            store.close()
            try Self.rewriteManifest(url) { $0["nextID"] = .int(1) }
            #expect {
                _ = try Store.open(at: url, configuration: Self.configuration())
            } throws: { error in
                (error as? StorageError)?.code == .inconsistentStore && (error as? StorageError)?.message.contains("nextID") == true
            }
        }
    }

    @Test func aSnapshotHeaderCountDoesNotSizeMemoryBeyondTheFile() throws {
        try Self.withStore { url in
            let snapshot = url.appending("snapshots/Item.jsonl")
            var lines = try readBytes(snapshot).split(separator: 0x0A).map(Array.init)
            var header = try lines[0].withUnsafeBufferPointer { try LineFraming.decode($0) }
            header["records"] = .int(50_000_000)
            lines[0] = Array(try LineFraming.encode(header).dropLast())
            try writeBytes(Array(lines.joined(separator: [0x0A])) + [0x0A], to: snapshot)
            let size = try readBytes(snapshot).count
            var problems: [StorageError] = []
            let loaded = try StoreLoader.load(StorePaths(directory: url.path), configuration: Self.configuration(readOnly: true)) {
                problems.append($0)
            }
            #expect(problems.contains { $0.code == .inconsistentStore && $0.file == snapshot.path && $0.line == 1 })
            #expect(loaded.state.records.expectedCount <= SnapshotFile.maximumRecordCount(inFileOfSize: Int64(size)) + 64)
            #expect(SnapshotFile.maximumRecordCount(inFileOfSize: Int64(size)) < 1000)
        }
    }

    @Test func aFIFOInPlaceOfAStoreFileIsRefusedWithoutBlocking() throws {
        for name in ["journal.jsonl", "manifest.json", "snapshots/Item.jsonl", "history.jsonl"] {
            try Self.withStore { url in
                let path = url.appending(name).path
                try? FileManager.default.removeItem(atPath: path)
                #expect(mkfifo(path, 0o644) == 0)
                expectError(.notRegularFile, "\(name)") { try Store.open(at: url, configuration: Self.configuration(readOnly: true)) }
                expectError(.notRegularFile, "\(name)") { try Store.open(at: url, configuration: Self.configuration()) }
                let problems = StoreVerifier.verify(at: url).problems
                #expect(problems.contains { $0.code == .notRegularFile && $0.file == path }, "\(name): \(problems)")
                expectError(.notRegularFile, "\(name)") { try StoreRepair.repair(at: url, options: RepairOptions()) }
            }
        }
    }

    @Test func aJournalLinkedOutOfTheStoreIsRefusedAndItsTargetNeverTouched() throws {
        try Self.withStore { url in
            let root = url.deletingLastPathComponent()
            let journal = url.appending("journal.jsonl")
            // Outside the store, a file that repair would truncate if it were the journal (a torn tail).
            let outside = root.appending("precious.jsonl")
            let outsideBytes = try readBytes(journal) + Array("{\"half a line".utf8)
            try writeBytes(outsideBytes, to: outside)
            try FileManager.default.removeItem(at: journal)
            try FileManager.default.createSymbolicLink(atPath: journal.path, withDestinationPath: outside.path)
            for readOnly in [true, false] {
                expectError(.outsideStore) { try Store.open(at: url, configuration: Self.configuration(readOnly: readOnly)) }
            }
            #expect(StoreVerifier.verify(at: url).problems.contains { $0.code == .outsideStore && $0.file == journal.path })
            expectError(.outsideStore) { try StoreRepair.repair(at: url, options: RepairOptions()) }
            expectError(.outsideStore) { try StoreRepair.repair(at: url, options: RepairOptions(moveDamagedLines: true)) }
            #expect(try readBytes(outside) == outsideBytes)
            // A link to a device is refused the same way, before anything reads it.
            try FileManager.default.removeItem(at: journal)
            try FileManager.default.createSymbolicLink(atPath: journal.path, withDestinationPath: "/dev/zero")
            expectError(.outsideStore) { try Store.open(at: url, configuration: Self.configuration(readOnly: true)) }
            // A dangling link would make a write create a file outside the store.
            try FileManager.default.removeItem(at: journal)
            let missing = root.appending("created-outside.jsonl")
            try FileManager.default.createSymbolicLink(atPath: journal.path, withDestinationPath: missing.path)
            expectError(.outsideStore) { try Store.open(at: url, configuration: Self.configuration()) }
            #expect(!FileManager.default.fileExists(atPath: missing.path))
        }
    }

    @Test func aBlobLinkedOutOfTheStoreIsNotRead() throws {
        try withTemporaryDirectory { root in
            let url = root.appending("store")
            let store = try Store.open(at: url)
            defer { store.close() }
            var hash = ""
            try store.write { tx in hash = try tx.putBlob(Data("cover".utf8)) }
            let blob = url.appending(BlobStore.relativePath(hash))
            let outside = root.appending("outside")
            try FileManager.default.moveItem(at: blob, to: outside)
            try FileManager.default.createSymbolicLink(atPath: blob.path, withDestinationPath: outside.path)
            expectError(.outsideStore) { try store.blob(hash) }
        }
    }

    @Test func aLinkThatStaysInsideTheStoreIsAccepted() throws {
        try Self.withStore { url in
            let expected = StoreContent(try Store.open(at: url, configuration: Self.configuration(readOnly: true)))
            try FileManager.default.moveItem(at: url.appending("journal.jsonl"), to: url.appending("journal-data.jsonl"))
            try FileManager.default.createSymbolicLink(atPath: url.appending("journal.jsonl").path, withDestinationPath: "journal-data.jsonl")
            let store = try Store.open(at: url, configuration: Self.configuration(readOnly: true))
            #expect(StoreContent(store) == expected)
            store.close()
        }
    }

    @Test func aMalformedBlobReferenceIsReportedNamingFileLineAndMember() throws {
        try withTemporaryDirectory { root in
            let url = root.appending("store")
            do {
                let store = try Store.open(at: url)
                try store.write { tx in try tx.insert(entity: "Doc", id: tx.allocateID(), values: ["file": .object(["$blob": .string("../../x")])]) }
                store.close()
            }
            let problems = StoreVerifier.verify(at: url).problems
            #expect(
                problems.contains {
                    $0.code == .blobNotFound && $0.file == url.appending("journal.jsonl").path && $0.line == 1 && $0.message.contains("\"file\"")
                }, "\(problems)")
            expectError(.blobNotFound) { _ = try BlobStore.read("../../x", directory: url.path, fileSystem: PosixFileSystem()) }
        }
    }

    @Test func aLineHoldingOnlyItsChecksumSaysSo() throws {
        try withTemporaryDirectory { root in
            let url = root.appending("store")
            _ = try Store.open(at: url)
            let journal = url.appending("journal.jsonl")
            try writeBytes(LineFraming.frame(body: Array("{}".utf8)), to: journal)
            #expect {
                _ = try Store.open(at: url, configuration: Self.configuration(readOnly: true))
            } throws: { error in
                (error as? StorageError)?.message.contains("only its checksum") == true && (error as? StorageError)?.line == 1
            }
            try writeBytes(Array("{\"$crc\":\"…\"}\n".utf8), to: journal)
            #expect {
                _ = try Store.open(at: url, configuration: Self.configuration(readOnly: true))
            } throws: { error in
                (error as? StorageError)?.code == .malformedLine && (error as? StorageError)?.message.contains("8 lowercase hex digits") == true
            }
        }
    }
}

/// Expects `body` to throw a ``StorageError`` with `code`.
func expectError<R>(
    _ code: StorageError.Code, _ comment: Comment? = nil, sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () throws -> R
) {
    #expect(comment, sourceLocation: sourceLocation) {
        _ = try body()
    } throws: { error in
        (error as? StorageError)?.code == code
    }
}
