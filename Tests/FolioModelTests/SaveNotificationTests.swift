import Foundation
import Synchronization
import Testing
import Folio

@Model
final class Memo {
    var text: String
    init(text: String) { self.text = text }
}

/// An array that several threads append to.
final class LockedArray<Element: Sendable>: Sendable {
    private let storage = Mutex<[Element]>([])
    func append(_ element: Element) { storage.withLock { $0.append(element) } }
    var elements: [Element] { storage.withLock { $0 } }
}

/// What one `willSave` or `didSave` of a context carried, and what the store held when it was posted.
struct SaveEvent: Sendable, Equatable {
    var name: Notification.Name
    /// The number of memos a fresh context of the container fetched from inside the observer.
    var storedMemos: Int
    var hasUserInfo: Bool
    var inserted: [PersistentIdentifier]?
    var updated: [PersistentIdentifier]?
    var deleted: [PersistentIdentifier]?
}

/// Records the save notifications of one context, in order, until it is stopped.
final class SaveRecorder: Sendable {
    private let events = LockedArray<SaveEvent>()
    private let observers = LockedArray<UncheckedObserver>()

    /// An observer token of `NotificationCenter`, kept only to remove it again. Unchecked: the token is
    /// never used but by handing it back to `NotificationCenter`, which is thread-safe.
    struct UncheckedObserver: @unchecked Sendable { let token: any NSObjectProtocol }

    init(_ context: ModelContext, container: ModelContainer) {
        for name in [ModelContext.willSave, ModelContext.didSave] {
            let token = NotificationCenter.default.addObserver(forName: name, object: context, queue: nil) { [events] note in
                let count = (try? ModelContext(container).fetchCount(FetchDescriptor<Memo>())) ?? -1
                let info = note.userInfo
                func identifiers(_ key: ModelContext.NotificationKey) -> [PersistentIdentifier]? {
                    info?[key.rawValue] as? [PersistentIdentifier]
                }
                events.append(
                    SaveEvent(
                        name: note.name, storedMemos: count, hasUserInfo: info != nil,
                        inserted: identifiers(.insertedIdentifiers), updated: identifiers(.updatedIdentifiers),
                        deleted: identifiers(.deletedIdentifiers)))
            }
            observers.append(UncheckedObserver(token: token))
        }
    }

    var recorded: [SaveEvent] { events.elements }

    func stop() {
        for observer in observers.elements { NotificationCenter.default.removeObserver(observer.token) }
    }
}

@Suite("Save notifications")
struct SaveNotificationTests {
    func makeContainer(_ types: any PersistentModel.Type...) throws -> ModelContainer {
        try ModelContainer(for: Schema(types), configurations: [ModelConfiguration(isStoredInMemoryOnly: true)])
    }

    func willSave(stored: Int) -> SaveEvent {
        SaveEvent(name: ModelContext.willSave, storedMemos: stored, hasUserInfo: false)
    }

    func didSave(
        stored: Int, inserted: [PersistentIdentifier] = [], updated: [PersistentIdentifier] = [],
        deleted: [PersistentIdentifier] = []
    ) -> SaveEvent {
        SaveEvent(
            name: ModelContext.didSave, storedMemos: stored, hasUserInfo: true, inserted: inserted, updated: updated,
            deleted: deleted)
    }

    @Test func theNamesAndKeysAreSwiftDatas() {
        #expect(ModelContext.willSave != ModelContext.didSave)
        #expect(ModelContext.NotificationKey.insertedIdentifiers.rawValue == "insertedIdentifiers")
        #expect(ModelContext.NotificationKey.updatedIdentifiers.rawValue == "updatedIdentifiers")
        #expect(ModelContext.NotificationKey.deletedIdentifiers.rawValue == "deletedIdentifiers")
        #expect(ModelContext.NotificationKey.invalidatedAllIdentifiers.rawValue == "invalidatedAllIdentifiers")
        #expect(ModelContext.NotificationKey.queryGeneration.rawValue == "queryGeneration")
    }

