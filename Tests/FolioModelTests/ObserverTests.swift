import Foundation
import Observation
import Testing
@testable import Folio

/// Waits up to `seconds` for `condition`, letting other tasks on the main actor run. The default is
/// generous so that a busy machine only makes a test slower, never fail; speeds go to the benchmark.
@MainActor
func eventually(_ seconds: Double = 120, _ condition: () -> Bool) async -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if condition() { return true }
        try? await Task.sleep(nanoseconds: 5_000_000)
    }
    return condition()
}

@MainActor
@Suite("Observers")
struct ObserverTests {
    @Test func resultsFollowSavesInTheSameContext() async throws {
        let container = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        let observer = try ResultsObserver<Trip, Never>(
            filterBy: #Predicate { $0.destination == "Rome" },
            sortBy: [SortDescriptor(\.name)], modelContext: context)
        #expect(observer.results.isEmpty)
        #expect(observer.sections == nil)
        context.insert(Trip(name: "b", destination: "Rome", startDate: .now, price: 1))
        context.insert(Trip(name: "a", destination: "Rome", startDate: .now, price: 1))
        context.insert(Trip(name: "c", destination: "Oslo", startDate: .now, price: 1))
        try context.save()
        #expect(await eventually { observer.results.map(\.name) == ["a", "b"] })
    }

    @Test func resultsFollowSavesInAnotherContextAndNotifyObservation() async throws {
        let container = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let observer = try ResultsObserver<Trip, Never>(sortBy: [SortDescriptor(\.price)], modelContainer: container)
        let fired = Flag()
        withObservationTracking {
            _ = observer.results
        } onChange: {
            fired.set()
        }
        let writer = ModelContext(container)
        let trip = Trip(name: "x", destination: "Lima", startDate: .now, price: 5)
        writer.insert(trip)
        try writer.save()
        #expect(await eventually { observer.results.count == 1 })
        #expect(fired.value)
        // An update of a property the query does not use refreshes the model without refetching.
        trip.notes = "changed"
        try writer.save()
        #expect(await eventually { observer.results.first?.notes == "changed" })
        trip.price = 1
        writer.insert(Trip(name: "y", destination: "Lima", startDate: .now, price: 3))
        try writer.save()
        #expect(await eventually { observer.results.map(\.name) == ["x", "y"] })
    }

    @Test func sectionsFollowChanges() async throws {
        let container = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        let observer = try ResultsObserver<Trip, String>(sortBy: [SortDescriptor(\.name)], sectionBy: \.destination, modelContext: context)
        context.insert(Trip(name: "r1", destination: "Rome", startDate: .now, price: 1))
        context.insert(Trip(name: "o1", destination: "Oslo", startDate: .now, price: 1))
        context.insert(Trip(name: "r2", destination: "Rome", startDate: .now, price: 1))
        try context.save()
        #expect(await eventually { observer.sections?.sectionTitles == ["Oslo", "Rome"] })
        #expect(observer.sections?[sectionTitle: "Rome"]?.map(\.name) == ["r1", "r2"])
        let byNotes = try ResultsObserver<Trip, String>(sectionBy: \.notes, modelContext: context)
        #expect(byNotes.sections?.sectionTitles == [""])
    }

