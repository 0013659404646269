import Foundation
import Testing
import Folio

@Suite("Sample app: wildlife survey (CloudKit-style optional relationships)")
struct WildlifeSurveyTests {
    static var types: [any PersistentModel.Type] { [Habitat.self, Animal.self, Sighting.self, Ranger.self, Herd.self] }

    @Test func optionalToManyRelationshipsKeepBothSidesInStepAndSurviveReopening() throws {
        let store = SampleStore()
        defer { store.cleanUp() }
        do {
            let context = ModelContext(try ModelContainer(for: Schema(Self.types), configurations: [ModelConfiguration(url: store.url)]))
            let wetland = Habitat(name: "Wetland", area: 12.5)
            context.insert(wetland)
            let heron = Animal(name: "Hattie", species: "Heron")
            let otter = Animal(name: "Olly", species: "Otter")
            wetland.animals?.append(heron)
            otter.habitat = wetland
            #expect(wetland.animals?.count == 2, "setting the to-one side adds to the optional to-many side")
            #expect(heron.habitat === wetland, "appending to the optional to-many side sets the to-one side")
            let sighting = Sighting(date: Date(timeIntervalSinceReferenceDate: 1_000))
            heron.sightings = [sighting]
            #expect(sighting.animal === heron)
            try context.save()
        }
        let context = ModelContext(try ModelContainer(for: Schema(Self.types), configurations: [ModelConfiguration(url: store.url)]))
        let wetland = try #require(try context.fetch(FetchDescriptor<Habitat>()).first)
        #expect(wetland.animals?.map(\.name).sorted() == ["Hattie", "Olly"])
        let otter = try #require(try context.fetch(FetchDescriptor<Animal>(predicate: #Predicate { $0.species == "Otter" })).first)
        #expect(otter.habitat?.name == "Wetland")
        #expect(otter.sightings?.isEmpty == true)
        let inWetland = try context.fetch(
            FetchDescriptor<Animal>(
                predicate: #Predicate { $0.habitat?.name == "Wetland" },
                sortBy: [SortDescriptor(\.name)]))
        #expect(inWetland.map(\.name) == ["Hattie", "Olly"])
        let seen = try context.fetch(FetchDescriptor<Sighting>()).first
        #expect(seen?.animal?.name == "Hattie")
    }

    @Test func settingAnOptionalToManyRelationshipToNilEmptiesIt() throws {
        let container = try ModelContainer(for: Schema(Self.types), configurations: [ModelConfiguration(isStoredInMemoryOnly: true)])
        let context = ModelContext(container)
        let meadow = Habitat(name: "Meadow", area: 3)
        let hare = Animal(name: "Hal", species: "Hare")
        context.insert(meadow)
        meadow.animals = [hare]
        try context.save()
        meadow.animals = nil
        #expect(hare.habitat == nil)
        try context.save()
        let other = ModelContext(container)
        #expect(try other.fetch(FetchDescriptor<Habitat>()).first?.animals?.isEmpty ?? true)
        #expect(try other.fetch(FetchDescriptor<Animal>()).first?.habitat == nil)
    }

    @Test func theCascadeRuleOfAnOptionalToManyRelationshipDeletesTheRelatedModels() throws {
        let container = try ModelContainer(for: Schema(Self.types), configurations: [ModelConfiguration(isStoredInMemoryOnly: true)])
        let context = ModelContext(container)
        let forest = Habitat(name: "Forest", area: 40)
        context.insert(forest)
        forest.animals = [Animal(name: "Fern", species: "Fox"), Animal(name: "Bo", species: "Badger")]
        let ranger = Ranger(name: "Rae")
        forest.rangers = [ranger]
        try context.save()
        context.delete(forest)
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<Animal>()) == 0)
        #expect(try context.fetch(FetchDescriptor<Ranger>()).first?.habitats?.isEmpty == true, "nullify leaves the ranger")
    }

    @Test func theMaximumModelCountOfAnOptionalToManyRelationshipIsChecked() throws {
        let container = try ModelContainer(for: Schema(Self.types), configurations: [ModelConfiguration(isStoredInMemoryOnly: true)])
        let context = ModelContext(container)
        let coast = Habitat(name: "Coast", area: 7)
        context.insert(coast)
        coast.rangers = (1...4).map { Ranger(name: "R\($0)") }
        #expect {
            try context.save()
        } throws: { error in
            guard let error = error as? FolioError else { return false }
            return error.code == .invalidModel && error.message.contains("rangers") && error.message.contains("maximumModelCount of 3")
        }
    }

    @Test func theMinimumModelCountOfAnOptionalToManyRelationshipIsChecked() throws {
        let container = try ModelContainer(for: Schema(Self.types), configurations: [ModelConfiguration(isStoredInMemoryOnly: true)])
        let context = ModelContext(container)
        let herd = Herd(label: "Deer")
        context.insert(herd)
        herd.members = [Animal(name: "Dot", species: "Deer")]
        #expect {
            try context.save()
        } throws: { error in
            guard let error = error as? FolioError else { return false }
            return error.code == .invalidModel && error.message.contains("members") && error.message.contains("minimumModelCount")
        }
        herd.members?.append(Animal(name: "Dash", species: "Deer"))
        try context.save()
        let other = ModelContext(container)
        #expect(try other.fetch(FetchDescriptor<Herd>()).first?.members?.count == 2)
    }
}
