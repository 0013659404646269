import Foundation
import Testing
@testable import FolioStorage

/// Two copies that both compacted a base whose journal held transactions: the store replays that
/// journal over the snapshots git merged against the base's (``BaseJournalReplay``).
@Suite("Replaying the merge base's journal after both sides compacted")
struct BaseJournalReplayTests {
    typealias Fixture = CrossFileReconciliationTests

    /// Merges two changed copies of `base` file by file, as git calls `folio merge-driver`: a file one
    /// side left as the base had it is the other side's; a file both changed goes through its merge.
    static func merge(base: URL, ours: URL, theirs: URL, into merged: URL) throws {
        let manager = FileManager.default
        var paths = Set<String>()
        for store in [ours, theirs] {
            for case let relative as String in manager.enumerator(atPath: store.path) ?? FileManager.DirectoryEnumerator()
            where !relative.hasPrefix("cache") && relative != "lock" {
                var isDirectory: ObjCBool = false
                if manager.fileExists(atPath: store.appending(relative).path, isDirectory: &isDirectory), !isDirectory.boolValue {
                    paths.insert(relative)
                }
            }
        }
        let schema = try Manifest.decode(readBytes(ours.appending("manifest.json")), path: "ours").schema
        for relative in paths.sorted().reversed() {
            let (o, a, b) = try (bytes(base, relative), bytes(ours, relative), bytes(theirs, relative))
            var result = a
            if a != b && o != b {
                if o == a {
                    result = b
                } else if relative == "journal.jsonl" {
                    result = try JournalThreeWayMerge.merge(base: o, ours: a, theirs: b, schema: schema).bytes
                } else if relative == "history.jsonl" {
                    result = try HistoryMerge.merge(base: o, ours: a, theirs: b)
                } else if relative == "manifest.json" {
                    result = try ManifestMerge.merge(base: o, ours: a, theirs: b)
                } else {
                    result = try SnapshotMerge.merge(base: o, ours: a, theirs: b, schema: MergeSchema(schema))
                }
            }
            let target = merged.appending(relative)
            try manager.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
            try writeBytes(result, to: target)
        }
    }

    static func bytes(_ store: URL, _ relative: String) throws -> [UInt8] {
        let url = store.appending(relative)
        return FileManager.default.fileExists(atPath: url.path) ? try readBytes(url) : []
    }

    /// A base whose journal inserted a cookbook and three recipes (no snapshot holds them), and two
    /// copies that changed them and compacted; merged into `directory/merged`.
    ///
    /// - a renamed Soup (10), deleted Stew (11) and took it off the cookbook's list;
    /// - b renamed Stew, added Tart (13) to the cookbook, compacted, then rated Soup in its journal.
    static func makeMergedStore(in directory: URL) throws -> URL {
        let (base, a, b, merged) = (directory.appending("base"), directory.appending("a"), directory.appending("b"), directory.appending("merged"))
        let unlimited = StoreConfiguration(compactionThreshold: nil)
        let seed = try Store.open(at: base, configuration: unlimited)
        try seed.write { tx in
            tx.setSchema(Fixture.schema)
            try tx.insert(entity: "Cookbook", id: 1, values: ["title": .string("Suppers"), "recipes": Fixture.ids(10, 11, 12)])
            for (id, name) in [(10, "Soup"), (11, "Stew"), (12, "Pie")] as [(Int64, String)] {
                try tx.insert(entity: "Recipe", id: id, values: ["name": .string(name), "cookbook": .int(1)])
            }
        }
        seed.close()
        for copy in [a, b] { try FileManager.default.copyItem(at: base, to: copy) }
        let ours = try Store.open(at: a, configuration: unlimited)
        try ours.write { tx in
            try tx.update(entity: "Recipe", id: 10, values: ["name": .string("Soup (a)")])
            try tx.delete(entity: "Recipe", id: 11)
            try tx.update(entity: "Cookbook", id: 1, values: ["recipes": Fixture.ids(10, 12)])
        }
        try ours.compact()
        ours.close()
        Thread.sleep(forTimeInterval: 0.01)  // b's transactions are the later ones
        let theirs = try Store.open(at: b, configuration: unlimited)
        try theirs.write { tx in
            try tx.update(entity: "Recipe", id: 11, values: ["name": .string("Stew (b)")])
            try tx.insert(entity: "Recipe", id: 13, values: ["name": .string("Tart"), "cookbook": .int(1)])
            try tx.update(entity: "Cookbook", id: 1, values: ["recipes": Fixture.ids(10, 11, 12, 13)])
        }
        try theirs.compact()
        try theirs.write { try $0.update(entity: "Recipe", id: 10, values: ["rating": .int(5)]) }
        theirs.close()
        try merge(base: base, ours: a, theirs: b, into: merged)
        return merged
    }

