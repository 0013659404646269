import Foundation
@testable import FolioStorage
import Testing

@testable import folio

/// `folio` on stores made hostile by hand: sparse files, huge counts in headers, FIFOs and links out
/// of the store. Every command refuses with a typed error instead of blocking, trapping or growing
/// without bound, and nothing outside the store is changed.
@Suite("Hostile stores from the command line", .serialized, .timeLimit(.minutes(30)))
struct HostileStoreTests {
    /// The memory a reader may take for one line, and the most `folio verify` may use on any store.
    static let lineBound = StoreConfiguration.defaultMaximumLineBytes
    static let memoryBound = 2 * lineBound

    static func extendSparse(_ url: URL, to size: UInt64) throws {
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        try handle.truncate(atOffset: size)
    }

    /// A store whose Item snapshot holds `count` records `spacing` identifiers apart under a header
    /// claiming `claimed` records.
    static func writeSnapshotStore(at url: URL, count: Int, spacing: Int64, claimed: Int64) throws {
        try FileManager.default.createDirectory(at: url.appendingPathComponent("snapshots"), withIntermediateDirectories: true)
        var bytes = try LineFraming.encode(["snapshot": .int(1), "entity": .string("Item"), "records": .int(claimed), "sequence": .int(1)])
        for k in 0..<Int64(count) {
            bytes += try LineFraming.encode(["id": .int(1 + k * spacing), "values": .object(["n": .int(k)])])
        }
        try Data(bytes).write(to: url.appendingPathComponent("snapshots/Item.jsonl"))
        let manifest = try LineFraming.encode([
            "format": .string("folio-store"), "version": .int(1), "sequence": .int(1), "nextID": .int(2 + Int64(count) * spacing),
        ])
        try Data(manifest).write(to: url.appendingPathComponent("manifest.json"))
    }

    /// The damaged cases of issue 28, each with the peak memory `folio verify` took on it.
    @Test func verifyRefusesDamagedStoresWithinTwiceTheLineBound() throws {
        let scratch = ScratchDirectory()
        defer { scratch.remove() }
        var cases: [(String, URL)] = []
        for (name, size) in [("journal-3GiB", UInt64(3) << 30), ("journal-16GiB", UInt64(16) << 30)] {
            let store = scratch.appending(name)
            try LibraryStore.write(to: store)
            try Self.extendSparse(store.appendingPathComponent("journal.jsonl"), to: size)
            cases.append((name, store))
        }
        let snapshotStore = scratch.appending("snapshot-1GiB")
        try Self.writeSnapshotStore(at: snapshotStore, count: 10, spacing: 1, claimed: 10)
        try Self.extendSparse(snapshotStore.appendingPathComponent("snapshots/Item.jsonl"), to: 1 << 30)
        cases.append(("snapshot-1GiB", snapshotStore))
        let claimedStore = scratch.appending("header-50M-one-record")
        try Self.writeSnapshotStore(at: claimedStore, count: 1, spacing: 1, claimed: 50_000_000)
        cases.append(("header-50M-one-record", claimedStore))
        let spreadStore = scratch.appending("header-50M-ids-2048-apart")
        try Self.writeSnapshotStore(at: spreadStore, count: 60_000, spacing: 2048, claimed: 50_000_000)
        cases.append(("header-50M-ids-2048-apart", spreadStore))
        let zeroStore = scratch.appending("journal-link-to-dev-zero")
        try LibraryStore.write(to: zeroStore)
        try FileManager.default.removeItem(at: zeroStore.appendingPathComponent("journal.jsonl"))
        try FileManager.default.createSymbolicLink(atPath: zeroStore.appendingPathComponent("journal.jsonl").path, withDestinationPath: "/dev/zero")
        cases.append(("journal-link-to-dev-zero", zeroStore))
        for (name, store) in cases {
            let measured = try folioMeasured("verify", store.path)
            print("PEAK_RSS folio verify \(name): \(measured.peakBytes >> 20) MiB, exit \(measured.status)")
            #expect(measured.status == 1, "\(name): verify must report the damage (exit 1), not crash")
            #expect(measured.peakBytes < Self.memoryBound, "\(name): \(measured.peakBytes >> 20) MiB")
        }
    }

