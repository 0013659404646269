import Foundation
import FolioStorage
import FolioTestSupport
import Testing
@testable import Folio

/// A large save hands its committed changes to the index on another thread
/// (`ConcurrentIndexApplication`). Every other save test checks the index after saves that commit; this
/// one checks a save that does not.
@Suite("Index changes applied on another thread")
struct ConcurrentIndexingTests {
    @Test func aSaveWhoseCommitFailsLeavesTheIndexAsTheStoreIs() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let faults = FaultInjectingFileSystem()
        var configuration = ModelConfiguration(url: store.url)
        configuration.fileSystem = faults
        let container = try ModelContainer(for: Schema([Trip.self]), configurations: [configuration])
        let context = ModelContext(container)
        for n in 1...3 { context.insert(Trip(name: "saved \(n)", destination: "Oslo", startDate: .now, price: Double(n))) }
        try context.save()

        // The journal append fails (the disk is full): the save throws and nothing is committed. (A failed
        // fsync would not do here: the line is then in the file, which the store takes as the truth.)
        faults.arm([.write], at: 1, fault: .error(ENOSPC))
        // Large enough to be handed to the index on another thread, had it committed.
        for n in 1...ConcurrentIndexApplication.minimumRecords {
            context.insert(Trip(name: "lost \(n)", destination: "Oslo", startDate: .now, price: Double(10 + n)))
        }
        #expect(throws: FolioError.self) { try context.save() }
        #expect(faults.didFire)

        // The index is as the store is: it took none of the changes.
        let looking = ModelContext(container)
        let found = try looking.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.destination == "Oslo" }, sortBy: [SortDescriptor(\.name)]))
        #expect(found.map(\.name) == ["saved 1", "saved 2", "saved 3"])
        #expect(try looking.fetchCount(FetchDescriptor<Trip>(predicate: #Predicate { $0.price > 10 })) == 0)
    }
}
