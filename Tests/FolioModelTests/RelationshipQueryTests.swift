import Foundation
import Testing
@testable import Folio

@Model
final class Visit {
    #Unique<Visit>([\.city, \.day])
    var city: String
    var day: Int
    var note: String = ""
    init(city: String, day: Int, note: String = "") {
        self.city = city
        self.day = day
        self.note = note
    }
}

@Suite("Relationship predicates and compound uniqueness")
struct RelationshipQueryTests {
    static func kitchen() throws -> ModelContext {
        let container = try ModelContainer(for: Schema(recipeTypes), configurations: [ModelConfiguration(isStoredInMemoryOnly: true)])
        let context = ModelContext(container)
        let soup = Recipe(name: "Soup")
        let bread = BakedGood(name: "Bread", ovenTemperature: 220)
        let tea = Beverage(name: "Tea", caffeine: 30)
        for recipe in [soup, bread, tea] { context.insert(recipe) }
        soup.ingredients = [Ingredient(name: "salt", amount: 2), Ingredient(name: "leek", amount: 300)]
        bread.ingredients = [Ingredient(name: "flour", amount: 500), Ingredient(name: "salt", amount: 10), Ingredient(name: "yeast", amount: 7)]
        tea.ingredients = [Ingredient(name: "leaves", amount: 3)]
        try context.save()
        return context
    }

    @Test func toOneTraversalIsEvaluatedOverRecords() throws {
        let context = try Self.kitchen()
        let descriptor = FetchDescriptor<Ingredient>(predicate: #Predicate { $0.recipe?.name == "Bread" }, sortBy: [SortDescriptor(\.name)])
        #expect(try context.fetch(descriptor).map(\.name) == ["flour", "salt", "yeast"])
        #expect(try context.queryPlan(for: descriptor).filtersRecords)
        let baked = FetchDescriptor<Ingredient>(predicate: #Predicate { $0.recipe is BakedGood })
        #expect(try context.fetchCount(baked) == 3)
    }

    @Test func toManyContainsWhereCountAndAllSatisfy() throws {
        let context = try Self.kitchen()
        let salty = FetchDescriptor<Recipe>(
            predicate: #Predicate { $0.ingredients.contains { $0.name == "salt" } },
            sortBy: [SortDescriptor(\.name)])
        #expect(try context.fetch(salty).map(\.name) == ["Bread", "Soup"])
        #expect(try context.queryPlan(for: salty).filtersRecords)
        let big = FetchDescriptor<Recipe>(predicate: #Predicate { $0.ingredients.count > 2 })
        #expect(try context.fetch(big).map(\.name) == ["Bread"])
        let light = FetchDescriptor<Recipe>(predicate: #Predicate { $0.ingredients.allSatisfy { $0.amount < 100 } })
        #expect(try context.fetch(light).map(\.name) == ["Tea"])
    }

    @Test func compoundUniqueConstraintUpsertsOnlyWhenAllValuesMatch() throws {
        let container = try ModelContainer(for: Visit.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        context.insert(Visit(city: "Rome", day: 1, note: "first"))
        context.insert(Visit(city: "Rome", day: 2))
        try context.save()
        context.insert(Visit(city: "Rome", day: 1, note: "second"))
        context.insert(Visit(city: "Oslo", day: 1))
        try context.save()
        let visits = try ModelContext(container).fetch(FetchDescriptor<Visit>(sortBy: [SortDescriptor(\.city), SortDescriptor(\.day)]))
        #expect(visits.map { "\($0.city)\($0.day)\($0.note)" } == ["Oslo1", "Rome1second", "Rome2"])
    }
}

@Model
final class Chapter {
    var title: String
    var book: Volume
    init(title: String, book: Volume) {
        self.title = title
        self.book = book
    }
}

@Model
final class Volume {
    var name: String
    init(name: String) { self.name = name }
}

@Suite("Required relationships")
struct RequiredRelationshipTests {
    @Test func aRequiredRelationshipIsLoadedWithItsModel() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        do {
            let context = ModelContext(try store.container(Chapter.self, Volume.self))
            context.insert(Chapter(title: "One", book: Volume(name: "Tome")))
            try context.save()
        }
        let context = ModelContext(try store.container(Chapter.self, Volume.self))
        let chapter = try #require(try context.fetch(FetchDescriptor<Chapter>()).first)
        #expect(chapter.book.name == "Tome")
    }

    @Test func aRecordReferringToAMissingRequiredRecordFailsTheFetchWithATypedError() throws {
        let container = try ModelContainer(for: Chapter.self, Volume.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        let volume = Volume(name: "Gone")
        context.insert(Chapter(title: "Orphan", book: volume))
        try context.save()
        // Remove the volume behind the model layer's back, as another tool might.
        let volumeNumber = try #require(volume.persistentModelID.recordNumber)
        _ = try container.store.write { try $0.delete(entity: "Volume", id: volumeNumber) }
        #expect {
            _ = try ModelContext(container).fetch(FetchDescriptor<Chapter>())
        } throws: { error in
            "\(error)".contains("record \(volumeNumber), which is not in the store")
        }
    }
}