    @Test func resultsFollowAnotherProcess() async throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let container = try store.container(Trip.self)
        let observer = try ResultsObserver<Trip, Never>(modelContainer: container)
        #expect(observer.results.isEmpty)
        try runWorker([store.url.path, "insert", "2", "remote"])
        #expect(await eventually(120) { observer.results.count == 2 })
    }

    @Test func historyObserverCountsTransactionsFromContextsAndOtherProcessesFilteredByAuthor() async throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let container = try store.container(Trip.self)
        let all = try HistoryObserver(modelContainer: container)
        let workerOnly = try HistoryObserver(authors: ["worker"], modelContainer: container)
        #expect(all.eventCounter == 0)

        let context = ModelContext(container)
        context.author = "App"
        context.insert(Trip(name: "local", destination: "Here", startDate: .now, price: 1))
        try context.save()
        #expect(await eventually { all.eventCounter == 1 })
        #expect(workerOnly.eventCounter == 0)

        try runWorker([store.url.path, "insert", "1", "remote"])
        #expect(await eventually(120) { all.eventCounter == 2 && workerOnly.eventCounter == 1 })
        let newest = try #require(all.historyTokens[container.storeIdentifier])
        let history = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token >= newest }))
        #expect(history.first?.author == "worker")
    }

    @Test func historyObserverFiltersByObservedModelsAndTheirSubclasses() async throws {
        let container = try ModelContainer(for: Schema([Note.self] + recipeTypes), configurations: [ModelConfiguration(isStoredInMemoryOnly: true)])
        let recipes = try HistoryObserver(observedModels: [Recipe.self], modelContainer: container)
        let notes = try HistoryObserver(observedModels: [Note.self], modelContainer: container)
        let context = ModelContext(container)
        context.insert(BakedGood(name: "Bread", ovenTemperature: 200))
        try context.save()
        #expect(await eventually { recipes.eventCounter == 1 })
        #expect(notes.eventCounter == 0)
        context.insert(Note(text: "n"))
        try context.save()
        #expect(await eventually { notes.eventCounter == 1 })
        #expect(recipes.eventCounter == 1)
    }

    @Test func historyObserverStartingFromAnOldTokenCountsTheBacklog() async throws {
        let container = try ModelContainer(for: Note.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        context.insert(Note(text: "first"))
        try context.save()
        let token = try #require(try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).last?.token)
        context.insert(Note(text: "second"))
        try context.save()
        let observer = try HistoryObserver(historyTokens: [container.storeIdentifier: token], modelContainer: container)
        #expect(observer.eventCounter == 1)
    }

    @Test func continuousObservationRunsAgainAfterEachChange() async throws {
        let container = try ModelContainer(for: Note.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let observer = try HistoryObserver(modelContainer: container)
        let seen = Counter()
        let box = Isolation.Carrier(value: observer)
        let token = withContinuousObservation(options: .didSet) { _ in
            seen.record(box.value.eventCounter)
        }
        let context = ModelContext(container)
        context.insert(Note(text: "a"))
        try context.save()
        #expect(await eventually { seen.values.last == 1 })
        context.insert(Note(text: "b"))
        try context.save()
        #expect(await eventually { seen.values.last == 2 })
        token.cancel()
        context.insert(Note(text: "c"))
        try context.save()
        try await Task.sleep(nanoseconds: 50_000_000)
        #expect(seen.values == [0, 1, 2])
    }

    @Test func observationsSequenceDeliversEventCounterChanges() async throws {
        let container = try ModelContainer(for: Note.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let observer = try HistoryObserver(modelContainer: container)
        let context = ModelContext(container)
        let stream = Observations { observer.eventCounter }
        var iterator = stream.makeAsyncIterator()
        #expect(await iterator.next() == 0)
        context.insert(Note(text: "a"))
        try context.save()
        #expect(await iterator.next() == 1)
    }

    @Test func observationsSequenceDeliversResultsChanges() async throws {
        let container = try ModelContainer(for: Note.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        let observer = try ResultsObserver<Note, Never>(sortBy: [SortDescriptor(\.text)], modelContext: context)
        var iterator = Observations { observer.results.map(\.text) }.makeAsyncIterator()
        #expect(await iterator.next() == [])
        context.insert(Note(text: "b"))
        context.insert(Note(text: "a"))
        try context.save()
        #expect(await iterator.next() == ["a", "b"])
    }

    @Test func historyStreamYieldsTheBacklogThenNewTransactions() async throws {
        let container = try ModelContainer(for: Note.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        context.insert(Note(text: "a"))
        try context.save()
        let start = try #require(try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).first?.token)
        context.insert(Note(text: "b"))
        try context.save()
        var iterator = container.historyTransactions(after: DefaultHistoryToken(storeIdentifier: start.storeIdentifier, sequence: start.sequence - 1))
            .makeAsyncIterator()
        let first = try await iterator.next()
        let second = try await iterator.next()
        context.insert(Note(text: "c"))
        try context.save()
        let third = try await iterator.next()
        #expect([first, second, third].compactMap { $0?.token.sequence } == [start.sequence, start.sequence + 1, start.sequence + 2])
    }
}

final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var recorded: [Int] = []
    func record(_ value: Int) { lock.withLock { recorded.append(value) } }
    var values: [Int] { lock.withLock { recorded } }
}
