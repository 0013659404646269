import Foundation
import Testing
@testable import Folio
@_spi(FolioEngine) import FolioStorage

@Suite("Queries")
struct QueryTests {
    static let day: TimeInterval = 86_400
    static let base = Date(timeIntervalSince1970: 1_750_000_000)

    static func tripContainer(count: Int = 60) throws -> (ModelContainer, ModelContext) {
        let container = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        let cities = ["Rome", "Paris", "Tokyo", "Lima", "Oslo"]
        for index in 0..<count {
            let trip = Trip(
                name: "Trip \(index)", destination: cities[index % cities.count],
                startDate: base.addingTimeInterval(Double((index * 7) % count) * day),
                price: Double((index * 37) % 1000) + 0.5, nights: index % 9,
                mapItem: index % 4 == 0 ? nil : MapItemIdentifier(rawValue: "I\(index)"))
            trip.notes = index % 3 == 0 ? nil : "note \(index)"
            context.insert(trip)
        }
        try context.save()
        return (container, context)
    }

    @Test func equalityOnAnIndexedPropertyUsesTheIndex() throws {
        let (_, context) = try Self.tripContainer()
        let descriptor = FetchDescriptor<Trip>(predicate: #Predicate { $0.destination == "Rome" })
        let trips = try context.fetch(descriptor)
        #expect(trips.count == 12)
        #expect(trips.allSatisfy { $0.destination == "Rome" })
        let plan = try context.queryPlan(for: descriptor)
        #expect(plan.access == .index("destination"))
        #expect(plan.filtersRecords)
    }

    @Test func savedChangesMoveRecordsInTheIndexesAndColumnsTheyTouch() throws {
        let (_, context) = try Self.tripContainer()
        let rome = try context.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.destination == "Rome" }))
        let cheap = FetchDescriptor<Trip>(predicate: #Predicate { $0.price < 10 }, sortBy: [SortDescriptor(\.name)])
        #expect(try context.fetch(cheap).map(\.name) == ["Trip 0"])  // also builds the column table
        let moved = try #require(rome.first { $0.name == "Trip 5" })
        moved.destination = "Lima"  // an indexed field
        moved.price = 1  // a field only scans read
        let kept = try #require(rome.first { $0.name == "Trip 10" })
        kept.price = 2  // a change that leaves every index where it was
        try context.save()

        let romeNow = try context.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.destination == "Rome" }))
        #expect(romeNow.count == 11)
        #expect(!romeNow.contains { $0.name == "Trip 5" })
        #expect(romeNow.contains { $0.name == "Trip 10" })
        #expect(try context.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.destination == "Lima" })).contains { $0.name == "Trip 5" })
        #expect(try context.fetch(cheap).map(\.name) == ["Trip 0", "Trip 10", "Trip 5"])
        #expect(try context.queryPlan(for: cheap).access == .scan)
        var latest = FetchDescriptor<Trip>(predicate: #Predicate { $0.destination == "Rome" }, sortBy: [SortDescriptor(\.startDate, order: .reverse)])
        latest.fetchLimit = 3
        let expected = romeNow.sorted { $0.startDate > $1.startDate }.prefix(3).map(\.name)
        #expect(try context.fetch(latest).map(\.name) == expected)
    }

    @Test func disjunctionOfEqualitiesUsesTheIndex() throws {
        let (_, context) = try Self.tripContainer()
        let descriptor = FetchDescriptor<Trip>(predicate: #Predicate { $0.destination == "Rome" || $0.destination == "Lima" })
        #expect(try context.fetchCount(descriptor) == 24)
        #expect(try context.queryPlan(for: descriptor).access == .index("destination"))
    }

    @Test func containsOnAConstantListUsesTheIndexAsAnInList() throws {
        let (_, context) = try Self.tripContainer()
        let cities = ["Rome", "Lima", "Atlantis"]
        let descriptor = FetchDescriptor<Trip>(predicate: #Predicate { cities.contains($0.destination) })
        #expect(try context.fetchCount(descriptor) == 24)
        #expect(try context.queryPlan(for: descriptor).access == .index("destination"))
        let days = [Self.base, Self.base.addingTimeInterval(7 * Self.day)]
        let onDays = FetchDescriptor<Trip>(predicate: #Predicate { days.contains($0.startDate) })
        let expected = try context.fetch(FetchDescriptor<Trip>()).filter { days.contains($0.startDate) }
        #expect(try context.fetch(onDays).map(\.name).sorted() == expected.map(\.name).sorted())
        #expect(!expected.isEmpty)
        #expect(try context.queryPlan(for: onDays).access == .index("startDate"))
    }

    @Test func rangeOnAnIndexedDateUsesTheIndex() throws {
        let (_, context) = try Self.tripContainer()
        let cutoff = Self.base.addingTimeInterval(10 * Self.day)
        let descriptor = FetchDescriptor<Trip>(predicate: #Predicate { $0.startDate < cutoff })
        let trips = try context.fetch(descriptor)
        #expect(trips.count == 10)
        #expect(trips.allSatisfy { $0.startDate < cutoff })
        #expect(try context.queryPlan(for: descriptor).access == .index("startDate"))
    }

    @Test func sortPlusLimitWalksTheSortedIndex() throws {
        let (_, context) = try Self.tripContainer()
        var descriptor = FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.startDate, order: .reverse)])
        descriptor.fetchLimit = 5
        let trips = try context.fetch(descriptor)
        let all = try context.fetch(FetchDescriptor<Trip>()).sorted { $0.startDate > $1.startDate }
        #expect(trips.map(\.name) == all.prefix(5).map(\.name))
        #expect(try context.queryPlan(for: descriptor).access == .orderedIndex("startDate"))
    }

    @Test func severalSortKeysBothOrdersAndOffset() throws {
        let (_, context) = try Self.tripContainer()
        var descriptor = FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.destination), SortDescriptor(\.price, order: .reverse)])
        descriptor.fetchOffset = 3
        descriptor.fetchLimit = 10
        let trips = try context.fetch(descriptor)
        let expected = try context.fetch(FetchDescriptor<Trip>()).sorted {
            $0.destination != $1.destination ? $0.destination < $1.destination : $0.price > $1.price
        }
        #expect(trips.map(\.name) == Array(expected[3..<13]).map(\.name))
    }

    @Test func optionalsSortFirstAscendingAsFoundationPlacesThem() throws {
        let (_, context) = try Self.tripContainer(count: 12)
        let trips = try context.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.notes)]))
        let reference = try context.fetch(FetchDescriptor<Trip>()).sorted(using: SortDescriptor(\Trip.notes))
        #expect(trips.map(\.notes) == reference.map(\.notes))
        #expect(trips.first?.notes == nil)
    }

    @Test func stringAndArithmeticPredicates() throws {
        let (_, context) = try Self.tripContainer()
        let contains = try context.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.name.contains("1") && $0.destination.starts(with: "T") }))
        #expect(contains.allSatisfy { $0.name.contains("1") && $0.destination == "Tokyo" })
        #expect(!contains.isEmpty)
        let arithmetic = try context.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.price * 2 > 1500 && $0.nights % 2 == 0 }))
        #expect(arithmetic.allSatisfy { $0.price * 2 > 1500 && $0.nights % 2 == 0 })
        let coalesced = try context.fetchCount(FetchDescriptor<Trip>(predicate: #Predicate { ($0.notes ?? "none") == "none" }))
        #expect(coalesced == 20)
    }

    @Test func readingInsideACodableAttributeIsRefusedWithTheKeyPath() throws {
        let (_, context) = try Self.tripContainer(count: 4)
        #expect {
            _ = try context.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.mapItem?.rawValue == "I1" }))
        } throws: { error in
            guard let error = error as? FolioError else { return false }
            return error.code == .invalidFetchDescriptor && error.message.contains("Trip.mapItem") && error.message.contains("rawValue")
        }
        #expect {
            _ = try context.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.mapItem!.rawValue == "I1" }))
        } throws: { error in
            (error as? FolioError)?.code == .invalidFetchDescriptor
        }
        #expect {
            _ = try context.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.mapItem?.rawValue)]))
        } throws: { error in
            (error as? FolioError)?.message.contains("'\\.mapItem?.rawValue'") == true
        }
    }

    @Test func comparingAWholeCodableAttributeWithNilIsAllowed() throws {
        let (_, context) = try Self.tripContainer(count: 8)
        let without = try context.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.mapItem == nil }))
        #expect(without.count == 2)
        let trip = try #require(try context.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.name == "Trip 1" })).first)
        #expect(trip.mapItem == MapItemIdentifier(rawValue: "I1"))
    }

    @Test func fetchIdentifiersDoesNotCreateModels() throws {
        let (container, _) = try Self.tripContainer(count: 10)
        let context = ModelContext(container)
        let ids = try context.fetchIdentifiers(FetchDescriptor<Trip>(predicate: #Predicate { $0.destination == "Oslo" }))
        #expect(ids.count == 2)
        #expect(context.registered.isEmpty)
        #expect(ids.allSatisfy { $0.entityName == "Trip" && !$0.isTemporary })
    }

    @Test func enumerateVisitsEveryMatchInBatches() throws {
        let (_, context) = try Self.tripContainer(count: 25)
        var names: [String] = []
        try context.enumerate(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)]), batchSize: 4) { names.append($0.name) }
        #expect(names.count == 25)
        #expect(names == names.sorted())
    }

    @Test func bulkDeleteWithAPredicate() throws {
        let (_, context) = try Self.tripContainer(count: 20)
        try context.delete(model: Trip.self, where: #Predicate { $0.destination == "Paris" })
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<Trip>()) == 16)
    }
}

