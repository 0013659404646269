import Foundation
import Synchronization
import Testing
import Folio

/// Counts how many calls run at once, from outside the actor's isolation (so that counting itself
/// cannot race).
final class OverlapCounter: Sendable {
    private let state = Mutex((running: 0, most: 0))
    func enter() {
        state.withLock {
            $0.running += 1; $0.most = max($0.most, $0.running)
        }
    }
    func leave() { state.withLock { $0.running -= 1 } }
    var most: Int { state.withLock { $0.most } }
}

/// An importer as an app writes it for SwiftData.
@ModelActor
actor MemberImporter {
    func importMembers(prefix: String, count: Int) throws -> [PersistentIdentifier] {
        let members = (0..<count).map { Member(handle: "\(prefix)-\($0)", score: $0) }
        for member in members { modelContext.insert(member) }
        try modelContext.save()
        return members.map(\.persistentModelID)
    }

    func score(of id: PersistentIdentifier) -> Int? {
        self[id, as: Member.self]?.score
    }

    func isRegistered(_ id: PersistentIdentifier) -> Bool {
        (modelContext.registeredModel(for: id) as Member?) != nil
    }

    func storedCount() throws -> Int {
        try modelContext.fetchCount(FetchDescriptor<Member>())
    }

    func runsOnItsExecutor() -> Bool {
        (modelExecutor as? DefaultSerialModelExecutor)?.isIsolatingCurrentContext() == true
    }

    func runsOnTheMainThread() -> Bool {
        Thread.isMainThread
    }

    /// Inserts and saves a few members, counting the calls that overlap with this one.
    func importCounting(_ counter: OverlapCounter, prefix: String) throws {
        counter.enter()
        defer { counter.leave() }
        for index in 0..<5 { modelContext.insert(Member(handle: "\(prefix)-\(index)", score: index)) }
        try modelContext.save()
    }

    func enableAutosave() {
        modelContext.autosaveEnabled = true
    }

    func insertWithoutSaving(handle: String) -> Bool {
        modelContext.insert(Member(handle: handle, score: 1))
        return modelContext.hasChanges
    }

    func hasChanges() -> Bool {
        modelContext.hasChanges
    }
}

/// A model actor with an initializer of its own, and state that initializer sets.
@ModelActor
actor LabelledImporter {
    let label: String

    init(container: ModelContainer, label: String) {
        self.modelContainer = container
        let ctx = ModelContext(container)
        ctx.author = label
        self.modelExecutor = DefaultSerialModelExecutor(modelContext: ctx)
        self.label = label
    }

    func importMember() throws -> PersistentIdentifier {
        let member = Member(handle: label, score: 7)
        modelContext.insert(member)
        try modelContext.save()
        return member.persistentModelID
    }

    func author() -> String? {
        modelContext.author
    }
}

/// A model actor with only a custom initializer; SwiftData's macro adds `init(modelContainer:)` too.
@ModelActor
actor CustomInitImporter {
    init(container: ModelContainer) {
        self.modelContainer = container
        let ctx = ModelContext(container)
        self.modelExecutor = DefaultSerialModelExecutor(modelContext: ctx)
    }

    func count() throws -> Int {
        try modelContext.fetchCount(FetchDescriptor<Member>())
    }
}

