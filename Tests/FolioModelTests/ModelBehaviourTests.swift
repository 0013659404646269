import Foundation
import Observation
import Testing
@testable import Folio
#if canImport(Glibc)
    import Glibc
#endif
@_spi(FolioEngine) import FolioStorage

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

    @Test func aLoadedModelKeepsTheBackingDataItsContextGaveItAndNewModelsGetTheirOwn() throws {
        let container = try ModelContainer(for: Recipe.self, BakedGood.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        context.insert(BakedGood(name: "Cake", ovenTemperature: 190))
        context.insert(Recipe(name: "Soup"))
        try context.save()

        let reader = ModelContext(container)
        let loaded = try reader.fetch(FetchDescriptor<Recipe>(sortBy: [SortDescriptor(\.name)]))
        #expect(loaded.map(\.name) == ["Cake", "Soup"])
        #expect(loaded.first is BakedGood, "a subclass record loads as its own class through the whole initializer chain")
        for model in loaded {
            #expect(model.persistentBackingData.storedRecordNumber != nil)
            #expect(model.modelContext === reader)
        }
        // A model made after loading, on the same thread, must not adopt anything left over.
        let fresh = Recipe(name: "Tea")
        #expect(fresh.persistentBackingData.storedRecordNumber == nil)
        #expect(!loaded.contains { $0.persistentBackingData === fresh.persistentBackingData })
        #expect(fresh.modelContext == nil)
        #expect(fresh.persistentModelID != loaded[1].persistentModelID)
    }

    @Test func aLongLivedContextForgetsTheModelsNobodyHoldsAnyMore() throws {
        let container = try ModelContainer(for: Recipe.self, BakedGood.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let writer = ModelContext(container)
        for index in 0..<5000 { writer.insert(Recipe(name: "R\(index)")) }
        try writer.save()

        let reader = ModelContext(container)
        var kept: [Recipe] = []
        var largest = 0
        for batch in 0..<50 {
            var descriptor = FetchDescriptor<Recipe>(sortBy: [SortDescriptor(\.name)])
            descriptor.fetchOffset = batch * 100
            descriptor.fetchLimit = 100
            let page = try reader.fetch(descriptor)
            #expect(page.count == 100)
            if batch % 10 == 0, let first = page.first { kept.append(first) }
            largest = max(largest, reader.registered.count)
        }
        // 5,000 models were loaded; the table never held many more than the sweep threshold.
        #expect(largest <= 1100)
        // Models still held stay registered: fetching them again gives the same instances.
        for model in kept {
            let again: Recipe? = reader.registeredModel(for: model.persistentModelID)
            #expect(again === model)
        }
    }

    @Test func aSweepKeepsEveryModelSomeoneHoldsAndDropsEveryOtherAcrossItsReadAheadBatches() throws {
        let container = try ModelContainer(for: Recipe.self, BakedGood.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let writer = ModelContext(container)
        for index in 0..<3001 {
            writer.insert(Recipe(name: "A\(index)"))
            writer.insert(Recipe(name: "B\(index)"))
        }
        try writer.save()

        let reader = ModelContext(container)
        var held: [Recipe] = []
        var dropped: [PersistentIdentifier] = []
        do {
            let first = try reader.fetch(FetchDescriptor<Recipe>(predicate: #Predicate { $0.name.starts(with: "A") }))
            #expect(first.count == 3001)
            // Every seventh, a run of 40 across several read-ahead batches, and the very last.
            for (position, model) in first.enumerated() {
                if position % 7 == 0 || (1000..<1040).contains(position) || position == 3000 {
                    held.append(model)
                } else {
                    dropped.append(model.persistentModelID)
                }
            }
        }
        #expect(reader.registered.count == 3001)

        // As many again passes the sweep threshold: the sweep runs before they are registered.
        let second = try reader.fetch(FetchDescriptor<Recipe>(predicate: #Predicate { $0.name.starts(with: "B") }))
        #expect(second.count == 3001)
        #expect(reader.registered.count == held.count + 3001)
        for model in held {
            let registered: Recipe? = reader.registeredModel(for: model.persistentModelID)
            #expect(registered === model, "\(model.name) is held, so it stays registered")
        }
        for identifier in dropped {
            let registered: Recipe? = reader.registeredModel(for: identifier)
            #expect(registered == nil)
        }
    }

    #if canImport(Glibc)
        /// Every fetched model has backing data, so its size is paid a million times in a large fetch: it
        /// must stay in glibc's 112-byte size class (a request of at most 104 bytes), not the 128-byte one.
        @Test func aModelsBackingDataFitsInA112ByteAllocation() throws {
            let container = try ModelContainer(for: Recipe.self, BakedGood.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
            let context = ModelContext(container)
            context.insert(Recipe(name: "Bread"))
            try context.save()
            let fetched = try #require(try context.fetch(FetchDescriptor<Recipe>()).first)
            let backing = fetched.persistentBackingData
            #expect(backing.storeIdentifier == container.storeIdentifier)
            // malloc_usable_size is in <malloc.h>, which the Glibc module does not bring in.
            let symbol = try #require(dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_usable_size"))
            let usableSize = unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutableRawPointer?) -> Int).self)
            // The smallest of many allocations: one may be served from a larger free chunk (malloc hands out
            // a whole chunk when splitting it would leave too little), which says nothing of the request.
            let backings = [backing] + (0..<256).map { _ in ModelBackingData() }
            let size = backings.map { usableSize(Unmanaged.passUnretained($0).toOpaque()) }.min() ?? .max
            #expect(size <= 104, "ModelBackingData takes \(size) bytes")
        }
    #endif

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
        withObservationTracking {
            _ = cake.name
        } onChange: {
            inherited.set()
        }
        withObservationTracking {
            _ = cake.ovenTemperature
        } onChange: {
            own.set()
        }
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