@Suite("Lazily loaded results")
struct FetchResultsCollectionTests {
    @Test func batchesLoadInOrderAndADeletedRecordStillReadsAsFetched() throws {
        let (container, _) = try QueryTests.tripContainer(count: 30)
        let reader = ModelContext(container)
        let results = try reader.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)]), batchSize: 4)
        #expect(results.count == 30)
        let writer = ModelContext(container)
        let victimName = "Trip 13"
        try writer.delete(model: Trip.self, where: #Predicate { $0.name == victimName })
        try writer.save()
        let names = results.map(\.name)
        #expect(names == names.sorted())
        #expect(names.contains(victimName))
        let victim = try #require(results.first { $0.name == victimName })
        #expect(victim.isDeleted)
        #expect(results.filter(\.isDeleted).count == 1)
    }
}

@Model
final class Member {
    @Attribute(.unique) var handle: String
    var score: Int

    init(handle: String, score: Int) {
        self.handle = handle
        self.score = score
    }
}

@Suite("Unique indexes across reopening")
struct UniqueIndexReopenTests {
    @Test func aFieldIndexedOnlyForUniquenessFollowsUpdatesAndDeletesAfterTheStoreIsReopened() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        do {
            let context = ModelContext(try store.container(Member.self))
            for index in 0..<50 { context.insert(Member(handle: "m\(index)", score: index)) }
            try context.save()
        }
        // Reopened: the index on `handle` is rebuilt from the snapshot.
        let container = try store.container(Member.self)
        let context = ModelContext(container)
        // An update of the unique field and a delete.
        let renamed = try #require(try context.fetch(FetchDescriptor<Member>(predicate: #Predicate { $0.score == 7 })).first)
        renamed.handle = "seven"
        let removed = try #require(try context.fetch(FetchDescriptor<Member>(predicate: #Predicate { $0.score == 8 })).first)
        context.delete(removed)
        try context.save()

