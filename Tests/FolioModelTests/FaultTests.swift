import Foundation
import Observation
import Testing
@_spi(FolioEngine) import FolioStorage
@testable import Folio

/// Fetched models are faults: each property is decoded from the stored record when first read.
@Suite("Faults: properties loaded on first read")
struct FaultTests {
    /// A store with `count` trips saved, and a fresh context on it.
    static func savedTrips(_ count: Int) throws -> (ModelContainer, ModelContext) {
        let (container, _) = try QueryTests.tripContainer(count: count)
        return (container, ModelContext(container))
    }

    /// Replaces stored values of a record through the storage engine, as a hand edit or another tool might.
    static func overwrite(_ container: ModelContainer, _ model: any PersistentModel, _ values: [String: JSONValue]) throws {
        let number = try #require(model.persistentModelID.recordNumber)
        _ = try container.store.write(author: "test") { transaction in
            try transaction.update(entity: "Trip", id: number, values: values)
        }
        try container.syncIndex()
    }

    @Test func aFetchedModelReadsEveryPropertyAsStored() throws {
        let (_, seeded) = try QueryTests.tripContainer(count: 12)
        let expected = try seeded.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)]))
            .map { [$0.name, $0.destination, "\($0.startDate)", "\($0.price)", "\($0.nights)", "\($0.notes as Any)", "\($0.mapItem as Any)"] }
        let context = ModelContext(seeded.container)
        let trips = try context.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)]))
        #expect(trips.allSatisfy { $0.persistentBackingData.faultValues != nil })
        let read = trips.map {
            [$0.name, $0.destination, "\($0.startDate)", "\($0.price)", "\($0.nights)", "\($0.notes as Any)", "\($0.mapItem as Any)"]
        }
        #expect(read == expected)
        #expect(trips.allSatisfy { $0.persistentBackingData.loadError == nil })
    }

    @Test func aFaultReadsTheValuesOfItsFetchUntilFetchedAgain() throws {
        let (container, context) = try Self.savedTrips(5)
        let trip = try #require(try context.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.name == "Trip 1" })).first)
        let other = ModelContext(container)
        let same = try #require(try other.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.name == "Trip 1" })).first)
        same.destination = "Quito"
        try other.save()
        // Not read before the other context saved: still the values as fetched, as a loaded model's are.
        #expect(trip.destination == "Paris")
        _ = try context.fetch(FetchDescriptor<Trip>())
        #expect(trip.destination == "Quito")
    }

    @Test func settingAPropertyOfAFaultSavesOnlyThatPropertyAndKeepsTheOthers() throws {
        let (container, context) = try Self.savedTrips(6)
        let trips = try context.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)]))
        for trip in trips { trip.price += 1 }  // read and set price only
        trips[2].notes = "changed"  // set without reading
        try context.save()
        #expect(trips[2].name == "Trip 2")
        #expect(trips[2].notes == "changed")

        let fresh = ModelContext(container)
        let reloaded = try fresh.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)]))
        #expect(reloaded.map(\.price) == trips.map(\.price))
        #expect(reloaded.map(\.destination) == ["Rome", "Paris", "Tokyo", "Lima", "Oslo", "Rome"])
        #expect(reloaded[2].notes == "changed")
        #expect(reloaded[1].mapItem == MapItemIdentifier(rawValue: "I1"))
    }

    @Test func deletingAFaultKeepsItsPreservedValuesInTheHistory() throws {
        let container = try ModelContainer(for: Ticket.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let seeding = ModelContext(container)
        seeding.insert(Ticket(code: "Z9", seat: 12))
        try seeding.save()
        let context = ModelContext(container)
        let ticket = try #require(try context.fetch(FetchDescriptor<Ticket>()).first)
        context.delete(ticket)  // never read
        try context.save()
        let history = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        guard case .delete(let delete)? = history.last?.changes.first, let typed = delete as? DefaultHistoryDelete<Ticket> else {
            Issue.record("expected a delete"); return
        }
        #expect(typed.tombstone[\Ticket.code] as? String == "Z9")
    }

    @Test func aStoredValueThatDoesNotDecodeReadsAsEmptyAndIsNotOverwrittenBySavingOthers() throws {
        let (container, context) = try Self.savedTrips(3)
        let original = try #require(try context.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.name == "Trip 0" })).first)
        try Self.overwrite(container, original, ["price": .string("not a number")])

        let reader = ModelContext(container)
        let trip = try #require(try reader.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.name == "Trip 0" })).first)
        #expect(trip.price == 0)
        let error = try #require(trip.persistentBackingData.loadError)
        #expect(error.code == .modelCoding)
        #expect("\(error)".contains("Trip record") && "\(error)".contains("'price'"))
        #expect(trip.name == "Trip 0")

        trip.name = "Renamed"
        try reader.save()
        let number = try #require(trip.persistentModelID.recordNumber)
        #expect(try container.index.records[number]?.values["price"] == .string("not a number"))
        #expect(try container.index.records[number]?.values["name"] == .string("Renamed"))
    }

    @Test func propertiesToFetchLoadsDuringTheFetchSoThatBadValuesMakeItThrow() throws {
        let (container, context) = try Self.savedTrips(3)
        let original = try #require(try context.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.name == "Trip 0" })).first)
        try Self.overwrite(container, original, ["price": .string("not a number")])

        var descriptor = FetchDescriptor<Trip>(predicate: #Predicate { $0.name == "Trip 0" })
        descriptor.propertiesToFetch = [\.price]
        #expect {
            _ = try ModelContext(container).fetch(descriptor)
        } throws: { error in
            (error as? FolioError)?.code == .modelCoding && "\(error)".contains("price")
        }
        descriptor.predicate = #Predicate { $0.name == "Trip 1" }
        let loaded = try #require(try ModelContext(container).fetch(descriptor).first)
        #expect(loaded.persistentBackingData.faultValues == nil)
        #expect(loaded.destination == "Paris")
    }

    @Test func aMissingValueReadsAsTheDeclaredDefaultEvaluatedOnce() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let container = try store.container(Stamp.self)
        let context = ModelContext(container)
        context.insert(Stamp(label: "a"))
        try context.save()
        let stamp = try #require(try context.fetch(FetchDescriptor<Stamp>()).first)
        let number = try #require(stamp.persistentModelID.recordNumber)
        // A record written before `createdAt` existed.
        _ = try container.store.write(author: nil) { transaction in
            try transaction.update(entity: "Stamp", id: number, values: ["label": .string("a")])
            try transaction.insert(entity: "Stamp", id: transaction.allocateID(), values: ["label": .string("b")])
        }
        try container.syncIndex()
        let reader = ModelContext(container)
        let old = try #require(try reader.fetch(FetchDescriptor<Stamp>(predicate: #Predicate { $0.label == "b" })).first)
        let first = old.createdAt
        #expect(old.createdAt == first)
        #expect(old.note == nil)
        #expect(old.persistentBackingData.loadError == nil)
    }

    @Test func aPropertyWithNoDefaultAndNoEmptyValueLoadsDuringTheFetch() throws {
        let container = try ModelContainer(for: Graded.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        #expect(container.schema.entitiesByName["Graded"]?.loadsCompletelyWhenFetched == true)
        #expect(container.schema.entitiesByName["Trip"]?.loadsCompletelyWhenFetched != true)
        let context = ModelContext(container)
        let graded = Graded(name: "a", grade: .high)
        context.insert(graded)
        try context.save()
        let number = try #require(graded.persistentModelID.recordNumber)
        _ = try container.store.write(author: nil) { transaction in
            try transaction.update(entity: "Graded", id: number, values: ["grade": .int(7)])
        }
        try container.syncIndex()
        // A fault could not give `grade` any value: the fetch loads the model and reports the record.
        #expect {
            _ = try ModelContext(container).fetch(FetchDescriptor<Graded>())
        } throws: { error in
            (error as? FolioError)?.code == .modelCoding && "\(error)".contains("grade")
        }
    }

    @Test func nothingFolioMakesLeavesAPropertyWithNoDefaultAndNoEmptyValueWithoutAValue() throws {
        #expect(!PlaceholderValue.canStandIn(Graded.self))
        #expect(PlaceholderValue.canStandIn(Trip.self))
        #expect(PlaceholderValue.make(Graded.self) == nil, "no placeholder model of a class that cannot stand in")

        let container = try ModelContainer(for: Graded.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        let graded = Graded(name: "a", grade: .high)
        context.insert(graded)
        try context.save()
        // An identifier the store does not have: the placeholder is not a `Graded` whose grade is nothing.
        let missing = try #require(graded.persistentModelID.recordNumber) + 1000
        let unknown = PersistentIdentifier(entityName: "Graded", storeIdentifier: container.storeIdentifier, recordNumber: missing)
        #expect(context.model(for: unknown) as? Graded == nil)

        // A lazy fetch of such a class loads its models, so that a bad record fails the fetch.
        let number = try #require(graded.persistentModelID.recordNumber)
        _ = try container.store.write(author: nil) { transaction in
            try transaction.update(entity: "Graded", id: number, values: ["grade": .int(7)])
        }
        try container.syncIndex()
        #expect(throws: FolioError.self) { _ = try ModelContext(container).fetch(FetchDescriptor<Graded>(), batchSize: 10) }
        _ = try container.store.write(author: nil) { transaction in
            try transaction.update(entity: "Graded", id: number, values: ["grade": .int(1)])
        }
        try container.syncIndex()
        let lazy = try ModelContext(container).fetch(FetchDescriptor<Graded>(), batchSize: 10)
        #expect(lazy.map(\.grade) == [.low])
    }

    /// `Knot` cannot stand in (its `Grade` has no empty value), so neither can `Loop`, whose required
    /// `knot` would need a placeholder `Knot`. Asking about `Knot` first meets `Loop` while `Knot` is
    /// still being checked; `Loop`'s answer must not keep the assumption made for `Knot` meanwhile.
    @Test func aClassOnACycleOfRequiredRelationshipsCannotStandInWhenAnotherOnTheCycleCannot() throws {
        #expect(!PlaceholderValue.canStandIn(Knot.self))
        #expect(!PlaceholderValue.canStandIn(Loop.self))
        #expect(PlaceholderValue.make(Loop.self) == nil)

        // So an identifier the store does not have gives no `Loop` whose `knot` would have no value.
        let container = try ModelContainer(for: Knot.self, Loop.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let unknown = PersistentIdentifier(entityName: "Loop", storeIdentifier: container.storeIdentifier, recordNumber: 42)
        #expect(ModelContext(container).model(for: unknown) as? Loop == nil)
    }

    /// Whether a class can stand in is worked out once, on the first thread that asks. Another thread
    /// asking meanwhile gets the same answer, not the "no" that a question asked again on the checking
    /// thread itself gets (which made a container built at that moment load the class completely).
    @Test func aClassBeingCheckedOnOneThreadGetsTheSameAnswerOnAnother() throws {
        let first = Thread {
            SlowEmptyValue.firstAnswer = PlaceholderValue.canStandIn(Slowly.self)
            SlowEmptyValue.checkFinished.signal()
        }
        first.start()
        // Asked while the first thread is inside the check (building `SlowEmptyValue`'s empty value).
        #expect(SlowEmptyValue.checkStarted.wait(timeout: .now() + 120) == .success)
        #expect(PlaceholderValue.canStandIn(Slowly.self))
        SlowEmptyValue.finishCheck.signal()
        #expect(SlowEmptyValue.checkFinished.wait(timeout: .now() + 120) == .success)
        #expect(SlowEmptyValue.firstAnswer == true)
    }

    /// An instance made on another model's backing data would have nothing to load its properties
    /// from (and `Grade` has no empty value to show): `init(backingData:)` refuses it with a typed
    /// error, for a new model, a saved one, a fetched one and a subclass alike.
    @Test func initWithAnotherModelsBackingDataThrowsInsteadOfMakingAnInstanceWithNothingToShow() throws {
        func expectRefused<T: PersistentModel>(_ type: T.Type, _ backing: ModelBackingData) {
            do {
                _ = try T(backingData: backing)
                Issue.record("\(T.self)(backingData:) accepted another model's backing data")
            } catch let error as FolioError {
                #expect(error.code == .invalidModel)
                #expect("\(error)".contains("already belongs to a model"))
            } catch {
                Issue.record("unexpected \(error)")
            }
        }
        let fresh = Graded(name: "a", grade: .high)
        expectRefused(Graded.self, fresh.persistentBackingData)
        expectRefused(Graded.self, ModelBackingData._forNewInstance())

        let container = try ModelContainer(
            for: Graded.self, Recipe.self, BakedGood.self, Beverage.self, Ingredient.self, Cookbook.self,
            configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        context.insert(fresh)
        let bread = BakedGood(name: "bread", ovenTemperature: 200)
        context.insert(bread)
        try context.save()
        expectRefused(Graded.self, fresh.persistentBackingData)
        expectRefused(BakedGood.self, bread.persistentBackingData)
        expectRefused(Recipe.self, bread.persistentBackingData)
        let fetched = try #require(try ModelContext(container).fetch(FetchDescriptor<Graded>()).first)
        expectRefused(Graded.self, fetched.persistentBackingData)
        // The models themselves are untouched.
        #expect(fresh.grade == .high && fetched.grade == .high && bread.ovenTemperature == 200)
    }

    @Test func observationWorksOnAFaultWhoseRegistrarIsMadeOnFirstRead() throws {
        let (_, context) = try Self.savedTrips(3)
        let trip = try #require(try context.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)])).first)
        trip.nights = 4  // set before anything was read: nobody can be observing yet
        let fired = Flag()
        withObservationTracking {
            _ = trip.price
        } onChange: {
            fired.set()
        }
        trip.name = "Other"
        #expect(fired.value == false)
        trip.price = 1
        #expect(fired.value)
        #expect(trip.nights == 4 && trip.destination == "Rome")
    }

    @Test func sectionTitlesFollowUnsavedChangesAndSavedOnes() throws {
        let (container, context) = try Self.savedTrips(10)
        let trips = try context.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)]))
        trips[0].destination = "Quito"  // unsaved
        var sections = try context.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)]), sectionBy: \.destination)
        #expect(sections[sectionTitle: "Quito"]?.map(\.name) == ["Trip 0"])
        #expect(sections[sectionTitle: "Rome"]?.map(\.name) == ["Trip 5"])
        try context.save()
        sections = try context.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)]), sectionBy: \.destination)
        #expect(sections[sectionTitle: "Quito"]?.map(\.name) == ["Trip 0"])
        // Another context's saved change reaches this context's sections too.
        let other = ModelContext(container)
        let moved = try #require(try other.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.name == "Trip 5" })).first)
        moved.destination = "Quito"
        try other.save()
        sections = try context.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)]), sectionBy: \.destination)
        #expect(sections[sectionTitle: "Quito"]?.map(\.name) == ["Trip 0", "Trip 5"])
        #expect(sections[sectionTitle: "Rome"] == nil)
    }
}

