import Foundation
import Testing
@_spi(FolioEngine) import FolioStorage
@testable import Folio

/// The container's index holds no records of its own: it describes one version of the store's table
/// and moves to the next with the transactions in between.
@Suite("The index over the store's own records")
struct StoreRecordsIndexTests {
    static func number(_ trip: Trip) throws -> Int64 {
        try #require(trip.persistentModelID.recordNumber)
    }

    @Test func theIndexMovesOverSeveralTransactionsItHadNotSeenAtOnce() throws {
        let (container, context) = try QueryTests.tripContainer(count: 60)
        let rome = try context.fetch(
            FetchDescriptor<Trip>(
                predicate: #Predicate { $0.destination == "Rome" },
                sortBy: [SortDescriptor(\.name)]))
        #expect(rome.count == 12)
        let moved = try Self.number(rome[0]), deleted = try Self.number(rome[1]), repriced = try Self.number(rome[2])
        // Three transactions written past the index, as another process's would be.
        let first = try #require(
            try container.store.write(author: "test") { transaction in
                try transaction.update(entity: "Trip", id: moved, values: ["destination": .string("Oslo")])
            })
        _ = try container.store.write(author: "test") { transaction in try transaction.delete(entity: "Trip", id: deleted) }
        let last = try #require(
            try container.store.write(author: "test") { transaction in
                try transaction.update(entity: "Trip", id: repriced, values: ["price": .double(1.5)])
            })
        try container.syncIndex()

        let index = try container.index
        #expect(index.lastSequence == last.sequence)
        #expect(index.version(of: moved) == first.sequence)
        #expect(index.version(of: repriced) == last.sequence)
        #expect(index.version(of: deleted) == nil)
        let fresh = ModelContext(container)
        let romeNow = try fresh.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.destination == "Rome" }))
        #expect(romeNow.count == 10)
        #expect(try Set(romeNow.map(Self.number)) == Set(try rome.map(Self.number)).subtracting([moved, deleted]))
        let oslo = try fresh.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.destination == "Oslo" }))
        #expect(try oslo.map(Self.number).contains(moved))
        #expect(oslo.count == 13)
        let cheap = try fresh.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.price == 1.5 }))
        #expect(try cheap.map(Self.number) == [repriced])
    }

    @Test func aRecordReadFromASnapshotHasVersionZeroAndAReplayedOneItsSequence() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        do {
            let container = try store.container(Trip.self)
            let context = ModelContext(container)
            context.insert(Trip(name: "Compacted", destination: "Rome", startDate: .now, price: 1))
            try context.save()
            try container.compact()
            context.insert(Trip(name: "Journaled", destination: "Rome", startDate: .now, price: 2))
            try context.save()
        }
        let container = try store.container(Trip.self)
        let trips = try ModelContext(container).fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)]))
        #expect(trips.map(\.name) == ["Compacted", "Journaled"])
        let index = try container.index
        #expect(index.version(of: try Self.number(trips[0])) == 0)
        #expect(index.version(of: try Self.number(trips[1])) == container.store.lastSequence)
    }

    @Test func aJournalLineThatCannotBeReadFailsTheFetchAndLosesNothingSaved() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let container = try store.container(Trip.self)
        let context = ModelContext(container)
        for index in 0..<10 {
            context.insert(Trip(name: "Trip \(index)", destination: "Rome", startDate: .now, price: Double(index)))
        }
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<Trip>()) == 10)

        // Another writer appended a line that is not a transaction.
        let journal = store.url.appendingPathComponent("journal.jsonl")
        let intact = try Data(contentsOf: journal)
        try (intact + Data("{\"not\":\"a transaction\"}\n".utf8)).write(to: journal)
        let error = try #require(throws: FolioError.self) {
            try ModelContext(container).fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.destination == "Rome" }))
        }
        #expect(error.code == .storage)
        #expect(error.description.contains("journal.jsonl"), "names the file: \(error)")
        #expect(error.description.contains("journal.jsonl:3"), "names the line: \(error)")

        // Once the line is gone, the same container answers again, with everything saved.
        try intact.write(to: journal)
        let trips = try ModelContext(container).fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.destination == "Rome" }))
        #expect(trips.count == 10)
    }
}

@Suite("Containers let go of their records")
struct ContainerLifetimeTests {
    @Test(arguments: [false, true])
    func aContainerAndItsStoreAreFreedOnceTheAppLetsGoOfThem(readingEveryRecord: Bool) throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        weak var weakStore: Store?
        weak var weakContainer: ModelContainer?
        weak var weakIndex: RecordIndex?
        do {
            let container = try store.container(Trip.self)
            if readingEveryRecord { try container.loadRecords() }
            let context = ModelContext(container)
            for index in 0..<20 { context.insert(Trip(name: "Trip \(index)", destination: "Rome", startDate: .now, price: 1)) }
            try context.save()
            let trips = try ModelContext(container).fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.destination == "Rome" }))
            #expect(trips.count == 20)
            if readingEveryRecord {
                try container.compact()
                // A scan (which lays records out by column), a sort and a limit.
                var ranged = FetchDescriptor<Trip>(
                    predicate: #Predicate { $0.price >= 0 && $0.price <= 5 },
                    sortBy: [SortDescriptor(\.startDate, order: .reverse)])
                ranged.fetchLimit = 5
                #expect(try ModelContext(container).fetch(ranged).count == 5)
            }
            weakIndex = try container.index
            weakStore = container.store
            weakContainer = container
        }
        // A snapshot cache the store writes in the background holds it until written: on a busy
        // machine that can take a while.
        let deadline = Date().addingTimeInterval(120)
        while weakStore != nil || weakIndex != nil || weakContainer != nil, Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        #expect(weakContainer == nil, "the container is freed")
        #expect(weakStore == nil, "the store, and the records it holds, are freed")
        #expect(weakIndex == nil, "the index, and the version of the records it reads, are freed")
    }
}
