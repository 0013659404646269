import Foundation
import Testing
@testable import Folio
@_spi(FolioEngine) import FolioStorage

/// A private subclass, which Foundation cannot look up by name:
/// a container opened later for `PreviewTrip` alone cannot find it by the name the store records.
@Model
private final class PreviewSecretTrip: PreviewTrip {
    var codename: String

    init(name: String, codename: String) {
        self.codename = codename
        super.init(name: name, destination: "Undisclosed", price: 1000)
    }
}

/// Two versions of the trips' models that list `PreviewTrip` alone, with a stage between them.
private enum PreviewTripsV1: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(1, 0, 0) }
    static var models: [any PersistentModel.Type] { [PreviewTrip.self] }
}

private enum PreviewTripsV2: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(2, 0, 0) }
    static var models: [any PersistentModel.Type] { [PreviewTrip.self] }
}

private enum PreviewTripsPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [PreviewTripsV1.self, PreviewTripsV2.self] }
    static var stages: [MigrationStage] { [.lightweight(fromVersion: PreviewTripsV1.self, toVersion: PreviewTripsV2.self)] }
}

@Suite("Subclasses the schema does not list")
struct UnlistedSubclassTests {
    /// A container for `PreviewTrip` alone, in memory or in a new store directory.
    private static func tripContainer(inMemory: Bool, at store: TemporaryStore) throws -> ModelContainer {
        let configuration = inMemory ? ModelConfiguration(isStoredInMemoryOnly: true) : ModelConfiguration(url: store.url)
        return try ModelContainer(for: PreviewTrip.self, configurations: configuration)
    }

    /// The SampleTrips preview data: two plain trips, a business trip and a personal trip.
    private static func insertSampleTrips(into context: ModelContext) {
        context.insert(PreviewTrip(name: "Weekend", destination: "Rome", price: 300, nights: 2))
        context.insert(PreviewBusinessTrip(name: "Summit", destination: "Oslo", price: 900, perdiem: 80))
        context.insert(PreviewPersonalTrip(name: "Reunion", destination: "Rome", price: 400, reason: .reunion))
        context.insert(PreviewTrip(name: "Getaway", destination: "Lima", price: 700, nights: 5))
    }

    private static func kinds(_ trips: [PreviewTrip]) -> [String: String] {
        Dictionary(uniqueKeysWithValues: trips.map { ($0.name, String(describing: type(of: $0))) })
    }

    private static let expectedKinds = [
        "Weekend": "PreviewTrip", "Summit": "PreviewBusinessTrip", "Reunion": "PreviewPersonalTrip", "Getaway": "PreviewTrip",
    ]

    @Test(arguments: [true, false])
    func aContainerForTheBaseClassStoresAndFetchesTheSubclassesInsertedIntoIt(inMemory: Bool) throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let container = try Self.tripContainer(inMemory: inMemory, at: store)
        let context = ModelContext(container)
        Self.insertSampleTrips(into: context)

        // Unsaved, the pending changes hold them.
        #expect(Self.kinds(try context.fetch(FetchDescriptor<PreviewTrip>())) == Self.expectedKinds)
        #expect(try context.fetchCount(FetchDescriptor<PreviewTrip>()) == 4)
        #expect(try context.fetchIdentifiers(FetchDescriptor<PreviewTrip>()).count == 4)

        try context.save()
        #expect(Self.kinds(try context.fetch(FetchDescriptor<PreviewTrip>())) == Self.expectedKinds)
        #expect(try context.fetchCount(FetchDescriptor<PreviewTrip>()) == 4)
        let identifiers = try context.fetchIdentifiers(FetchDescriptor<PreviewTrip>())
        #expect(Set(identifiers.map(\.entityName)) == ["PreviewTrip", "PreviewBusinessTrip", "PreviewPersonalTrip"])