    static func expectReplayed(_ store: Store) {
        #expect(
            Fixture.values(store, 10) == ["name": .string("Soup (a)"), "cookbook": .int(1), "rating": .int(5)],
            "a's rename after the base's insert stands, b's later journal write too")
        #expect(store.record(id: 11) == nil, "a record the base inserted and one side deleted stays deleted")
        #expect(Fixture.values(store, 1)?["recipes"] == Fixture.ids(10, 12, 13), "a list both sides changed merges as a set")
        #expect(Fixture.values(store, 13)?["cookbook"] == .int(1) && Fixture.values(store, 12)?["name"] == .string("Pie"))
    }

    @Test func theMergedCompactionMarkNamesTheBaseJournalAndBothSides() throws {
        try withTemporaryDirectory { url in
            let merged = try Self.makeMergedStore(in: url)
            let lines = try JournalThreeWayMerge.read(readBytes(merged.appending("journal.jsonl")), name: "merged")
            let mark = try #require(lines.first?.transaction)
            let base = try JournalThreeWayMerge.read(readBytes(url.appending("base/journal.jsonl")), name: "base")
            #expect(mark.isCompactionMark && mark.mergedBase?.transactions == base.map(\.transaction.transactionID))
            #expect(mark.mergedBase?.sides.count == 2 && mark.mergedBase?.sides == mark.mergedBase?.sides.sorted())
            #expect(mark.historyFrom == 1, "both sides' histories go back to the first transaction")
            let history = try JournalThreeWayMerge.read(readBytes(merged.appending("history.jsonl")), name: "history")
            #expect(
                history.first?.transaction.foldedBy == nil && history.dropFirst().allSatisfy { $0.transaction.foldedBy != nil },
                "the base's transaction is no side's; each side's own is marked")
            #expect(history.last?.transaction.sequence == mark.sequence, "the history ends where the journal starts")
        }
    }

    @Test func aReadOnlyOpenReplaysInMemoryAndListsWhatItDropped() throws {
        try withTemporaryDirectory { url in
            let merged = try Self.makeMergedStore(in: url)
            let store = try Store.open(at: merged, configuration: StoreConfiguration(readOnly: true))
            defer { store.close() }
            Self.expectReplayed(store)
            #expect(store.warnings.contains { $0.contains("merge base's journal") }, "\(store.warnings)")
            let lost = try store.conflicts().map { "\($0.conflict.id) \($0.conflict.member) \($0.conflict.lost)" }
            #expect(lost == [#"11 name string("Stew (b)")"#], "the snapshot merge's guesses without the base are gone: \(lost)")
        }
    }

    @Test func aWritableOpenCommitsTheReplayBeforeTheReconciliation() throws {
        try withTemporaryDirectory { url in
            let merged = try Self.makeMergedStore(in: url)
            let store = try Store.open(at: merged)
            Self.expectReplayed(store)
            let mends = try store.retainedHistory().filter { $0.author == CrossFileReconciliation.author }
            #expect(mends.count == 1 && mends.first?.deleted.map(\.id) == [11], "\(mends)")
            #expect(mends.first?.conflicts.map(\.member) == ["name"])
            #expect(store.warnings.isEmpty, "\(store.warnings)")
            store.close()
            #expect(try !Manifest.decode(readBytes(merged.appending("manifest.json")), path: "manifest").needsReconciliation)
            let again = try Store.open(at: merged)
            defer { again.close() }
            Self.expectReplayed(again)
            #expect(try again.retainedHistory().filter { $0.author == CrossFileReconciliation.author }.count == 1, "nothing left to mend")
            try again.compact()
            Self.expectReplayed(again)
            #expect(try again.conflicts().map(\.conflict.id) == [11])
        }
    }

    @Test func aBaseTransactionTheHistoryLacksIsNamed() throws {
        try withTemporaryDirectory { url in
            let merged = try Self.makeMergedStore(in: url)
            let path = merged.appending("journal.jsonl")
            var lines = try JournalThreeWayMerge.read(readBytes(path), name: "journal").map(\.transaction)
            lines[0].mergedBase?.transactions = ["not-in-history"]
            try writeBytes(lines.flatMap { try $0.encodedLine() }, to: path)
            let error = #expect(throws: StorageError.self) { try Store.open(at: merged, configuration: StoreConfiguration(readOnly: true)) }
            #expect(error?.code == .historyExpired && error?.file?.hasSuffix("history.jsonl") == true)
            #expect(error?.message.contains("not-in-history") == true, "\(String(describing: error))")
        }
    }
}
