import Foundation
import Observation
import Testing
@testable import Folio

@Suite("Model behaviour")
struct ModelBehaviourTests {
    @Test func initializersDefaultsAndSuperInitWorkAsWritten() {
        let cake = BakedGood(name: "Cake", ovenTemperature: 190)
        #expect(cake.name == "Cake")
        #expect(cake.servings == 2)
        #expect(cake.ovenTemperature == 190)
        #expect(cake.glutenFree == false)
        #expect(cake.ingredients.isEmpty)
        #expect(cake.displayName == "Cake")
    }

    @Test func aModelNoContextManagesHasNoUnsavedChanges() {
        let recipe = Recipe(name: "Bread")
        recipe.servings = 4
        #expect(recipe.hasChanges == false)
        #expect(recipe.persistentBackingData.changedProperties.isEmpty)
        #expect(recipe.modelContext == nil)
        #expect(recipe.isDeleted == false)
    }

    @Test func observationSeesChangesToPersistedProperties() {
        let recipe = Recipe(name: "Bread")
        let fired = Flag()
        withObservationTracking {
            _ = recipe.servings
        } onChange: {
            fired.set()
        }
        recipe.name = "Rye"
        #expect(fired.value == false)
        recipe.servings = 6
        #expect(fired.value)
    }

    @Test func observationSeesChangesToInheritedAndOwnPropertiesOfASubclass() {
        let cake = BakedGood(name: "Cake", ovenTemperature: 180)
        let inherited = Flag()
        let own = Flag()
        withObservationTracking { _ = cake.name } onChange: { inherited.set() }
        withObservationTracking { _ = cake.ovenTemperature } onChange: { own.set() }
        cake.name = "Torte"
        cake.ovenTemperature = 170
        #expect(inherited.value)
        #expect(own.value)
    }

    @Test func unsavedModelsHaveDistinctTemporaryIdentifiers() {
        let first = Recipe(name: "A")
        let second = Recipe(name: "B")
        #expect(first.persistentModelID.isTemporary)
        #expect(first.persistentModelID != second.persistentModelID)
        #expect(first.persistentModelID == first.id)
        #expect(first.persistentModelID.entityName == "Recipe")
        #expect("\(first.persistentModelID)".hasPrefix("Recipe(temporary "))
    }

    @Test func modelsAreEqualByIdentity() {
        let first = Recipe(name: "A")
        let second = Recipe(name: "A")
        #expect(first == first)
        #expect(first != second)
        #expect(Set([first, second, first]).count == 2)
    }
}

/// A thread-safe flag for observation callbacks.
final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var raised = false
    func set() { lock.withLock { raised = true } }
    var value: Bool { lock.withLock { raised } }
}
