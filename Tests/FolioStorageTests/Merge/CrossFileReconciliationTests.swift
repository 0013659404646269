import Foundation
import Testing
@testable import FolioStorage

/// What a store does when it opens files git merged from two compacted copies (a manifest marked
/// `"reconcile":true`): references, inverses and unique values that span snapshot files are mended.
@Suite("Reconciling a store git merged from two compacted copies")
struct CrossFileReconciliationTests {
    static func relationship(toMany: Bool, inverse: String) -> JSONValue {
        .object(["kind": .string("relationship"), "toMany": .bool(toMany), "inverse": .string(inverse)])
    }

    static let attribute: JSONValue = .object(["kind": .string("attribute")])

    /// Cookbooks list recipes (each recipe has one cookbook), people are unique by email, befriend each
    /// other (many-to-many) and have one partner (one-to-one).
    static let schema: JSONValue = .object([
        "entities": .object([
            "Cookbook": .object([
                "properties": .object([
                    "title": attribute, "recipes": relationship(toMany: true, inverse: "cookbook"),
                ])
            ]),
            "Recipe": .object([
                "properties": .object([
                    "name": attribute, "cookbook": relationship(toMany: false, inverse: "recipes"),
                ])
            ]),
            "Person": .object([
                "properties": .object([
                    "email": attribute, "name": attribute, "friends": relationship(toMany: true, inverse: "friends"),
                    "partner": relationship(toMany: false, inverse: "partner"),
                ]),
                "uniqueness": .array([.array([.string("email")])]),
            ]),
        ])
    ])

    static func ids(_ values: Int64...) -> JSONValue { .array(values.map { .int($0) }) }

    /// A compacted store whose records disagree across entities the way a merge of two compacted
    /// copies leaves them, with its manifest marked as the merge driver marks it.
    static func makeMergedStore(at url: URL) throws {
        let store = try Store.open(at: url, configuration: StoreConfiguration(compactionThreshold: nil))
        try store.write { tx in
            tx.setSchema(schema)
            // 99 and 98 were deleted by the other side. Stew (11) moved to Winter (2) and is listed by
            // both; Pie (12) refers to Suppers, which does not list it.
            try tx.insert(entity: "Cookbook", id: 1, values: ["title": .string("Suppers"), "recipes": ids(10, 11, 99)])
            try tx.insert(entity: "Cookbook", id: 2, values: ["title": .string("Winter"), "recipes": ids(11)])
            try tx.insert(entity: "Recipe", id: 10, values: ["name": .string("Soup"), "cookbook": .int(1)])
            try tx.insert(entity: "Recipe", id: 11, values: ["name": .string("Stew"), "cookbook": .int(2)])
            try tx.insert(entity: "Recipe", id: 12, values: ["name": .string("Pie"), "cookbook": .int(1)])
            try tx.insert(entity: "Recipe", id: 13, values: ["name": .string("Tart"), "cookbook": .int(98)])
            // Each side inserted a@x: 20 and 22. 21 does not list its friend 20 back.
            try tx.insert(entity: "Person", id: 20, values: ["email": .string("a@x"), "name": .string("Ann"), "friends": ids(21)])
            try tx.insert(entity: "Person", id: 21, values: ["email": .string("b@x"), "name": .string("Bo"), "friends": ids()])
            try tx.insert(entity: "Person", id: 22, values: ["email": .string("a@x"), "name": .string("Annie"), "friends": ids(23)])
            try tx.insert(entity: "Person", id: 23, values: ["email": .string("c@x"), "name": .string("Cy"), "friends": ids(22)])
            // 30 and 31 are partners; 32 also names 31.
            try tx.insert(entity: "Person", id: 30, values: ["email": .string("d@x"), "partner": .int(31)])
            try tx.insert(entity: "Person", id: 31, values: ["email": .string("e@x"), "partner": .int(30)])
            try tx.insert(entity: "Person", id: 32, values: ["email": .string("f@x"), "partner": .int(31)])
        }
        try store.compact()
        store.close()
        try mark(url, reconcile: true)
    }

    /// Rewrites the store's manifest with or without the merge driver's mark.
    static func mark(_ url: URL, reconcile: Bool) throws {
        let path = url.appending("manifest.json")
        var manifest = try Manifest.decode(try readBytes(path), path: path.path)
        manifest.needsReconciliation = reconcile
        if reconcile { manifest.snapshotBytes = [:] }
        try writeBytes(try manifest.encoded(), to: path)
    }

    static func values(_ store: Store, _ id: Int64) -> [String: JSONValue]? { store.record(id: id)?.values.dictionary }

