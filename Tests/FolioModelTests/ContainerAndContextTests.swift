import Foundation
import Testing
@testable import Folio

@Suite("Containers and contexts")
struct ContainerAndContextTests {
    @Test func savedModelsSurviveReopeningTheStore() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        do {
            let container = try store.container(Recipe.self, BakedGood.self, Beverage.self)
            let context = ModelContext(container)
            let soup = Recipe(name: "Soup", summary: "Hot")
            context.insert(soup)
            context.insert(BakedGood(name: "Bread", ovenTemperature: 220))
            #expect(context.hasChanges)
            #expect(soup.persistentModelID.isTemporary)
            try context.save()
            #expect(context.hasChanges == false)
            #expect(soup.persistentModelID.isTemporary == false)
            #expect(soup.modelContext === context)
        }
        let container = try store.container(Recipe.self, BakedGood.self, Beverage.self)
        let context = ModelContext(container)
        let recipes = try context.fetch(FetchDescriptor<Recipe>(sortBy: [SortDescriptor(\.name)]))
        #expect(recipes.map(\.name) == ["Bread", "Soup"])
        #expect(recipes.first is BakedGood)
        #expect((recipes.first as? BakedGood)?.ovenTemperature == 220)
        #expect(recipes.last?.summary == "Hot")
    }

    @Test func fetchingAParentTypeReturnsSubclassesAndASubclassOnlyItself() throws {
        let container = try ModelContainer(for: Schema(recipeTypes), configurations: [ModelConfiguration(isStoredInMemoryOnly: true)])
        let context = ModelContext(container)
        context.insert(Recipe(name: "Soup"))
        context.insert(BakedGood(name: "Bread", ovenTemperature: 220))
        context.insert(Beverage(name: "Tea", caffeine: 40))
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<Recipe>()) == 3)
        #expect(try context.fetch(FetchDescriptor<BakedGood>()).map(\.name) == ["Bread"])
        let drinks = try context.fetch(FetchDescriptor<Recipe>(predicate: #Predicate { $0 is Beverage }))
        #expect(drinks.map(\.name) == ["Tea"])
        let strong = try context.fetch(FetchDescriptor<Recipe>(predicate: #Predicate { ($0 as? Beverage)?.caffeine ?? 0 > 30 }))
        #expect(strong.map(\.name) == ["Tea"])
    }

    @Test func aFetchWithoutPredicateOrSortReturnsRecordsInTheOrderTheyWereFirstSavedForEveryMixOfEntities() throws {
        let container = try ModelContainer(for: Schema(recipeTypes), configurations: [ModelConfiguration(isStoredInMemoryOnly: true)])
        let context = ModelContext(container)
        // Many baked goods, few drinks and plain recipes, their record numbers interleaved over three saves.
        var names: [String] = []
        for round in 0..<3 {
            for n in 0..<10 {
                let name = "r\(round)-\(n)"
                switch n {
                case 3: context.insert(Beverage(name: name, caffeine: 1))
                case 7: context.insert(Recipe(name: name))
                default: context.insert(BakedGood(name: name, ovenTemperature: 180))
                }
                names.append(name)
            }
            try context.save()
        }
        for gone in try context.fetch(FetchDescriptor<Recipe>()) where gone.name.hasSuffix("-5") { context.delete(gone) }
        try context.save()
        names.removeAll { $0.hasSuffix("-5") }

        let fresh = ModelContext(container)
        // Most records (the table is walked in number order) …
        #expect(try fresh.fetch(FetchDescriptor<BakedGood>()).map(\.name) == names.filter { !$0.hasSuffix("-3") && !$0.hasSuffix("-7") })
        // … few of them (their identifiers are sorted) …
        #expect(try fresh.fetch(FetchDescriptor<Beverage>()).map(\.name) == names.filter { $0.hasSuffix("-3") })
        // … and a family of three entities.
        #expect(try fresh.fetch(FetchDescriptor<Recipe>()).map(\.name) == names)
    }

    @Test func oneInstancePerRecordPerContext() throws {
        let container = try ModelContainer(for: Schema(recipeTypes), configurations: [ModelConfiguration(isStoredInMemoryOnly: true)])
        let context = ModelContext(container)
        context.insert(Recipe(name: "Soup"))
        try context.save()
        let first = try context.fetch(FetchDescriptor<Recipe>())
        let second = try context.fetch(FetchDescriptor<Recipe>())
        #expect(first[0] === second[0])
        let id = first[0].persistentModelID
        #expect(context.registeredModel(for: id) as Recipe? === first[0])
        #expect(context.model(for: id) as? Recipe === first[0])
    }

    @Test func relationshipsAndInversesStayInStep() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        do {
            let container = try ModelContainer(for: Schema(recipeTypes), configurations: [ModelConfiguration(url: store.url)])
            let context = ModelContext(container)
            let soup = Recipe(name: "Soup")
            context.insert(soup)
            let salt = Ingredient(name: "salt", amount: 2)
            salt.recipe = soup
            #expect(soup.ingredients.map(\.name) == ["salt"])
            soup.ingredients.append(Ingredient(name: "water", amount: 500, unit: .milliliter))
            #expect(soup.ingredients.last?.recipe === soup)
            try context.save()
        }
        let container = try ModelContainer(for: Schema(recipeTypes), configurations: [ModelConfiguration(url: store.url)])
        let context = ModelContext(container)
        let soup = try #require(try context.fetch(FetchDescriptor<Recipe>()).first)
        #expect(soup.ingredients.map(\.name).sorted() == ["salt", "water"])
        let water = try #require(soup.ingredients.first { $0.name == "water" })
        #expect(water.recipe === soup)
        #expect(water.unit == .milliliter)
    }

    @Test func cascadeDeletesRelatedModels() throws {
        let container = try ModelContainer(for: Schema(recipeTypes), configurations: [ModelConfiguration(isStoredInMemoryOnly: true)])
        let context = ModelContext(container)
        let soup = Recipe(name: "Soup")
        context.insert(soup)
        soup.ingredients = [Ingredient(name: "salt", amount: 1), Ingredient(name: "leek", amount: 2)]
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<Ingredient>()) == 2)
        context.delete(soup)
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<Ingredient>()) == 0)
        #expect(try context.fetchCount(FetchDescriptor<Recipe>()) == 0)
    }

    @Test func nullifyRemovesTheDeletedModelFromTheInverse() throws {
        let container = try ModelContainer(for: Schema(recipeTypes), configurations: [ModelConfiguration(isStoredInMemoryOnly: true)])
        let context = ModelContext(container)
        let book = Cookbook(title: "Basics")
        let soup = Recipe(name: "Soup")
        context.insert(book)
        context.insert(soup)
        soup.cookbook = book
        #expect(book.recipes.count == 1)
        try context.save()
        context.delete(soup)
        try context.save()
        #expect(book.recipes.isEmpty)
        let fresh = ModelContext(container)
        #expect(try fresh.fetch(FetchDescriptor<Cookbook>()).first?.recipes.isEmpty == true)
    }

    @Test func uniqueAttributeInsertUpdatesTheStoredModel() throws {
        let container = try ModelContainer(for: Schema(recipeTypes), configurations: [ModelConfiguration(isStoredInMemoryOnly: true)])
        let context = ModelContext(container)
        context.insert(Recipe(name: "Soup", summary: "first"))
        try context.save()
        let again = Recipe(name: "Soup", summary: "second")
        context.insert(again)
        try context.save()
        let all = try ModelContext(container).fetch(FetchDescriptor<Recipe>())
        #expect(all.count == 1)
        #expect(all.first?.summary == "second")
    }

    /// One save of models of two entities, interleaved: each model is checked against its own entity's
    /// constraints, and each one whose unique value is stored updates that record.
    @Test func aSaveOfInterleavedEntitiesUpdatesTheStoredModelEachOneMatches() throws {
        let container = try ModelContainer(for: Schema(recipeTypes), configurations: [ModelConfiguration(isStoredInMemoryOnly: true)])
        let context = ModelContext(container)
        for n in 0..<5 {
            context.insert(Recipe(name: "r-\(n)", summary: "old"))
            context.insert(BakedGood(name: "b-\(n)", ovenTemperature: 180))
        }
        try context.save()

        let later = ModelContext(container)
        later.insert(Recipe(name: "r-1", summary: "new"))
        later.insert(BakedGood(name: "b-2", ovenTemperature: 200))
        later.insert(Recipe(name: "r-new", summary: "new"))
        later.insert(BakedGood(name: "b-3", ovenTemperature: 210))
        later.insert(Recipe(name: "r-4", summary: "new"))
        later.insert(BakedGood(name: "b-new", ovenTemperature: 220))
        try later.save()

        let all = try ModelContext(container).fetch(FetchDescriptor<Recipe>())
        #expect(all.count == 12)
        let summaries = Dictionary(uniqueKeysWithValues: all.map { ($0.name, $0.summary) })
        #expect(summaries["r-0"] == "old")
        #expect(summaries["r-1"] == "new")
        #expect(summaries["r-4"] == "new")
        #expect(summaries["r-new"] == "new")
        let temperatures = Dictionary(uniqueKeysWithValues: all.compactMap { ($0 as? BakedGood).map { ($0.name, $0.ovenTemperature) } })
        #expect(temperatures == ["b-0": 180, "b-1": 180, "b-2": 200, "b-3": 210, "b-4": 180, "b-new": 220])
    }

    @Test func rollbackDiscardsPendingChanges() throws {
        let container = try ModelContainer(for: Schema(recipeTypes), configurations: [ModelConfiguration(isStoredInMemoryOnly: true)])
        let context = ModelContext(container)
        let soup = Recipe(name: "Soup")
        context.insert(soup)
        try context.save()
        soup.servings = 10
        context.insert(Recipe(name: "Stew"))
        #expect(context.changedModelsArray.count == 1)
        #expect(context.insertedModelsArray.count == 1)
        context.rollback()
        #expect(soup.servings == 2)
        #expect(context.hasChanges == false)
        #expect(try context.fetchCount(FetchDescriptor<Recipe>()) == 1)
    }

    @Test func twoContextsSeeEachOthersSavesOnTheNextFetch() throws {
        let container = try ModelContainer(for: Schema(recipeTypes), configurations: [ModelConfiguration(isStoredInMemoryOnly: true)])
        let writer = ModelContext(container)
        let reader = ModelContext(container)
        let soup = Recipe(name: "Soup")
        writer.insert(soup)
        try writer.save()
        let seen = try #require(try reader.fetch(FetchDescriptor<Recipe>()).first)
        #expect(seen !== soup)
        soup.servings = 7
        try writer.save()
        #expect(try reader.fetch(FetchDescriptor<Recipe>()).first?.servings == 7)
        #expect(seen.servings == 7)
    }

    @Test func pendingChangesAreIncludedInFetchesByDefault() throws {
        let container = try ModelContainer(for: Schema(recipeTypes), configurations: [ModelConfiguration(isStoredInMemoryOnly: true)])
        let context = ModelContext(container)
        let soup = Recipe(name: "Soup")
        context.insert(soup)
        #expect(try context.fetch(FetchDescriptor<Recipe>()).first === soup)
        var excluding = FetchDescriptor<Recipe>()
        excluding.includePendingChanges = false
        #expect(try context.fetchCount(excluding) == 0)
        try context.save()
        context.delete(soup)
        #expect(try context.fetchCount(FetchDescriptor<Recipe>()) == 0)
        #expect(try context.fetchCount(excluding) == 1)
    }

    @Test func denyRuleRefusesTheSaveAndNamesTheBlockingModels() throws {
        let container = try ModelContainer(for: Schema([Shelf.self, Jar.self]), configurations: [ModelConfiguration(isStoredInMemoryOnly: true)])
        let context = ModelContext(container)
        let shelf = Shelf(label: "top")
        context.insert(shelf)
        shelf.jars = [Jar(content: "jam")]
        try context.save()
        context.delete(shelf)
        #expect {
            try context.save()
        } throws: { error in
            guard let error = error as? FolioError else { return false }
            return error.code == .deleteDenied && error.message.contains("Jar(")
        }
    }
}

@Model
final class Shelf {
    var label: String
    @Relationship(deleteRule: .deny, inverse: \Jar.shelf) var jars: [Jar] = []
    init(label: String) { self.label = label }
}

@Model
final class Jar {
    var content: String
    var shelf: Shelf?
    init(content: String) { self.content = content }
}
