import Foundation
import Synchronization
import Testing
@testable import Folio

/// A value whose encoding runs a call on the container while a save holds its lock: what an app does
/// by mistake when a `Codable` attribute's `encode(to:)` reaches back into the store.
struct ReachesBackWhenEncoded: Codable {
    /// What the encoding calls, when set; the error it throws is kept in ``thrown``.
    static let call = Mutex<(@Sendable () throws -> Void)?>(nil)
    static let thrown = Mutex<FolioError?>(nil)

    var text = "payload"

    init() {}

    init(from decoder: any Decoder) throws {
        text = try decoder.singleValueContainer().decode(String.self)
    }

    func encode(to encoder: any Encoder) throws {
        if let call = Self.call.withLock({ $0 }) {
            do {
                try call()
            } catch let error as FolioError {
                Self.thrown.withLock { $0 = error }
                throw error
            }
        }
        var single = encoder.singleValueContainer()
        try single.encode(text)
    }
}

@Model
final class ReentrantMemo {
    @Attribute(.codable) var payload: ReachesBackWhenEncoded?

    init(payload: ReachesBackWhenEncoded?) {
        self.payload = payload
    }
}

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

@Suite("The container's lock is not recursive", .serialized)
struct ContainerReentrancyTests {
    /// Saves a memo whose encoding runs `call`; returns the error the call threw and the one the save threw.
    func saveReachingBack(_ container: ModelContainer, _ call: @escaping @Sendable () throws -> Void)
        -> (inner: FolioError?, outer: (any Error)?, context: ModelContext)
    {
        ReachesBackWhenEncoded.thrown.withLock { $0 = nil }
        ReachesBackWhenEncoded.call.withLock { $0 = call }
        defer { ReachesBackWhenEncoded.call.withLock { $0 = nil } }
        let context = ModelContext(container)
        context.insert(ReentrantMemo(payload: ReachesBackWhenEncoded()))
        do {
            try context.save()
            return (ReachesBackWhenEncoded.thrown.withLock { $0 }, nil, context)
        } catch {
            return (ReachesBackWhenEncoded.thrown.withLock { $0 }, error, context)
        }
    }

    @Test func aSaveInsideASaveThrowsAnErrorNamingItAndLosesNothing() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let container = try store.container(ReentrantMemo.self)
        let run = saveReachingBack(container) {
            let other = ModelContext(container)
            other.insert(ReentrantMemo(payload: nil))
            try other.save()
        }
        let inner = try #require(run.inner, "the inner save did not throw")
        #expect(inner.code == .reentrantCall)
        #expect(inner.message.contains("ModelContext.save() was called on a thread that is already inside it"))
        #expect(inner.message.contains("do not save, fetch, erase or compact from inside a save"))
        #expect((run.outer as? FolioError)?.code == .reentrantCall)
        // Nothing was written, the outer save's changes are still pending and save once the encoding
        // no longer reaches back.
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<ReentrantMemo>()) == 0)
        #expect(run.context.hasChanges)
        try run.context.save()
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<ReentrantMemo>()) == 1)
    }

    @Test func aFetchInsideASaveThrowsAnErrorNamingIt() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let container = try store.container(ReentrantMemo.self)
        let run = saveReachingBack(container) {
            _ = try ModelContext(container).fetchCount(FetchDescriptor<ReentrantMemo>())
        }
        let inner = try #require(run.inner, "the fetch inside the save did not throw")
        #expect(inner.code == .reentrantCall)
        #expect(inner.message.contains("ModelContext.fetchCount(_:) was called on a thread that is already inside it"))
        #expect(run.outer != nil)
    }

    @Test func compactingInsideASaveThrowsAnErrorNamingIt() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let container = try store.container(ReentrantMemo.self)
        let run = saveReachingBack(container) { try container.compact() }
        #expect(run.inner?.code == .reentrantCall)
        #expect(run.inner?.message.contains("ModelContainer.compact()") == true)
    }

    @Test func observersHistoryStreamsAndRollbacksInsideASaveDoNotStopTheProcess() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let container = try store.container(ReentrantMemo.self)
        let observed = Mutex<String>("")
        let run = saveReachingBack(container) {
            // An observer's first fetch meets the save's lock: it throws instead of stopping the process.
            do {
                _ = try ResultsObserver<ReentrantMemo, Never>(modelContext: ModelContext(container))
                observed.withLock { $0 = "made" }
            } catch let error as FolioError {
                observed.withLock { $0 = "\(error.code)" }
            }
            _ = container.historyTransactions(after: nil)
            ModelContext(container).rollback()
        }
        #expect(run.outer == nil, "\(String(describing: run.outer))")
        #expect(observed.withLock { $0 } == "reentrantCall")
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<ReentrantMemo>()) == 1)
    }

    @MainActor
    @Test func theMainContextCanBeReachedFromInsideASave() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let container = try store.container(ReentrantMemo.self)
        let reached = Mutex(false)
        let run = saveReachingBack(container) {
            MainActor.assumeIsolated {
                let context = container.mainContext
                reached.withLock { $0 = context === container.mainContext }
            }
        }
        #expect(run.outer == nil)
        #expect(reached.withLock { $0 })
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
