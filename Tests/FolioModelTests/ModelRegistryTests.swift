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
            _ = registry.register(model, at: number)
        }
        #expect(!registry.isDense && registry.count == 1_000)
        _ = registry.register(models[0], at: numbers[0])
        #expect(registry.count == 1_000, "registering a number again replaces its entry")
        _ = registry.prepareToRegister(numbers.count - 1_000)
        for number in numbers.dropFirst(1_000) {
            let model = Model()
            models.append(model)
            _ = registry.register(model, at: number)
        }
        #expect(registry.isDense && registry.count == numbers.count)
        #expect(numbers.indices.allSatisfy { registry[numbers[$0]]?.model === models[$0] }, "every model is found after the move")
        #expect(registry[999] == nil)
    }

    @Test func registeringPastTwiceTheLastSweepsCountAsksForASweep() {
        var registry = ModelRegistry()
        var due: [Int] = []
        var models: [Model] = []
        for number in 1...Int64(3_000) {
            let model = Model()
            if number <= 1_500 { models.append(model) }
            if registry.register(model, at: number) {
                due.append(Int(number))
                _ = registry.sweep()
            }
        }
        // At 1,024 the sweep keeps all (held here), so the next is due at 2,048; that one drops the
        // models of 1,501 to 2,047, and leaves about 1,500, so none is due before 3,000.
        #expect(due == [1_024, 2_048])
        #expect((1...1_500).allSatisfy { registry[Int64($0)]?.model === models[$0 - 1] })
        #expect((1_501...2_047).allSatisfy { registry[Int64($0)] == nil })
        #expect((2_049...3_000).allSatisfy { registry[Int64($0)] != nil })
    }

    @Test func aSweepRemovesOnlyModelsNothingElseHoldsAndShrinksTheTable() {
        var registry = ModelRegistry()
        _ = registry.prepareToRegister(ModelRegistry.denseThreshold + 1)
        #expect(registry.isDense, "a fetch of that many registers them in a dense table from the start")
        var kept: [Model] = []
        for number in 1...Int64(ModelRegistry.denseThreshold + 1) {
            let model = Model()
            if number % 100 == 0 { kept.append(model) }
            _ = registry.register(model, at: number)
        }
        _ = registry.sweep()
        #expect(!registry.isDense && registry.count == kept.count, "only the models held elsewhere stay, in a hash table")
        #expect(kept.indices.allSatisfy { registry[Int64($0 + 1) * 100]?.model === kept[$0] })
        #expect(registry[101] == nil)
        let none = registry.removeValue(forKey: 101, where: { _ in true })
        #expect(!none, "no entry, none remains")
        let stays = registry.removeValue(forKey: 100, where: { isKnownUniquelyReferenced(&$0.model) })
        #expect(stays, "held elsewhere: stays")
        kept.removeAll()
        _ = registry.sweep()
        #expect(registry.isEmpty, "once nothing else holds them, a sweep drops them all")
    }
}
