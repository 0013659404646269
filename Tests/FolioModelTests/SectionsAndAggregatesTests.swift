import Foundation
import Testing
@testable import Folio
@_spi(FolioEngine) import FolioStorage

@Suite("Sections, aggregates and string predicates")
struct SectionsAndAggregatesTests {
    @Test func sectionsGroupByDestinationInSortOrder() throws {
        let (_, context) = try QueryTests.tripContainer(count: 20)
        let sections = try context.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.price)]), sectionBy: \.destination)
        #expect(sections.sectionTitles == ["Lima", "Oslo", "Paris", "Rome", "Tokyo"])
        #expect(sections.map(\.count) == [4, 4, 4, 4, 4])
        let rome = try #require(sections[sectionTitle: "Rome"])
        #expect(rome.id == "Rome")
        #expect(rome.allSatisfy { $0.destination == "Rome" })
        #expect(rome.map(\.price) == rome.map(\.price).sorted())
        #expect(sections[sectionTitle: "Nowhere"] == nil)
    }

    @Test func optionalSectionKeysPutNilInTheEmptySection() throws {
        let (_, context) = try QueryTests.tripContainer(count: 9)
        let sections = try context.fetch(FetchDescriptor<Trip>(), sectionBy: \.notes)
        #expect(sections.first?.title == "")
        #expect(sections.first?.count == 3)
        #expect(sections.count == 7)
    }

    @Test func nilAndEmptyTitlesShareTheFirstSectionNilFirstEachInTheDescriptorsOrder() throws {
        let (_, context) = try QueryTests.tripContainer(count: 12)
        let trips = try context.fetch(FetchDescriptor<Trip>())
        for trip in trips where trip.name.hasSuffix("1") || trip.name.hasSuffix("5") { trip.notes = "" }
        try context.save()
        let byName = FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name, order: .reverse)])
        let sections = try context.fetch(byName, sectionBy: \.notes)
        let ordered = try context.fetch(byName)
        let expectedFirst = ordered.filter { $0.notes == nil } + ordered.filter { $0.notes == "" }
        #expect(sections.first?.title == "")
        #expect(sections.first?.map(\.name) == expectedFirst.map(\.name))
        #expect(sections.sectionTitles == [""] + Set(ordered.compactMap(\.notes).filter { !$0.isEmpty }).sorted())
        for section in sections.dropFirst() {
            #expect(section.map(\.name) == ordered.filter { $0.notes == section.title }.map(\.name))
        }
    }

    @Test func aggregatesComputeOverStoredValues() throws {
        let (container, seeded) = try QueryTests.tripContainer(count: 30)
        let trips = try seeded.fetch(FetchDescriptor<Trip>())
        let context = ModelContext(container)
        let total = try context.sum(\Trip.price)
        #expect(abs(total - trips.reduce(0) { $0 + $1.price }) < 1e-9)
        let romeNights = try context.sum(\Trip.nights, where: #Predicate { $0.destination == "Rome" })
        #expect(romeNights == trips.filter { $0.destination == "Rome" }.reduce(0) { $0 + $1.nights })
        #expect(try context.minimum(\Trip.price) == trips.map(\.price).min())
        #expect(try context.maximum(\Trip.startDate) == trips.map(\.startDate).max())
        let average = try #require(try context.average(\Trip.price))
        #expect(abs(average - trips.reduce(0) { $0 + $1.price } / 30) < 1e-9)
        #expect(try context.average(\Trip.price, where: #Predicate { $0.destination == "Atlantis" }) == nil)
        let counts = try context.count(Trip.self, groupedBy: \.destination)
        #expect(counts == ["Rome": 6, "Paris": 6, "Tokyo": 6, "Lima": 6, "Oslo": 6])
        let maxima = try context.maximum(\Trip.price, groupedBy: \.destination)
        #expect(maxima["Rome"] == trips.filter { $0.destination == "Rome" }.map(\.price).max())
        #expect(context.registered.isEmpty)
    }

    @Test func groupCountsFromTheIndexEqualCountsOverTheRecords() throws {
        let (container, context) = try QueryTests.tripContainer(count: 40)
        let everything = #Predicate<Trip> { _ in true }
        func bothWays() throws -> (indexed: [String: Int], scanned: [String: Int]) {
            (try context.count(Trip.self, groupedBy: \.destination), try context.count(Trip.self, where: everything, groupedBy: \.destination))
        }
        var counts = try bothWays()
        #expect(counts.indexed == counts.scanned)
        #expect(counts.indexed.values.reduce(0, +) == 40)
        #expect(try container.index.isIndexed("Trip", "destination"))

        // Saved changes move records between the index's keys.
        let trips = try context.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)]))
        trips[0].destination = "Quito"
        context.delete(trips[1])
        counts = try bothWays()
        #expect(counts.indexed == counts.scanned)  // unsaved changes count, through the records
        #expect(counts.indexed["Quito"] == 1)
        try context.save()
        counts = try bothWays()
        #expect(counts.indexed == counts.scanned)
        #expect(counts.indexed["Quito"] == 1)
        #expect(counts.indexed.values.reduce(0, +) == 39)
    }

    @Test func localizedStandardContainsAndCaseInsensitiveCompareCompileAndWork() throws {
        let container = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        for name in ["Crème Brûlée Tour", "creme stop", "Other"] {
            context.insert(Trip(name: name, destination: "Paris", startDate: .now, price: 1))
        }
        try context.save()
        let found = try context.fetch(
            FetchDescriptor<Trip>(
                predicate: #Predicate { $0.name.localizedStandardContains("CREME") },
                sortBy: [SortDescriptor(\.name)]))
        #expect(found.map(\.name) == ["Crème Brûlée Tour", "creme stop"])
        let orderedSame = ComparisonResult.orderedSame
        let same = try context.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.name.caseInsensitiveCompare("OTHER") == orderedSame }))
        #expect(same.map(\.name) == ["Other"])
    }
}
