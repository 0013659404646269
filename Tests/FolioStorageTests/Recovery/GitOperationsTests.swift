import Foundation
import Testing
@testable import FolioStorage

@Suite("Files changed under an open store (git)")
struct GitOperationsTests {
    @Test func aJournalRemovedByGitCleanLeavesTheCompactedState() throws {
        try withTemporaryDirectory { url in
            let store = try Store.open(at: url)
            try writeSampleTransactions(store, count: 6)
            try store.compact()
            let compacted = StoreContent(store)
            try writeSampleTransactions(store, count: 3, seed: 4)
            try FileManager.default.removeItem(at: url.appending("journal.jsonl"))
            try store.refresh()
            #expect(StoreContent(store) == compacted)
            #expect(StoreContent(try Store.open(at: url)) == compacted)
        }
    }

    @Test func filesSwappedUnderAnOpenStoreAreReloadedBeforeTheNextWrite() throws {
        try withTemporaryDirectory { root in
            let url = root.appending("store")
            let store = try Store.open(at: url)
            try writeSampleTransactions(store, count: 4)
            let saved = root.appending("saved")
            try copyDirectory(url, to: saved)
            let older = StoreContent(store)
            try writeSampleTransactions(store, count: 4, seed: 2)
            // `git checkout` of the older files: new inodes under the same names.
            for name in ["journal.jsonl", "manifest.json"] {
                try FileManager.default.removeItem(at: url.appending(name))
                try FileManager.default.copyItem(at: saved.appending(name), to: url.appending(name))
            }
            try store.write { tx in try tx.insert(entity: "Item", id: tx.allocateID(), values: ["after": .bool(true)]) }
            #expect(store.lastSequence == older.lastSequence + 1)
            store.close()
            let reopened = try Store.open(at: url)
            #expect(reopened.lastSequence == older.lastSequence + 1)
            #expect(StoreContent(reopened).records.filter { $0.values["after"] == nil } == older.records)
        }
    }
}