        // An equality query on the unique field sees both.
        let byHandle = FetchDescriptor<Member>(predicate: #Predicate { $0.handle == "seven" })
        #expect(try context.fetch(byHandle).map(\.score) == [7])
        #expect(try context.queryPlan(for: byHandle).access == .index("handle"))
        #expect(try context.fetch(FetchDescriptor<Member>(predicate: #Predicate { $0.handle == "m7" })).isEmpty)
        #expect(try context.fetch(FetchDescriptor<Member>(predicate: #Predicate { $0.handle == "m8" })).isEmpty)

        // An insert with an existing handle updates that member (an upsert).
        context.insert(Member(handle: "m9", score: 900))
        try context.save()
        let nine = try context.fetch(FetchDescriptor<Member>(predicate: #Predicate { $0.handle == "m9" }))
        #expect(nine.map(\.score) == [900])
        #expect(try context.fetchCount(FetchDescriptor<Member>()) == 49)
    }

    @Test func theFirstSaveAfterOpeningChecksUniquenessAgainstRecordsAlreadyStored() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        do {
            let context = ModelContext(try store.container(Member.self))
            context.insert(Member(handle: "ada", score: 1))
            try context.save()
        }
        let context = ModelContext(try store.container(Member.self))
        context.insert(Member(handle: "ada", score: 2))
        try context.save()
        let all = try context.fetch(FetchDescriptor<Member>())
        #expect(all.map(\.score) == [2])
    }
}

@Model
final class Reading {
    #Index<Reading>([\.at])

    var value: Double?
    var level: Int
    var at: Date