    /// Runs `folio` with `arguments` and expects it to fail naming `code`.
    static func expectRefusal(_ arguments: [String], _ code: StorageError.Code, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let run = try folio(arguments: arguments)
        #expect(run.status != 0, "\(arguments): \(run)", sourceLocation: sourceLocation)
        #expect((run.stdout + run.stderr).contains(code.rawValue), "\(arguments): \(run)", sourceLocation: sourceLocation)
    }

    @Test func everyCommandRefusesAFIFOInPlaceOfTheJournal() throws {
        let scratch = ScratchDirectory()
        defer { scratch.remove() }
        let store = scratch.appending("store")
        try LibraryStore.write(to: store)
        let journal = store.appendingPathComponent("journal.jsonl")
        try FileManager.default.removeItem(at: journal)
        #expect(mkfifo(journal.path, 0o644) == 0)
        for arguments in [
            ["verify", store.path], ["info", store.path], ["cat", store.path, "Book"], ["log", store.path],
            ["export", store.path], ["repair", store.path, "--safe-only"], ["repair", store.path],
        ] {
            try Self.expectRefusal(arguments, .notRegularFile)
        }
        let names = try FileManager.default.contentsOfDirectory(atPath: scratch.path)
        #expect(!names.contains { $0.contains("backup") }, "repair backed up an unsafe store: \(names)")
    }

    @Test func repairNeverTouchesAJournalLinkedOutOfTheStore() throws {
        let scratch = ScratchDirectory()
        defer { scratch.remove() }
        let store = scratch.appending("store")
        try LibraryStore.write(to: store)
        let journal = store.appendingPathComponent("journal.jsonl")
        let outside = scratch.appending("someone-elses-file.jsonl")
        // A torn tail: what repair --safe-only truncates in a journal.
        let outsideBytes = [UInt8](try Data(contentsOf: journal)) + Array("{\"half".utf8)
        try Data(outsideBytes).write(to: outside)
        try FileManager.default.removeItem(at: journal)
        try FileManager.default.createSymbolicLink(atPath: journal.path, withDestinationPath: outside.path)
        for arguments in [
            ["repair", store.path, "--safe-only"], ["repair", store.path], ["verify", store.path], ["info", store.path],
            ["cat", store.path, "Book"],
        ] {
            try Self.expectRefusal(arguments, .outsideStore)
        }
        #expect([UInt8](try Data(contentsOf: outside)) == outsideBytes)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: journal.path) == outside.path)
    }

    @Test func repairBacksUpFileContentsNotLinks() throws {
        let scratch = ScratchDirectory()
        defer { scratch.remove() }
        let store = scratch.appending("store")
        try LibraryStore.write(to: store)
        let journal = store.appendingPathComponent("journal.jsonl")
        let bytes = [UInt8](try Data(contentsOf: journal))
        try FileManager.default.moveItem(at: journal, to: store.appendingPathComponent("journal-data.jsonl"))
        try FileManager.default.createSymbolicLink(atPath: journal.path, withDestinationPath: "journal-data.jsonl")
        try Data(bytes + Array("{\"half".utf8)).write(to: store.appendingPathComponent("journal-data.jsonl"))
        let backup = scratch.appending("backup")
        let run = try folio("repair", store.path, "--safe-only", "--backup", backup.path)
        #expect(run.status == 0, "\(run)")
        let backedUp = backup.appendingPathComponent("journal.jsonl")
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: backedUp.path)) == nil, "the backup holds a link")
        #expect([UInt8](try Data(contentsOf: backedUp)) == bytes + Array("{\"half".utf8))
    }

    @Test func aDateValueOfAnyDoubleIsShownWithoutATrap() {
        for seconds in [1e300, -1e300, Double.greatestFiniteMagnitude, 1e14] {
            #expect(DateText.format(Date(timeIntervalSince1970: seconds)).hasSuffix("s since 1970 UTC"), "\(seconds)")
        }
        #expect(DateText.format(Date(timeIntervalSince1970: 0)) == "1970-01-01 00:00:00 UTC")
    }
}
