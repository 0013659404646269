import Foundation
import Testing
import Folio

@Suite("Sample app: bird watch (Backyard Birds' shapes)")
struct BirdWatchTests {
    static var types: [any PersistentModel.Type] { [Feeder.self, Bird.self, FeederVisit.self] }

    @Test func aVisitAddedFromBothEndsOfTheRelationshipIsHeldOnceInMemoryAndAfterReopening() throws {
        let store = SampleStore()
        defer { store.cleanUp() }
        do {
            let context = ModelContext(try ModelContainer(for: Schema(Self.types), configurations: [ModelConfiguration(url: store.url)]))
            let feeder = Feeder(name: "Kitchen window", food: "Sunflower")
            let robin = Bird(species: "Robin")
            context.insert(feeder)
            context.insert(robin)
            for minute in 0..<3 {
                let visit = FeederVisit(start: Date(timeIntervalSinceReferenceDate: Double(minute) * 60), duration: 30)
                context.insert(visit)
                // As Backyard Birds does: set the to-one side, then append to the to-many side too.
                visit.feeder = feeder
                feeder.visits.append(visit)
                visit.bird = robin
                robin.visits.append(visit)
            }
            #expect(feeder.visits.count == 3)
            #expect(robin.visits.count == 3)
            try context.save()
        }
        let context = ModelContext(try ModelContainer(for: Schema(Self.types), configurations: [ModelConfiguration(url: store.url)]))
        let feeder = try #require(try context.fetch(FetchDescriptor<Feeder>()).first)
        #expect(feeder.visits.count == 3)
        #expect(Set(feeder.visits.map(\.persistentModelID)).count == 3)
        let robin = try #require(try context.fetch(FetchDescriptor<Bird>()).first)
        #expect(robin.visits.count == 3)
        #expect(try context.fetchCount(FetchDescriptor<FeederVisit>(predicate: #Predicate { $0.feeder?.name == "Kitchen window" })) == 3)
    }

    @Test func appendingAModelThatIsAlreadyThereLeavesOneEntry() throws {
        let container = try ModelContainer(for: Schema(Self.types), configurations: [ModelConfiguration(isStoredInMemoryOnly: true)])
        let context = ModelContext(container)
        let feeder = Feeder(name: "Porch", food: "Millet")
        let visit = FeederVisit(start: .now, duration: 5)
        // Neither is managed yet: the duplicate is dropped when they are inserted.
        feeder.visits.append(visit)
        feeder.visits.append(visit)
        context.insert(feeder)
        #expect(feeder.visits.count == 1)
        #expect(visit.feeder === feeder)
        feeder.visits.append(visit)
        #expect(feeder.visits.count == 1)
        try context.save()
        let other = ModelContext(container)
        #expect(try other.fetch(FetchDescriptor<Feeder>()).first?.visits.count == 1)
    }

    @Test func deletingAFeederCascadesToItsVisitsAndNullifiesTheBirds() throws {
        let container = try ModelContainer(for: Schema(Self.types), configurations: [ModelConfiguration(isStoredInMemoryOnly: true)])
        let context = ModelContext(container)
        let feeder = Feeder(name: "Garden", food: "Suet")
        let wren = Bird(species: "Wren")
        let visit = FeederVisit(start: .now, duration: 12)
        context.insert(visit)
        visit.feeder = feeder
        visit.bird = wren
        try context.save()
        context.delete(feeder)
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<FeederVisit>()) == 0)
        #expect(try context.fetch(FetchDescriptor<Bird>()).first?.visits.isEmpty == true)
    }
}