    init(value: Double?, level: Int, at: Date) {
        self.value = value
        self.level = level
        self.at = at
    }
}

@Suite("Scans over columns")
struct ColumnScanTests {
    static func context(_ readings: [(Double?, Int)]) throws -> ModelContext {
        let container = try ModelContainer(for: Reading.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        for (offset, reading) in readings.enumerated() {
            context.insert(Reading(value: reading.0, level: reading.1, at: Date(timeIntervalSinceReferenceDate: Double(offset) * 60)))
        }
        try context.save()
        return context
    }

    @Test func comparisonsOfNumbersAndDatesRunOverColumnsAndKeepTheOrderAndWindow() throws {
        let context = try Self.context((0..<40).map { (Double($0 % 7), $0 % 5) })
        var descriptor = FetchDescriptor<Reading>(
            predicate: #Predicate { $0.level >= 1 && $0.level <= 3 },
            sortBy: [SortDescriptor(\.level, order: .reverse), SortDescriptor(\.at)])
        descriptor.fetchOffset = 2
        descriptor.fetchLimit = 5
        let all = try context.fetch(FetchDescriptor<Reading>())
        let expected = all.filter { $0.level >= 1 && $0.level <= 3 }
            .sorted { ($0.level, -$0.at.timeIntervalSinceReferenceDate) > ($1.level, -$1.at.timeIntervalSinceReferenceDate) }
        #expect(try context.fetch(descriptor).map(\.at) == Array(expected.dropFirst(2).prefix(5)).map(\.at))
        #expect(try context.queryPlan(for: descriptor).access == .scan)
        // A date range on the indexed `at` uses its index instead; the answer is the same as filtering.
        let from = Date(timeIntervalSinceReferenceDate: 600)
        let later = try context.fetch(FetchDescriptor<Reading>(predicate: #Predicate { $0.at >= from && $0.level == 2 }))
        #expect(later.map(\.at) == all.filter { $0.at >= from && $0.level == 2 }.map(\.at))
    }

    @Test func severalComparisonsOverColumnsKeepTheRowsPassingAllOfThemInInsertionOrder() throws {
        let context = try Self.context((0..<60).map { (Double($0 % 11), $0 % 7) })
        var descriptor = FetchDescriptor<Reading>(predicate: #Predicate { $0.level > 1 && $0.level < 6 && $0.level != 4 })
        let all = try context.fetch(FetchDescriptor<Reading>())
        let expected = all.filter { $0.level > 1 && $0.level < 6 && $0.level != 4 }.map(\.at)
        #expect(expected.count == 26)
        #expect(try context.fetch(descriptor).map(\.at) == expected)
        #expect(try context.queryPlan(for: descriptor).access == .scan)
        // A limit beyond the matches and no offset give them all; an offset still skips.
        descriptor.fetchLimit = 1_000
        #expect(try context.fetch(descriptor).map(\.at) == expected)
        descriptor.fetchOffset = 20
        #expect(try context.fetch(descriptor).map(\.at) == Array(expected.dropFirst(20)))
    }

    @Test func aNilAmongTheNumbersSendsTheScanToTheGeneralPathWithTheSameAnswer() throws {
        let context = try Self.context([(2.5, 1), (nil, 2), (2.5, 3), (1.0, 4), (nil, 5), (2.5, 6)])
        let matches = try context.fetch(FetchDescriptor<Reading>(predicate: #Predicate { $0.value == 2.5 }))
        #expect(matches.map(\.level) == [1, 3, 6])
        // Top-k over the sorted index on `at`, with the same filter.
        var latest = FetchDescriptor<Reading>(predicate: #Predicate { $0.value == 2.5 }, sortBy: [SortDescriptor(\.at, order: .reverse)])
        latest.fetchLimit = 2
        #expect(try context.fetch(latest).map(\.level) == [6, 3])
        #expect(try context.queryPlan(for: latest).access == .orderedIndex("at"))
    }

    @Test func integersBeyondWhatADoubleHoldsExactlyAreComparedExactly() throws {
        let big = 1 << 60
        let context = try Self.context([(nil, big), (nil, big + 1), (nil, big - 1), (nil, 7)])
        let above = try context.fetch(FetchDescriptor<Reading>(predicate: #Predicate { $0.level > big }))
        #expect(above.map(\.level) == [big + 1])
        let exactly = try context.fetch(FetchDescriptor<Reading>(predicate: #Predicate { $0.level == big + 1 }))
        #expect(exactly.map(\.level) == [big + 1])
        // A constant a Double holds exactly, against stored integers it does not: 2^53 + 1 is not 2^53.
        let edge = 1 << 53
        let edgeContext = try Self.context([(nil, edge), (nil, edge + 1), (nil, 3)])
        let atEdge = try edgeContext.fetch(FetchDescriptor<Reading>(predicate: #Predicate { $0.level == edge }))
        #expect(atEdge.map(\.level) == [edge])
        var top = FetchDescriptor<Reading>(predicate: #Predicate { $0.level >= big }, sortBy: [SortDescriptor(\.at, order: .reverse)])
        top.fetchLimit = 1
        #expect(try context.fetch(top).map(\.level) == [big + 1])
    }
}