@Model
final class Stamp {
    var label: String
    var createdAt: Date = Date()
    var note: String? = nil
    init(label: String) {
        self.label = label
    }
}

/// A grade with no case for an empty raw value, so no empty value to stand in for a missing one.
enum Grade: Int, Codable {
    case low = 1
    case high = 2
}

@Model
final class Graded {
    var name: String
    var grade: Grade
    init(name: String, grade: Grade) {
        self.name = name
        self.grade = grade
    }
}

/// With `Loop`, a cycle of required to-one relationships (see
/// `aClassOnACycleOfRequiredRelationshipsCannotStandInWhenAnotherOnTheCycleCannot`).
@Model
final class Knot {
    // `loop` comes first, so that checking `Knot` meets `Loop` before it finds that `grade` has no
    // empty value.
    var loop: Loop
    var grade: Grade
    init(loop: Loop, grade: Grade) {
        self.loop = loop
        self.grade = grade
    }
}

@Model
final class Loop {
    var knot: Knot
    init(knot: Knot) {
        self.knot = knot
    }
}

/// A value whose empty form is made slowly the first time: the first thread to check `Slowly` stays
/// inside the check until the test lets it go (see `aClassBeingCheckedOnOneThreadGetsTheSameAnswerOnAnother`).
struct SlowEmptyValue: Codable {
    var text: String

    nonisolated(unsafe) static var firstAnswer: Bool?
    nonisolated(unsafe) static var waited = false
    static let checkStarted = DispatchSemaphore(value: 0)
    static let finishCheck = DispatchSemaphore(value: 0)
    static let checkFinished = DispatchSemaphore(value: 0)

    init(text: String) { self.text = text }

    init(from decoder: any Decoder) throws {
        text = try decoder.singleValueContainer().decode(String.self)
        if !Self.waited {
            Self.waited = true
            Self.checkStarted.signal()
            _ = Self.finishCheck.wait(timeout: .now() + 120)
        }
    }
}

@Model
final class Slowly {
    var value: SlowEmptyValue
    init(value: SlowEmptyValue) { self.value = value }
}
