import Foundation
import Testing
@testable import Folio

@Suite("Schema and identifiers")
struct SchemaTests {
    @Test func schemaDescribesEntitiesPropertiesAndTheInheritanceTree() throws {
        let schema = Schema([Recipe.self, BakedGood.self, Beverage.self])
        #expect(schema.problems.isEmpty)
        // Related models are taken in.
        #expect(schema.entities.map(\.name) == ["BakedGood", "Beverage", "Cookbook", "Ingredient", "Recipe"])
        let recipe = try #require(schema.entity(for: Recipe.self))
        let bakedGood = try #require(schema.entity(for: BakedGood.self))
        #expect(bakedGood.superentity === recipe)
        #expect(recipe.subentities.map(\.name) == ["BakedGood", "Beverage"])
        #expect(
            bakedGood.properties.map(\.name) == [
                "name", "summary", "servings", "createdAt", "ingredients", "cookbook",
                "ovenTemperature", "glutenFree",
            ])
        #expect(bakedGood.declaredProperties.map(\.name) == ["ovenTemperature", "glutenFree"])
        #expect(recipe.attributesByName["name"]?.isUnique == true)
        #expect(recipe.uniquenessConstraints.contains(["name"]))
        #expect(recipe.indices == [["name"], ["createdAt", "servings"]])
        #expect(bakedGood.indices == recipe.indices)
        let ingredients = try #require(recipe.relationshipsByName["ingredients"])
        #expect(ingredients.destination == "Ingredient")
        #expect(ingredients.deleteRule == .cascade)
        #expect(ingredients.isToOneRelationship == false)
        #expect(ingredients.inverseName == "recipe")
        let cookbook = try #require(recipe.relationshipsByName["cookbook"])
        #expect(cookbook.isToOneRelationship && cookbook.isOptional)
        #expect(cookbook.inverseName == "recipes")
        #expect(cookbook.deleteRule == .nullify)
        #expect(schema.entitiesByName["Cookbook"]?.attributesByName["title"]?.originalName == "name")
    }

    @Test func aSubentityInheritsItsSuperentitysPropertyObjectsWithTheirInversesNamed() throws {
        let schema = Schema([Recipe.self, BakedGood.self, Beverage.self])
        let recipe = try #require(schema.entity(for: Recipe.self))
        let ingredient = try #require(schema.entitiesByName["Ingredient"])
        for subentity in recipe.subentities {
            #expect(subentity.superentity === recipe)
            // The inherited relationship is the superentity's own object, inverse and all.
            let inherited = try #require(subentity.relationshipsByName["ingredients"])
            #expect(inherited === recipe.relationshipsByName["ingredients"])
            #expect(inherited.inverseName == "recipe")
        }
        #expect(ingredient.relationshipsByName["recipe"]?.inverseName == "ingredients")
        // Every entity is listed under its superentity, and only there.
        for entity in schema.entities {
            #expect(schema.entities.filter { $0.subentities.contains(entity) }.map(\.name) == [entity.superentity?.name].compactMap { $0 })
        }
    }

    @Test func persistentIdentifiersAreStableCodableComparableAndReadable() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let saved: PersistentIdentifier
        do {
            let context = ModelContext(try store.container(Trip.self))
            let trip = Trip(name: "a", destination: "b", startDate: .now, price: 1)
            context.insert(trip)
            try context.save()
            saved = trip.persistentModelID
        }
        #expect("\(saved)" == "Trip(\(saved.recordNumber ?? -1))")
        let data = try JSONEncoder().encode(saved)
        let decoded = try JSONDecoder().decode(PersistentIdentifier.self, from: data)
        #expect(decoded == saved)
        let context = ModelContext(try store.container(Trip.self))
        let reopened = try #require(try context.fetch(FetchDescriptor<Trip>()).first)
        #expect(reopened.persistentModelID == saved)
        #expect(context.model(for: decoded) === reopened)
        let later = Trip(name: "c", destination: "d", startDate: .now, price: 2)
        context.insert(later)
        try context.save()
        #expect(saved < later.persistentModelID)
    }
}
