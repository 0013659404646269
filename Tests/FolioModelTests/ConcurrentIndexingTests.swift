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
    /// A container of trips whose file system fails when armed to.
    static func container(at store: TemporaryStore) throws -> (ModelContainer, FaultInjectingFileSystem) {
        let faults = FaultInjectingFileSystem()
        var configuration = ModelConfiguration(url: store.url)
        configuration.fileSystem = faults
        return (try ModelContainer(for: Schema([Trip.self]), configurations: [configuration]), faults)
    }

    @Test func aSaveWhoseCommitFailsLeavesTheIndexAsTheStoreIs() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let (container, faults) = try Self.container(at: store)
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

    /// An update that sets no indexed attribute lets the index go of its records while it is written
    /// (`RecordIndex.lendRecords()`): a write that then fails gives them back.
    @Test func anUpdateWhoseCommitFailsLeavesTheIndexAsTheStoreIs() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let (container, faults) = try Self.container(at: store)
        let context = ModelContext(container)
        for n in 1...3 { context.insert(Trip(name: "saved \(n)", destination: n == 2 ? "Rome" : "Oslo", startDate: .now, price: Double(n))) }
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<Trip>(predicate: #Predicate { $0.destination == "Oslo" })) == 2)

        faults.arm([.write], at: 1, fault: .error(ENOSPC))
        #expect(throws: FolioError.self) { try context.update(model: Trip.self, .set(\.price) { $0 + 100 }) }
        #expect(faults.didFire)
        faults.disarm()

        let looking = ModelContext(container)
        let oslo = try looking.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.destination == "Oslo" }, sortBy: [SortDescriptor(\.name)]))
        #expect(oslo.map(\.name) == ["saved 1", "saved 3"])
        #expect(oslo.map(\.price) == [1, 3])
        // And the next update, which does commit, is indexed as usual.
        #expect(try context.update(model: Trip.self, where: #Predicate { $0.destination == "Rome" }, .set(\.price, to: 50)) == 1)
        #expect(try ModelContext(container).fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.destination == "Rome" })).map(\.price) == [50])
    }
}
