import Foundation
import FolioTestSupport
import Testing
@testable import FolioStorage

@Suite("A store that fails to open")
struct OpenFailureTests {
    @Test func aJournalThatFailsToOpenClosesTheLockFileOnce() throws {
        try withTemporaryDirectory { url in
            do {
                let store = try Store.open(at: url)
                try writeSampleTransactions(store, count: 2)
                store.close()
            }
            let filesystem = FaultInjectingFileSystem()
            var configuration = StoreConfiguration()
            configuration.fileSystem = filesystem
            // The first open of the journal reads it; the second is the one the store keeps for appending.
            filesystem.arm([.open], at: 2, fault: .error(EMFILE), pathSuffix: "/journal.jsonl")
            let error = #expect(throws: StorageError.self) { try Store.open(at: url, configuration: configuration) }
            #expect(error?.errno == EMFILE)
            #expect(filesystem.didFire)
            // Closed a second time, the number could already name a file another thread opened.
            #expect(filesystem.closed.filter { $0.path.hasSuffix("/lock") }.count == 1, "\(filesystem.closed)")
            // Nothing was lost: the store opens once the fault is gone.
            filesystem.disarm()
            let reopened = try Store.open(at: url, configuration: configuration)
            defer { reopened.close() }
            #expect(reopened.lastSequence == 2)
        }
    }
}
