import Testing
@testable import Folio

/// The table of a context's live models: a hash table for a few thousand, a dense table for more.
@Suite("Model registry")
struct ModelRegistryTests {
    final class Model {}

    @Test func aFewModelsStayInAHashTableAndManyMoveToADenseOne() {
        var registry = ModelRegistry()
        var models: [Model] = []
        // Numbers scattered over a large store's range, as a query's results are.
        let numbers = (0..<Int64(ModelRegistry.denseThreshold + 10)).map { 1_000 + $0 * 37 }
        for number in numbers.prefix(1_000) {
            let model = Model()
            models.append(model)
            let isNew = registry.register(model, at: number)
            #expect(isNew)
        }
        #expect(!registry.isDense && registry.count == 1_000)
        let again = registry.register(models[0], at: numbers[0])
        #expect(!again, "registering a number again is not new")
        for number in numbers.dropFirst(1_000) {
            let model = Model()
            models.append(model)
            _ = registry.register(model, at: number)
        }
        #expect(registry.isDense && registry.count == numbers.count)
        #expect(numbers.indices.allSatisfy { registry[numbers[$0]]?.model === models[$0] }, "every model is found after the move")
        #expect(registry[999] == nil)
    }

    @Test func aSweepRemovesOnlyModelsNothingElseHoldsAndShrinksTheTable() {
        var registry = ModelRegistry()
        registry.reserveCapacity(ModelRegistry.denseThreshold + 1)
        #expect(registry.isDense, "a fetch of that many registers them in a dense table from the start")
        var kept: [Model] = []
        for number in 1...Int64(ModelRegistry.denseThreshold + 1) {
            let model = Model()
            if number % 100 == 0 { kept.append(model) }
            _ = registry.register(model, at: number)
        }
        var remaining: [Int64] = []
        for number in 1...Int64(ModelRegistry.denseThreshold + 1)
        where registry.removeValue(forKey: number, where: { isKnownUniquelyReferenced(&$0.model) }) {
            remaining.append(number)
        }
        #expect(remaining == kept.indices.map { Int64($0 + 1) * 100 }, "only the models held elsewhere stay")
        registry.shrinkIfSparse(keeping: remaining)
        #expect(!registry.isDense && registry.count == kept.count)
        #expect(registry[100]?.model === kept[0])
        let none = registry.removeValue(forKey: 101, where: { _ in true })
        #expect(!none, "no entry, none remains")
        let stays = registry.removeValue(forKey: 100, where: { isKnownUniquelyReferenced(&$0.model) })
        #expect(stays, "held elsewhere: stays")
    }
}
