import Foundation
import Testing
@testable import Folio
import FolioStorage

/// Notes, by tag, the threads a value was encoded on.
private enum EncodingThreads {
    private static let lock = NSLock()
    // Sendable: read and written only while holding `lock`.
    nonisolated(unsafe) private static var threads: [String: Set<ObjectIdentifier>] = [:]

    static func note(_ tag: String) {
        let thread = current
        lock.withLock { _ = threads[tag, default: []].insert(thread) }
    }

    static func seen(_ tag: String) -> Set<ObjectIdentifier> { lock.withLock { threads[tag] ?? [] } }

    /// The calling thread (its `Thread` object lives as long as it does).
    static var current: ObjectIdentifier { ObjectIdentifier(Thread.current) }
}

/// A `Codable` value whose encoding notes the thread it runs on.
struct ThreadNotingStamp: Codable, Equatable {
    var tag: String

    init(tag: String) {
        self.tag = tag
    }

    init(from decoder: any Decoder) throws {
        tag = try decoder.singleValueContainer().decode(String.self)
    }

    func encode(to encoder: any Encoder) throws {
        EncodingThreads.note(tag)
        var container = encoder.singleValueContainer()
        try container.encode(tag)
    }
}

@Model
final class Postcard {
    var serial: Int
    @Attribute(.codable) var stamp: ThreadNotingStamp
    var sender: Correspondent?

    init(serial: Int, stamp: ThreadNotingStamp) {
        self.serial = serial
        self.stamp = stamp
    }
}

@Model
final class Correspondent {
    var name: String
    @Attribute(.codable) var stamp: ThreadNotingStamp
    @Relationship(inverse: \Postcard.sender) var postcards: Set<Postcard> = []
    var favourite: Postcard?

    init(name: String, stamp: ThreadNotingStamp) {
        self.name = name
        self.stamp = stamp
    }
}

@Suite("A save reads models on its own thread")
struct SaveIsolationTests {
    /// Models are not `Sendable`: a save large enough to use several cores must still read every model
    /// on the thread that saves, the context's, whether the model has relationships or not.
    @Test func aLargeSaveEncodesEveryModelOnTheSavingThread() throws {
        let container = try ModelContainer(
            for: Postcard.self, Correspondent.self,
            configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        let tag = "large save \(UUID())"
        for serial in 0..<(3 * ParallelRuns.minimumCount) {
            context.insert(Postcard(serial: serial, stamp: ThreadNotingStamp(tag: tag)))
        }
        let correspondent = Correspondent(name: "Ada", stamp: ThreadNotingStamp(tag: tag))
        context.insert(correspondent)
        for serial in 0..<(3 * ParallelRuns.minimumCount) {
            let postcard = Postcard(serial: serial, stamp: ThreadNotingStamp(tag: tag))
            postcard.sender = correspondent
            context.insert(postcard)
        }
        try context.save()
        #expect(EncodingThreads.seen(tag) == [EncodingThreads.current])
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Postcard>()) == 6 * ParallelRuns.minimumCount)
    }

    /// Relationships to models the same save inserts are encoded before the store hands out their
    /// numbers; once written they hold the numbers handed out, and a `Set`'s stay sorted among the
    /// stored models' numbers.
    @Test func relationshipsToModelsInsertedInTheSameSaveHoldTheirNumbers() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let container = try store.container(Postcard.self, Correspondent.self)
        let context = ModelContext(container)
        let tag = "numbers \(UUID())"
        let stored = (0..<3).map { Postcard(serial: $0, stamp: ThreadNotingStamp(tag: tag)) }
        let keeper = Correspondent(name: "Keeper", stamp: ThreadNotingStamp(tag: tag))
        for model in stored { context.insert(model) }
        context.insert(keeper)
        try context.save()

        // One save: new postcards, a new correspondent referring to stored and new ones, and a stored
        // correspondent changed to refer to a new one.
        let fresh = (3..<6).map { Postcard(serial: $0, stamp: ThreadNotingStamp(tag: tag)) }
        let writer = Correspondent(name: "Writer", stamp: ThreadNotingStamp(tag: tag))
        writer.postcards = [fresh[2], stored[1], fresh[0], stored[0]]
        writer.favourite = fresh[1]
        context.insert(writer)
        keeper.favourite = fresh[2]
        try context.save()

        func number(_ model: any PersistentModel) throws -> Int64 {
            try #require(model.persistentModelID.id.recordNumber)
        }
        let writerRecord = try #require(container.store.record(id: try number(writer)))
        let expected = try [fresh[2], stored[1], fresh[0], stored[0]].map(number).sorted()
        #expect(writerRecord.values["postcards"] == .array(expected.map(JSONValue.int)))
        #expect(writerRecord.values["favourite"] == .int(try number(fresh[1])))
        let keeperRecord = try #require(container.store.record(id: try number(keeper)))
        #expect(keeperRecord.values["favourite"] == .int(try number(fresh[2])))
        // The new models' numbers are the store's own, past the stored ones.
        #expect(try fresh.map(number).allSatisfy { try $0 > number(keeper) && $0 < ProvisionalNumbers(count: 3).base })

        let reread = ModelContext(container)
        let writers = try reread.fetch(FetchDescriptor<Correspondent>(predicate: #Predicate { $0.name == "Writer" }))
        #expect(writers.first?.postcards.map(\.serial).sorted() == [0, 1, 3, 5])
        #expect(writers.first?.favourite?.serial == 4)
    }

    /// The write puts the allocated numbers only in place of provisional ones, and only in relationships:
    /// an attribute that happens to hold a number as large stays as it is.
    @Test func provisionalNumbersAreReplacedInRelationshipsOnly() throws {
        let numbers = ProvisionalNumbers(count: 3)
        let values = RecordValues([
            "one": .int(numbers.number(ofNew: 2)),
            "many": .array([.int(7), .int(numbers.number(ofNew: 0)), .null]),
            "count": .int(numbers.number(ofNew: 1)),
            "stored": .int(12),
        ])
        let resolved = numbers.resolved(values, relationships: ["one", "many", "stored"], allocated: [100, 101, 102])
        #expect(
            resolved
                == RecordValues([
                    "one": .int(102),
                    "many": .array([.int(7), .int(100), .null]),
                    "count": .int(numbers.number(ofNew: 1)),
                    "stored": .int(12),
                ]))
        #expect(numbers.collides(with: numbers.base))
        #expect(!numbers.collides(with: 1 << 40))
    }
}