        // Another context reads them from the store, as their own classes with their own values.
        let reader = ModelContext(container)
        let trips = try reader.fetch(FetchDescriptor<PreviewTrip>(sortBy: [SortDescriptor(\.name)]))
        #expect(trips.map(\.name) == ["Getaway", "Reunion", "Summit", "Weekend"])
        #expect((trips[2] as? PreviewBusinessTrip)?.perdiem == 80)
        #expect((trips[1] as? PreviewPersonalTrip)?.reason == .reunion)
        #expect(try reader.fetchCount(FetchDescriptor<PreviewTrip>()) == 4)
    }

    @Test(arguments: [true, false])
    func typeChecksAndFetchesOfTheSubclassFindItBeforeAndAfterSaving(inMemory: Bool) throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let context = ModelContext(try Self.tripContainer(inMemory: inMemory, at: store))
        Self.insertSampleTrips(into: context)
        for saved in [false, true] {
            if saved { try context.save() }
            let business = try context.fetch(FetchDescriptor<PreviewTrip>(predicate: #Predicate { $0 is PreviewBusinessTrip }))
            #expect(business.map(\.name) == ["Summit"], "saved: \(saved)")
            let notBusiness = FetchDescriptor<PreviewTrip>(predicate: #Predicate { !($0 is PreviewBusinessTrip) })
            #expect(try context.fetchCount(notBusiness) == 3, "saved: \(saved)")
            let generous = FetchDescriptor<PreviewBusinessTrip>(predicate: #Predicate { $0.perdiem > 50 })
            #expect(try context.fetch(generous).map(\.name) == ["Summit"], "saved: \(saved)")
            #expect(try context.fetchCount(FetchDescriptor<PreviewPersonalTrip>()) == 1, "saved: \(saved)")
        }
    }

    @Test(arguments: [true, false])
    func sectionsAndAggregatesOfTheBaseClassCountTheSubclasses(inMemory: Bool) throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let context = ModelContext(try Self.tripContainer(inMemory: inMemory, at: store))
        Self.insertSampleTrips(into: context)
        for saved in [false, true] {
            if saved { try context.save() }
            let sections = try context.fetch(FetchDescriptor<PreviewTrip>(sortBy: [SortDescriptor(\.name)]), sectionBy: \.destination)
            #expect(sections.sectionTitles == ["Lima", "Oslo", "Rome"], "saved: \(saved)")
            #expect(sections[sectionTitle: "Rome"]?.map(\.name) == ["Reunion", "Weekend"], "saved: \(saved)")
            #expect(sections[sectionTitle: "Oslo"]?.first is PreviewBusinessTrip, "saved: \(saved)")
            #expect(try context.sum(\PreviewTrip.price) == 2300, "saved: \(saved)")
            #expect(try context.sum(\PreviewTrip.nights) == 9, "saved: \(saved)")
            #expect(try context.count(PreviewTrip.self, groupedBy: \.destination) == ["Rome": 2, "Oslo": 1, "Lima": 1], "saved: \(saved)")
            #expect(try context.sum(\PreviewBusinessTrip.perdiem) == 80, "saved: \(saved)")
            #expect(try context.maximum(\PreviewTrip.price, where: #Predicate { $0 is PreviewPersonalTrip }) == 400, "saved: \(saved)")
        }
        // Counting by the index, with no unsaved changes, in a new context.
        #expect(try ModelContext(context.container).count(PreviewTrip.self, groupedBy: \.destination) == ["Rome": 2, "Oslo": 1, "Lima": 1])
    }

    @Test func aContainerReopenedForTheBaseClassMakesTheSubclassRecordsAsTheirOwnClasses() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        do {
            let context = ModelContext(try store.container(PreviewTrip.self))
            Self.insertSampleTrips(into: context)
            try context.save()
        }
        let container = try store.container(PreviewTrip.self)
        #expect(container.schema.entitiesByName["PreviewBusinessTrip"]?.modelType == PreviewBusinessTrip.self)
        let context = ModelContext(container)
        // Counted from the store's files, before the records are read.
        #expect(try context.fetchCount(FetchDescriptor<PreviewTrip>()) == 4)
        let trips = try context.fetch(FetchDescriptor<PreviewTrip>())
        #expect(Self.kinds(trips) == Self.expectedKinds)
        #expect(try context.fetch(FetchDescriptor<PreviewBusinessTrip>()).first?.perdiem == 80)

        // Changing and deleting them works as for listed classes.
        let summit = try #require(trips.first { $0.name == "Summit" } as? PreviewBusinessTrip)
        summit.perdiem = 95
        context.delete(try #require(trips.first { $0.name == "Reunion" }))
        try context.save()
        let reopened = ModelContext(try store.container(PreviewTrip.self))
        #expect(try reopened.fetch(FetchDescriptor<PreviewBusinessTrip>()).map(\.perdiem) == [95])
        #expect(try reopened.fetchCount(FetchDescriptor<PreviewTrip>()) == 3)
    }

    @Test func theStoreRecordsUnlistedSubclassesWithTheChecksumOfASchemaListingThem() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let container = try store.container(PreviewTrip.self)
        let context = ModelContext(container)
        Self.insertSampleTrips(into: context)
        try context.save()

        let recorded = try RecordedSchema(parsing: try #require(container.store.schema))
        let business = try #require(recorded.entities["PreviewBusinessTrip"])
        #expect(business.isUnlisted && business.superentity == "PreviewTrip")
        #expect(business.className == "FolioModelTests.PreviewBusinessTrip")
        #expect(recorded.entities["PreviewTrip"]?.isUnlisted == false)
        let listingAll = Schema([PreviewTrip.self, PreviewBusinessTrip.self, PreviewPersonalTrip.self])
        #expect(recorded.checksum == listingAll.checksum)
        #expect(recorded.listedOnly.checksum == Schema([PreviewTrip.self]).checksum)
        #expect(recorded.listedOnly.entities.keys.sorted() == ["PreviewTrip"])

        // A later version that lists them opens the store as it is.
        let listing = ModelContext(try ModelContainer(for: listingAll, configurations: [ModelConfiguration(url: store.url)]))
        #expect(Self.kinds(try listing.fetch(FetchDescriptor<PreviewTrip>())) == Self.expectedKinds)
    }

    @Test func subclassesAnEarlierVersionListedAreKeptWhenTheModelsListOnlyTheBaseClass() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        do {
            let context = ModelContext(try store.container(PreviewTrip.self, PreviewBusinessTrip.self, PreviewPersonalTrip.self))
            Self.insertSampleTrips(into: context)
            try context.save()
        }
        let container = try store.container(PreviewTrip.self)
        #expect(container.schema.entitiesByName["PreviewPersonalTrip"]?.modelType == PreviewPersonalTrip.self)
        let context = ModelContext(container)
        #expect(Self.kinds(try context.fetch(FetchDescriptor<PreviewTrip>())) == Self.expectedKinds)
        let recorded = try RecordedSchema(parsing: try #require(container.store.schema))
        #expect(recorded.entities["PreviewBusinessTrip"]?.isUnlisted == true)
    }

    @Test func aMigrationPlanFindsTheStoresVersionWithoutItsUnlistedSubclassesAndKeepsTheirRecords() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let configuration = ModelConfiguration(url: store.url)
        do {
            let container = try ModelContainer(
                for: Schema(versionedSchema: PreviewTripsV1.self), migrationPlan: PreviewTripsPlan.self,
                configurations: configuration)
            let context = ModelContext(container)
            Self.insertSampleTrips(into: context)
            try context.save()
        }
        let container = try ModelContainer(
            for: Schema(versionedSchema: PreviewTripsV2.self), migrationPlan: PreviewTripsPlan.self,
            configurations: configuration)
        let context = ModelContext(container)
        #expect(Self.kinds(try context.fetch(FetchDescriptor<PreviewTrip>())) == Self.expectedKinds)
        let recorded = try RecordedSchema(parsing: try #require(container.store.schema))
        #expect(recorded.version == "2.0.0" && recorded.entities["PreviewBusinessTrip"]?.isUnlisted == true)
    }

    @Test func aSubclassWhoseClassCannotBeFoundByNameIsKeptAndItsRecordsStandInAsItsSuperclass() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        do {
            let context = ModelContext(try store.container(PreviewTrip.self))
            context.insert(PreviewSecretTrip(name: "Heist", codename: "Nightjar"))
            context.insert(PreviewTrip(name: "Weekend", destination: "Rome", price: 300))
            try context.save()
            let recorded = try RecordedSchema(parsing: try #require(context.container.store.schema))
            #expect(recorded.entities["PreviewSecretTrip"]?.isUnlisted == true)
            #expect(recorded.entities["PreviewSecretTrip"]?.className == nil)
        }
        do {
            let container = try store.container(PreviewTrip.self)
            let secret = try #require(container.schema.entitiesByName["PreviewSecretTrip"])
            #expect(secret.isRecordedOnly && secret.modelType == PreviewTrip.self && secret.superentity?.name == "PreviewTrip")
            let context = ModelContext(container)
            #expect(try context.fetchCount(FetchDescriptor<PreviewTrip>()) == 2)
            let trips = try context.fetch(FetchDescriptor<PreviewTrip>(sortBy: [SortDescriptor(\.name)]))
            #expect(trips.map(\.name) == ["Heist", "Weekend"])
            #expect(trips.allSatisfy { type(of: $0) == PreviewTrip.self })
            #expect(try context.sum(\PreviewTrip.price) == 1300)
            // A change to the stand-in keeps the record's class and its own values.
            trips[0].price = 1500
            try context.save()
        }
        do {
            // Its own class, met again, takes the entity back: the stored record is made as one.
            let context = ModelContext(try store.container(PreviewTrip.self))
            let before = try context.fetch(FetchDescriptor<PreviewTrip>(predicate: #Predicate { $0.name == "Heist" }))
            #expect(before.count == 1 && type(of: before[0]) == PreviewTrip.self)
            context.insert(PreviewSecretTrip(name: "Caper", codename: "Kestrel"))
            let secrets = try context.fetch(FetchDescriptor<PreviewSecretTrip>(sortBy: [SortDescriptor(\.name)]))
            #expect(secrets.map(\.name) == ["Caper", "Heist"])
            #expect(secrets.map(\.codename) == ["Kestrel", "Nightjar"])
            #expect(secrets.last?.price == 1500)
            #expect(try context.fetch(FetchDescriptor<PreviewTrip>(predicate: #Predicate { $0.name == "Heist" })).first is PreviewSecretTrip)
            try context.save()
        }
        do {
            // Deleting a stand-in deletes the record.
            let context = ModelContext(try store.container(PreviewTrip.self))
            for trip in try context.fetch(FetchDescriptor<PreviewTrip>()) where trip.name != "Weekend" { context.delete(trip) }
            try context.save()
            #expect(try ModelContext(try store.container(PreviewTrip.self)).fetch(FetchDescriptor<PreviewTrip>()).map(\.name) == ["Weekend"])
        }
    }

    @Test func aRelationshipHoldingAnUnlistedSubclassStoresIt() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        do {
            let context = ModelContext(try store.container(PreviewItinerary.self))
            let itinerary = PreviewItinerary(title: "Spring")
            itinerary.trips = [
                PreviewBusinessTrip(name: "Summit", destination: "Oslo", price: 900, perdiem: 80),
                PreviewTrip(name: "Weekend", destination: "Rome", price: 300),
            ]
            context.insert(itinerary)
            try context.save()
        }
        let context = ModelContext(try store.container(PreviewItinerary.self))
        let itinerary = try #require(try context.fetch(FetchDescriptor<PreviewItinerary>()).first)
        #expect(Set(itinerary.trips.map { String(describing: type(of: $0)) }) == ["PreviewBusinessTrip", "PreviewTrip"])
        #expect(try context.fetchCount(FetchDescriptor<PreviewTrip>()) == 2)
    }

    @Test(arguments: [true, false])
    func aModelOfAClassOutsideTheSchemaIsRefusedAtSaveNamingTheClass(inMemory: Bool) throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let container = try Self.tripContainer(inMemory: inMemory, at: store)
        let context = ModelContext(container)
        let stranger = PreviewStranger(name: "Nobody")
        stranger.trip = PreviewTrip(name: "Weekend", destination: "Rome", price: 300)
        context.insert(stranger)
        let error = try #require(throws: FolioError.self) { try context.save() }
        #expect(error.code == .invalidModel)
        #expect(error.message.contains("PreviewStranger") && error.message.contains("ModelContainer"))
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<PreviewTrip>()) == 0, "nothing was written")
        #expect(throws: FolioError.self) { try context.fetch(FetchDescriptor<PreviewStranger>()) }

        // Without it, the rest saves, and the store opens again.
        context.delete(stranger)
        try context.save()
        if !inMemory {
            #expect(try ModelContext(try Self.tripContainer(inMemory: false, at: store)).fetchCount(FetchDescriptor<PreviewTrip>()) == 0)
        }
    }

    @Test func aContainerAlreadyOpenOnTheStoreFindsSubclassesAnotherOneStored() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let reader = ModelContext(try store.container(PreviewTrip.self))
        // The reader's index holds the store's records from here on; the writer's save reaches it as a
        // change on disk.
        #expect(try reader.fetch(FetchDescriptor<PreviewTrip>()).isEmpty)
        let writer = ModelContext(try store.container(PreviewTrip.self))
        Self.insertSampleTrips(into: writer)
        try writer.save()
        #expect(Self.kinds(try reader.fetch(FetchDescriptor<PreviewTrip>())) == Self.expectedKinds)
        #expect(try reader.fetchCount(FetchDescriptor<PreviewTrip>()) == 4)
    }

    @Test func addingASubclassGivesANewSchemaAndLeavesTheOneReadBeforeAsItWas() throws {
        let container = try ModelContainer(for: PreviewTrip.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let before = container.schema
        let baseBefore = try #require(before.entity(for: PreviewTrip.self))
        let context = ModelContext(container)
        context.insert(PreviewBusinessTrip(name: "Summit", destination: "Oslo", price: 900, perdiem: 80))
        try context.save()

        let after = container.schema
        #expect(after !== before)
        #expect(after.entities.map(\.name) == ["PreviewBusinessTrip", "PreviewTrip"])
        #expect(after.entity(for: PreviewBusinessTrip.self)?.superentity === after.entity(for: PreviewTrip.self))
        #expect(after.entity(for: PreviewTrip.self)?.subentities.map(\.name) == ["PreviewBusinessTrip"])
        // The schema read before still describes the models it was made for, and nothing else.
        #expect(before.entities.map(\.name) == ["PreviewTrip"])
        #expect(before.entity(for: PreviewBusinessTrip.self) == nil)
        #expect(baseBefore.subentities.isEmpty)
        #expect(before.entity(for: PreviewTrip.self) === baseBefore)
        #expect(after.entity(for: PreviewTrip.self) !== baseBefore)
    }

    @Test func addingASubclassFromManyThreadsAtOnceGivesOneSchemaWithIt() async throws {
        let container = try ModelContainer(for: PreviewTrip.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for n in 0..<8 {
                group.addTask {
                    let context = ModelContext(container)
                    if n.isMultiple(of: 2) {
                        context.insert(PreviewBusinessTrip(name: "b\(n)", destination: "Oslo", price: 1, perdiem: 1))
                    } else {
                        context.insert(PreviewPersonalTrip(name: "p\(n)", destination: "Rome", price: 1, reason: .family))
                    }
                    try context.save()
                }
            }
            try await group.waitForAll()
        }
        let names = container.schema.entities.map(\.name)
        #expect(names == ["PreviewBusinessTrip", "PreviewPersonalTrip", "PreviewTrip"])
        let context = ModelContext(container)
        #expect(try context.fetchCount(FetchDescriptor<PreviewTrip>()) == 8)
        #expect(try context.fetchCount(FetchDescriptor<PreviewBusinessTrip>()) == 4)
    }
}