@Suite("Model actors")
struct ModelActorTests {
    func makeContainer() throws -> ModelContainer {
        try ModelContainer(for: Member.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
    }

    /// Inserts `member` into `context` and saves.
    func save(_ member: Member, in context: ModelContext) throws -> Member {
        context.insert(member)
        try context.save()
        return member
    }

    @Test func anImporterInsertsManyModelsAndSavesThemFromTheActor() async throws {
        let container = try makeContainer()
        let importer = MemberImporter(modelContainer: container)
        let identifiers = try await importer.importMembers(prefix: "bulk", count: 500)
        #expect(identifiers.count == 500)
        #expect(identifiers.allSatisfy { !$0.isTemporary })
        #expect(Set(identifiers).count == 500)
        #expect(try await importer.storedCount() == 500)
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Member>()) == 500)
        #expect(importer.modelContainer === container)
    }

    @MainActor
    @Test func identifiersFromTheActorFindTheModelsInTheMainContext() async throws {
        let container = try makeContainer()
        let identifiers = try await MemberImporter(modelContainer: container).importMembers(prefix: "main", count: 3)
        let main = container.mainContext
        #expect((main.registeredModel(for: identifiers[1]) as Member?) == nil)
        let member = try #require(main.model(for: identifiers[1]) as? Member)
        #expect(member.handle == "main-1")
        #expect(member.score == 1)
        #expect(member.persistentModelID == identifiers[1])
        #expect((main.registeredModel(for: identifiers[1]) as Member?) === member)
    }

    @Test func identifiersFromTheActorFindTheModelsInAPlainContext() async throws {
        let container = try makeContainer()
        let identifiers = try await MemberImporter(modelContainer: container).importMembers(prefix: "plain", count: 4)
        let context = ModelContext(container)
        let scores = identifiers.compactMap { (context.model(for: $0) as? Member)?.score }
        #expect(scores == [0, 1, 2, 3])
        let registered: [Member] = identifiers.compactMap { context.registeredModel(for: $0) }
        #expect(registered.map(\.handle) == ["plain-0", "plain-1", "plain-2", "plain-3"])
    }

    @Test func theSubscriptFindsModelsByIdentifierOnTheActor() async throws {
        let container = try makeContainer()
        let context = ModelContext(container)
        let stored = try save(Member(handle: "elsewhere", score: 42), in: context)
        let importer = MemberImporter(modelContainer: container)
        // Saved by another context: not registered on the actor, loaded from the store.
        #expect(await importer.isRegistered(stored.persistentModelID) == false)
        #expect(await importer.score(of: stored.persistentModelID) == 42)
        #expect(await importer.isRegistered(stored.persistentModelID))
        // Saved by the actor itself: its own instance.
        let own = try await importer.importMembers(prefix: "own", count: 2)
        #expect(await importer.score(of: own[1]) == 1)

        let deleted = try save(Member(handle: "gone", score: 5), in: context)
        let deletedID = deleted.persistentModelID
        context.delete(deleted)
        try context.save()
        #expect(await importer.score(of: deletedID) == nil)
    }

    @Test func theSubscriptGivesNilForAnotherStoresIdentifier() async throws {
        let foreign = try save(Member(handle: "foreign", score: 9), in: ModelContext(try makeContainer()))
        let importer = MemberImporter(modelContainer: try makeContainer())
        _ = try await importer.importMembers(prefix: "local", count: 3)
        #expect(await importer.score(of: foreign.persistentModelID) == nil)
    }

    @Test func aCustomInitializerSetsTheActorsState() async throws {
        let container = try makeContainer()
        let importer = LabelledImporter(container: container, label: "labelled")
        #expect(importer.label == "labelled")
        #expect(await importer.author() == "labelled")
        let identifier = try await importer.importMember()
        let member = try #require(ModelContext(container).model(for: identifier) as? Member)
        #expect(member.handle == "labelled")
        let history = try ModelContext(container).fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        #expect(history.last?.author == "labelled")
    }

    @Test func aCustomInitializerKeepsTheGeneratedOne() async throws {
        let container = try makeContainer()
        _ = try await MemberImporter(modelContainer: container).importMembers(prefix: "c", count: 2)
        #expect(try await CustomInitImporter(container: container).count() == 2)
        #expect(try await CustomInitImporter(modelContainer: container).count() == 2)
    }

    @MainActor
    @Test func theActorsWorkLeavesTheMainActorForTheActorsExecutor() async throws {
        let importer = MemberImporter(modelContainer: try makeContainer())
        #expect(await importer.runsOnItsExecutor())
        #expect(await importer.runsOnTheMainThread() == false)
    }

    @Test func theActorsCallsRunOneAtATime() async throws {
        let container = try makeContainer()
        let importer = MemberImporter(modelContainer: container)
        let counter = OverlapCounter()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<40 {
                group.addTask { try await importer.importCounting(counter, prefix: "t\(task)") }
            }
            try await group.waitForAll()
        }
        #expect(counter.most == 1)
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Member>()) == 200)
    }

    @Test func theExecutorIsTheActorsSerialExecutor() async throws {
        let importer = MemberImporter(modelContainer: try makeContainer())
        let executor = try #require(importer.modelExecutor as? DefaultSerialModelExecutor)
        #expect(importer.modelExecutor is any SerialModelExecutor)
        #expect(executor.isIsolatingCurrentContext() == false)
        #expect(await importer.runsOnItsExecutor())
    }

    @Test func readingTheExecutorsContextOutsideItsActorStopsTheProgram() async {
        await #expect(processExitsWith: .failure) {
            guard let container = try? ModelContainer(for: Member.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true)) else {
                exit(0)  // a success, so that the expectation fails: the read below never ran
            }
            let executor = DefaultSerialModelExecutor(modelContext: ModelContext(container))
            _ = executor.modelContext
        }
    }

    @Test func concurrentActorsSaveIntoOneContainer() async throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let container = try store.container(Member.self)
        let importers = (0..<4).map { _ in MemberImporter(modelContainer: container) }
        let identifiers = try await withThrowingTaskGroup(of: [PersistentIdentifier].self) { group in
            for (index, importer) in importers.enumerated() {
                group.addTask {
                    var all: [PersistentIdentifier] = []
                    for batch in 0..<5 {
                        all += try await importer.importMembers(prefix: "a\(index)b\(batch)", count: 20)
                    }
                    return all
                }
            }
            return try await group.reduce(into: [PersistentIdentifier]()) { $0 += $1 }
        }
        #expect(identifiers.count == 400)
        #expect(Set(identifiers).count == 400)
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Member>()) == 400)
        for importer in importers {
            #expect(try await importer.storedCount() == 400)
        }
        // The store holds them all: a container opened afresh reads them back.
        let reopened = try store.container(Member.self)
        let codes = try ModelContext(reopened).fetch(FetchDescriptor<Member>()).map(\.handle)
        #expect(Set(codes).count == 400)
    }

    @Test func aModelActorsAutosaveRunsOnTheActorsExecutor() async throws {
        let container = try makeContainer()
        let importer = MemberImporter(modelContainer: container)
        let executor = try #require(importer.modelExecutor as? DefaultSerialModelExecutor)
        // Where each save of this container's contexts ran: on the importer's executor or not.
        let savedOnExecutor = LockedArray<Bool>()
        let observer = NotificationCenter.default.addObserver(forName: ModelContext.didSave, object: nil, queue: nil) { note in
            guard let context = note.object as? ModelContext, context.container === container else { return }
            let onExecutor = executor.isIsolatingCurrentContext() == true
            savedOnExecutor.append(onExecutor)
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        await importer.enableAutosave()
        #expect(await importer.insertWithoutSaving(handle: "autosaved"))
        for _ in 0..<500 where savedOnExecutor.elements.isEmpty {
            try await Task.sleep(nanoseconds: 20_000_000)
        }
        #expect(savedOnExecutor.elements == [true])
        #expect(await importer.hasChanges() == false)
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Member>()) == 1)
    }
}
