import Foundation
import Testing
@testable import Folio

@Model
final class Rack {
    var label: String

    init(label: String) {
        self.label = label
    }
}

/// A model with a required to-one relationship: decoding it resolves the relationship at once.
@Model
final class Binder {
    var title: String
    var rack: Rack

    init(title: String, rack: Rack) {
        self.title = title
        self.rack = rack
    }
}

@Suite("The container's lock is not recursive")
struct ContainerReentrancyTests {
    @Test func aSaveInsideASaveStopsTheProcessWithAMessageNamingIt() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let worker = try #require(modelWorkerURL(), "folio-model-worker was not built next to the tests")
        let process = Process()
        process.executableURL = worker
        process.arguments = [store.url.path, "save-inside-save"]
        var environment = ProcessInfo.processInfo.environment
        // The message is what the test reads; a backtrace would only slow the crash down.
        environment["SWIFT_BACKTRACE"] = "enable=no"
        process.environment = environment
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        let ended = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in ended.signal() }
        try process.run()
        let timedOut = ended.wait(timeout: .now() + 120) == .timedOut
        if timedOut {
            process.terminate()
            ended.wait()
        }
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(!timedOut, "the inner save deadlocked")
        #expect(process.terminationReason == .uncaughtSignal)
        #expect(message.contains("ModelContext.save() was called on a thread that is already inside it"))
        #expect(message.contains("do not save, fetch, erase or compact from inside a save"))
    }

    @Test func aRequiredRelationshipIsResolvedWhileAFetchHoldsTheLock() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        do {
            let context = ModelContext(try store.container(Rack.self, Binder.self))
            let rack = Rack(label: "poetry")
            context.insert(Binder(title: "Odes", rack: rack))
            try context.save()
        }
        let context = ModelContext(try store.container(Rack.self, Binder.self))
        var descriptor = FetchDescriptor<Binder>()
        // Every property is decoded under the container's lock, the required rack with them.
        descriptor.propertiesToFetch = [\Binder.title]
        let binders = try context.fetch(descriptor)
        #expect(binders.map(\.title) == ["Odes"])
        #expect(binders.first?.rack.label == "poetry")
    }

    @Test func aCascadeResolvesUnloadedRelationshipsWhileTheSaveHoldsTheLock() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        do {
            let context = ModelContext(try store.container(Recipe.self, Ingredient.self, Cookbook.self))
            let recipe = Recipe(name: "bread")
            context.insert(recipe)
            for name in ["flour", "water", "salt"] {
                let ingredient = Ingredient(name: name, amount: 1)
                context.insert(ingredient)
                ingredient.recipe = recipe
            }
            try context.save()
        }
        let context = ModelContext(try store.container(Recipe.self, Ingredient.self, Cookbook.self))
        let recipe = try #require(try context.fetch(FetchDescriptor<Recipe>()).first)
        context.delete(recipe)
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<Ingredient>()) == 0)
        #expect(try context.fetchCount(FetchDescriptor<Recipe>()) == 0)
    }
}