    /// The records as the reconciliation leaves them.
    static func expectMended(_ store: Store) {
        #expect(values(store, 1)?["recipes"] == ids(10, 12), "dangling 99 and Stew, now Winter's, dropped; Pie appended")
        #expect(values(store, 2)?["recipes"] == ids(11))
        #expect(values(store, 13)?["cookbook"] == .null, "the reference to deleted cookbook 98 is dropped")
        #expect(store.record(id: 22) == nil, "the second a@x became the first")
        #expect(values(store, 20) == ["email": .string("a@x"), "name": .string("Annie"), "friends": ids(21, 23)])
        #expect(values(store, 21)?["friends"] == ids(20), "a many-to-many pair lists each other")
        #expect(values(store, 23)?["friends"] == ids(20), "the reference to the merged record follows it")
        #expect(values(store, 31)?["partner"] == .int(30) && values(store, 30)?["partner"] == .int(31))
        #expect(values(store, 32)?["partner"] == .null, "a one-to-one whose target has another partner is cleared")
    }

    @Test func aWritableOpenCommitsOneTransactionThatMendsEveryCrossFileFact() throws {
        try withTemporaryDirectory { url in
            try Self.makeMergedStore(at: url)
            let store = try Store.open(at: url)
            Self.expectMended(store)
            let last = try #require(try store.history(after: 0).last)
            #expect(last.author == CrossFileReconciliation.author && store.lastSequence == 2)
            let lost = Set(last.conflicts.map { "\($0.entity) \($0.id) \($0.member)" })
            #expect(lost == ["Cookbook 1 recipes", "Recipe 13 cookbook", "Person 20 name", "Person 22 #unique", "Person 32 partner"])
            let listed = try store.conflicts().map(\.conflict)
            #expect(listed.contains { $0.member == "name" && $0.lost == .string("Ann") && $0.kept == .string("Annie") })
            store.close()

            // The mark is gone and the sizes are back, so the next open reads headers, not records.
            let manifest = try Manifest.decode(try readBytes(url.appending("manifest.json")), path: "manifest.json")
            #expect(!manifest.needsReconciliation && manifest.snapshotBytes.keys.sorted() == ["Cookbook", "Person", "Recipe"])
            var deferring = StoreConfiguration()
            deferring.defersLoadingRecords = true
            let again = try Store.open(at: url, configuration: deferring)
            #expect(!again.hasLoadedRecords && again.lastSequence == 2)
            Self.expectMended(again)
        }
    }

    @Test func aReadOnlyOpenMendsInMemoryAndChangesNoFile() throws {
        try withTemporaryDirectory { url in
            try Self.makeMergedStore(at: url)
            let before = try directoryContents(url)
            let store = try Store.open(at: url, configuration: StoreConfiguration(readOnly: true))
            Self.expectMended(store)
            #expect(store.lastSequence == 1)
            #expect(store.warnings.contains { $0.contains("mended in memory") && $0.contains("2 reference(s)") }, "\(store.warnings)")
            #expect(try store.conflicts().contains { $0.conflict.member == JournalThreeWayMerge.uniqueMergeMember && $0.transactionID.isEmpty })
            store.close()
            #expect(try directoryContents(url) == before)
        }
    }

    @Test func aCrashBetweenTheMendAndTheManifestMendsNothingTwice() throws {
        try withTemporaryDirectory { url in
            try Self.makeMergedStore(at: url)
            try Store.open(at: url).close()
            // As if the process died after the transaction and before the manifest was written.
            try Self.mark(url, reconcile: true)
            let store = try Store.open(at: url)
            #expect(store.lastSequence == 2, "nothing was left to mend")
            Self.expectMended(store)
            store.close()
            let manifest = try Manifest.decode(try readBytes(url.appending("manifest.json")), path: "manifest.json")
            #expect(!manifest.needsReconciliation)
        }
    }

    @Test func aStoreWhoseFilesGitMergedWhileOpenIsMendedBeforeItsNextRead() throws {
        try withTemporaryDirectory { url in
            let live = url.appending("live"), merged = url.appending("merged")
            let store = try Store.open(at: live, configuration: StoreConfiguration(compactionThreshold: nil))
            try store.write { try $0.insert(entity: "Recipe", id: 1, values: ["name": .string("Old")]) }
            try Self.makeMergedStore(at: merged)
            // What a merge does under an open store: every file replaced.
            for name in ["manifest.json", "journal.jsonl", "history.jsonl", "snapshots"] {
                try? FileManager.default.removeItem(at: live.appending(name))
                try FileManager.default.copyItem(at: merged.appending(name), to: live.appending(name))
            }
            let arrived = try store.refresh()
            #expect(arrived.last?.author == CrossFileReconciliation.author)
            Self.expectMended(store)
            store.close()
        }
    }

    @Test func aManifestMarkThatIsNotABooleanIsRefusedByName() throws {
        try withTemporaryDirectory { url in
            try Self.makeMergedStore(at: url)
            let path = url.appending("manifest.json")
            var members = try Array(try readBytes(path).dropLast()).withUnsafeBufferPointer { try LineFraming.decode($0) }
            members["reconcile"] = .string("yes")
            try writeBytes(try LineFraming.encode(members), to: path)
            #expect {
                try Store.open(at: url)
            } throws: { error in
                (error as? StorageError)?.message.contains("\"reconcile\" must be true or false") == true
            }
        }
    }
}