    @Test func aSavePostsWillSaveBeforeAndDidSaveAfterWithTheIdentifiers() throws {
        let container = try makeContainer(Memo.self)
        let context = ModelContext(container)
        let recorder = SaveRecorder(context, container: container)
        defer { recorder.stop() }

        let memos = ["a", "b", "c"].map(Memo.init(text:))
        for memo in memos { context.insert(memo) }
        try context.save()
        let ids = memos.map(\.persistentModelID)
        #expect(recorder.recorded == [willSave(stored: 0), didSave(stored: 3, inserted: ids)])

        memos[0].text = "A"
        context.delete(memos[1])
        let added = Memo(text: "d")
        context.insert(added)
        try context.save()
        #expect(
            recorder.recorded.dropFirst(2) == [
                willSave(stored: 3),
                didSave(stored: 3, inserted: [added.persistentModelID], updated: [ids[0]], deleted: [ids[1]]),
            ])
    }

    @Test func didSaveListsEveryModelOfALargeSave() throws {
        let container = try makeContainer(Memo.self)
        let context = ModelContext(container)
        let recorder = SaveRecorder(context, container: container)
        defer { recorder.stop() }
        let memos = (0..<300).map { Memo(text: "\($0)") }
        for memo in memos { context.insert(memo) }
        try context.save()
        #expect(Set(recorder.recorded.last?.inserted ?? []) == Set(memos.map(\.persistentModelID)))
        #expect(recorder.recorded.last?.inserted?.count == 300)
    }

    @Test func anUpsertIsPostedAsAnUpdate() throws {
        let container = try makeContainer(Member.self)
        let first = ModelContext(container)
        let original = Member(handle: "P-1", score: 1)
        first.insert(original)
        try first.save()

        let second = ModelContext(container)
        let recorder = SaveRecorder(second, container: container)
        defer { recorder.stop() }
        let replacement = Member(handle: "P-1", score: 2)
        second.insert(replacement)
        try second.save()
        let event = try #require(recorder.recorded.last)
        #expect(event.inserted == [])
        #expect(event.updated == [original.persistentModelID])
        #expect(event.deleted == [])
    }

    @Test func aSaveWithNoChangesPostsNothing() throws {
        let container = try makeContainer(Memo.self)
        let context = ModelContext(container)
        let recorder = SaveRecorder(context, container: container)
        defer { recorder.stop() }
        try context.save()
        #expect(recorder.recorded.isEmpty)

        context.insert(Memo(text: "x"))
        try context.save()
        try context.save()
        #expect(recorder.recorded.map(\.name) == [ModelContext.willSave, ModelContext.didSave])
    }

    @Test func aSaveThatIsRefusedPostsNoDidSave() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        _ = try store.container(Memo.self)
        let container = try ModelContainer(for: Memo.self, configurations: ModelConfiguration(url: store.url, allowsSave: false))
        let context = ModelContext(container)
        let recorder = SaveRecorder(context, container: container)
        defer { recorder.stop() }
        context.insert(Memo(text: "refused"))
        #expect(throws: FolioError.self) { try context.save() }
        #expect(!recorder.recorded.contains { $0.name == ModelContext.didSave })
    }

    @Test func notificationsOfOneContextAreNotPostedForAnother() throws {
        let container = try makeContainer(Memo.self)
        let watched = ModelContext(container)
        let recorder = SaveRecorder(watched, container: container)
        defer { recorder.stop() }
        let other = ModelContext(container)
        other.insert(Memo(text: "other"))
        try other.save()
        #expect(recorder.recorded.isEmpty)
    }

    @Test func aTransactionPostsBothNotifications() throws {
        let container = try makeContainer(Memo.self)
        let context = ModelContext(container)
        let recorder = SaveRecorder(context, container: container)
        defer { recorder.stop() }
        let memo = Memo(text: "in a transaction")
        try context.transaction {
            context.insert(memo)
        }
        #expect(recorder.recorded == [willSave(stored: 0), didSave(stored: 1, inserted: [memo.persistentModelID])])
    }

    @MainActor
    @Test func autosavePostsBothNotifications() async throws {
        let container = try makeContainer(Memo.self)
        let context = container.mainContext
        let recorder = SaveRecorder(context, container: container)
        defer { recorder.stop() }
        let memo = Memo(text: "autosaved")
        context.insert(memo)
        for _ in 0..<500 where recorder.recorded.count < 2 {
            try await Task.sleep(nanoseconds: 20_000_000)
        }
        #expect(recorder.recorded == [willSave(stored: 0), didSave(stored: 1, inserted: [memo.persistentModelID])])
    }

    @Test func changesMadeInWillSaveArePartOfTheSave() throws {
        let container = try makeContainer(Memo.self)
        let context = ModelContext(container)
        let late = Memo(text: "late")
        nonisolated(unsafe) let unsafeContext = context
        nonisolated(unsafe) let unsafeLate = late
        // The observer runs synchronously inside `save()`, on this thread: the context is not shared.
        let token = NotificationCenter.default.addObserver(forName: ModelContext.willSave, object: context, queue: nil) { _ in
            unsafeContext.insert(unsafeLate)
        }
        defer { NotificationCenter.default.removeObserver(token) }
        context.insert(Memo(text: "early"))
        try context.save()
        #expect(!late.persistentModelID.isTemporary)
        #expect(context.hasChanges == false)
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Memo>()) == 2)
    }
}
