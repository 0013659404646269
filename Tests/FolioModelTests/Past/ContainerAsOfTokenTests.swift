import Foundation
import Testing
@testable import Folio

/// A container made with `ModelConfiguration(url:asOf:)` answers as the store did right after the
/// token's transaction, whether the store rebuilds that point by replaying its journal or by rolling
/// its snapshots back through the retained history, and never writes.
@Suite("Containers as of a history token")
struct ContainerAsOfTokenTests {
    static var types: [any PersistentModel.Type] { [PastShelf.self, PastBook.self] }

    static func container(_ store: TemporaryStore, retention: ModelConfiguration.HistoryRetention? = nil) throws -> ModelContainer {
        var configuration = ModelConfiguration(url: store.url)
        if let retention { configuration.historyRetention = retention }
        return try ModelContainer(for: Schema(types), configurations: [configuration])
    }

    static func past(_ store: TemporaryStore, _ token: DefaultHistoryToken) throws -> ModelContainer {
        try ModelContainer(for: Schema(types), configurations: [ModelConfiguration(url: store.url, asOf: token)])
    }

    static func history(_ context: ModelContext) throws -> [DefaultHistoryTransaction] {
        try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
    }

    /// The token of the store's last transaction.
    static func lastToken(_ context: ModelContext) throws -> DefaultHistoryToken {
        try #require(try history(context).last?.token)
    }

    /// Every file under `url` and its bytes, by path.
    static func files(_ url: URL) throws -> [String: Data] {
        var files: [String: Data] = [:]
        let enumerator = FileManager.default.enumerator(at: url, includingPropertiesForKeys: [.isRegularFileKey])
        while let file = enumerator?.nextObject() as? URL {
            guard try file.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile == true else { continue }
            files[file.path] = try Data(contentsOf: file)
        }
        return files
    }

    /// With `retainedTransactions` 0 the default retention keeps the whole history; with a few, the
    /// tokens the compaction left out of reach are refused, naming the oldest one in reach.
    @Test(
        "a container as of each token answers fetches, counts, relationships, sections, aggregates and history as the store did then (seeded)",
        arguments: [0, 6])
    func everyTokenAnswersAsTheStoreDidThen(retainedTransactions: Int) throws {
        let seed = ProcessInfo.processInfo.environment["FOLIO_DIFFERENTIAL_SEED"].flatMap(UInt64.init) ?? 20_261_207
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let retention = retainedTransactions > 0 ? ModelConfiguration.HistoryRetention(maximumCount: retainedTransactions) : nil
        let live = try Self.container(store, retention: retention)
        let context = ModelContext(live)
        var saves = RandomLibrarySaves(seed: seed)
        // The container's first transaction records its schema: the empty store with the models' schema.
        var points: [(token: DefaultHistoryToken, plain: PlainLibrary, what: String)] = [(try Self.lastToken(context), PlainLibrary(), "schema")]
        let count = 24
        for step in 0..<count {
            let done = try saves.save(context, step: step)
            points.append((try Self.lastToken(context), saves.plain, "step \(step): " + done.joined(separator: ", ")))
            // Tokens up to here are rebuilt by rolling the snapshots back, later ones from the journal.
            if step == count / 2 { try live.compact() }
        }
        let liveHistory = try Self.history(context)
        let before = try Self.files(store.url)
        var expired: [DefaultHistoryToken] = []
        var reachedOne = false
        for point in points {
            let message = Comment(rawValue: "seed \(seed), retention \(retainedTransactions), token \(point.token) after \(point.what)")
            let past: ModelContainer
            do {
                past = try Self.past(store, point.token)
            } catch let error as FolioError where error.code == .historyExpired && retainedTransactions > 0 {
                #expect(!reachedOne, "\(message): a token after one in reach is refused")
                expired.append(point.token)
                continue
            }
            if !reachedOne, let last = expired.last {
                // The refused tokens are the oldest ones; the oldest token in reach they name is after
                // them, up to this one (a save may take two sequences), and opens.
                let error = try #require(throws: FolioError.self) { try Self.past(store, last) }
                let named = try #require(Self.oldestNamed(in: error.message), message)
                #expect(last.sequence < named && named <= point.token.sequence, message)
                let oldest = DefaultHistoryToken(storeIdentifier: point.token.storeIdentifier, sequence: named)
                #expect(throws: Never.self, message) { _ = try Self.past(store, oldest) }
            }
            reachedOne = true
            #expect(!past.configuration.allowsSave, message)
            try Self.expectAnswers(of: past, equal: point.plain, message)
            let history = try Self.history(ModelContext(past))
            let expected = liveHistory.filter { $0.token.sequence <= point.token.sequence }
            #expect(history.map(\.token) == expected.map(\.token), message)
            #expect(history.map(\.changes.count) == expected.map(\.changes.count), message)
            // The point just before the retained history is in reach, without its own transaction.
            #expect(history.last?.token == (expected.isEmpty ? nil : point.token), message)
        }
        if retainedTransactions > 0 { #expect(!expired.isEmpty, "seed \(seed): the compaction put early tokens out of reach") }
        #expect(try Self.files(store.url) == before, "seed \(seed): opening as of a token changed the store's files")
        // The live container goes on as before.
        _ = try saves.save(context, step: count)
        #expect(try PlainLibrary.read(ModelContext(live)) == saves.plain, "seed \(seed): the live store after a save")
    }

    /// The sequence of the oldest token in reach an expired token's error names.
    static func oldestNamed(in message: String) -> UInt64? {
        guard let range = message.range(of: "the oldest token it reaches is #") else { return nil }
        return UInt64(message[range.upperBound...].prefix(while: \.isNumber))
    }

    /// Fetches with predicates and sorts, counts, relationships, sections and aggregates of `container`
    /// against `plain`.
    static func expectAnswers(of container: ModelContainer, equal plain: PlainLibrary, _ message: Comment) throws {
        let context = ModelContext(container)
        #expect(try PlainLibrary.read(context) == plain, message)
        let threshold = 200
        let longest = try context.fetch(
            FetchDescriptor<PastBook>(
                predicate: #Predicate { $0.pages > threshold }, sortBy: [SortDescriptor(\.pages, order: .reverse), SortDescriptor(\.key)]))
        let expectedLongest = plain.books.filter { $0.value.pages > threshold }
            .sorted { $0.value.pages != $1.value.pages ? $0.value.pages > $1.value.pages : $0.key < $1.key }.map(\.key)
        #expect(longest.map(\.key) == expectedLongest, message)
        #expect(
            try context.fetchCount(FetchDescriptor<PastBook>(predicate: #Predicate { $0.note == nil }))
                == plain.books.values.filter { $0.note == nil }.count, message)
        #expect(
            try context.fetchCount(FetchDescriptor<PastBook>(predicate: #Predicate { $0.shelf == nil }))
                == plain.books.values.filter { $0.shelf == nil }.count, message)
        #expect(try context.fetchCount(FetchDescriptor<PastShelf>()) == plain.shelves.count, message)
        let contents = plain.shelfContents
        for shelf in try context.fetch(FetchDescriptor<PastShelf>()) {
            #expect(shelf.books.map(\.key).sorted() == contents[shelf.key] ?? [], message)
        }
        let sections = try context.fetch(FetchDescriptor<PastBook>(sortBy: [SortDescriptor(\.key)]), sectionBy: \.genre)
        let expectedSections = Dictionary(grouping: plain.books.keys.sorted(), by: { plain.books[$0]?.genre ?? "" })
        #expect(Dictionary(uniqueKeysWithValues: sections.map { ($0.title, $0.map(\.key)) }) == expectedSections, message)
        #expect(try context.sum(\PastBook.pages) == plain.books.values.reduce(0) { $0 + $1.pages }, message)
        #expect(try context.maximum(\PastBook.pages) == plain.books.values.map(\.pages).max(), message)
    }

    @Test("a container as of a token refuses to save, erase or compact, and its store stays as it was")
    func aContainerAsOfATokenIsReadOnly() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let context = ModelContext(try Self.container(store))
        context.insert(PastShelf(key: 1, label: "first"))
        try context.save()
        let token = try Self.lastToken(context)
        let before = try Self.files(store.url)
        let past = try Self.past(store, token)
        let pastContext = ModelContext(past)
        pastContext.insert(PastShelf(key: 2, label: "second"))
        #expect(try #require(throws: FolioError.self) { try pastContext.save() }.code == .saveNotAllowed)
        #expect(try #require(throws: FolioError.self) { try past.erase() }.code == .storage)
        #expect(try #require(throws: FolioError.self) { try past.compact() }.code == .storage)
        pastContext.rollback()
        #expect(try pastContext.fetch(FetchDescriptor<PastShelf>()).map(\.label) == ["first"])
        #expect(try Self.files(store.url) == before)
    }

    @Test("a token older than the retained history names the oldest token the store reaches and the history retention")
    func anExpiredTokenNamesTheOldestReachableToken() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let live = try Self.container(store, retention: .init(maximumCount: 2, maximumBytes: nil))
        let context = ModelContext(live)
        var tokens: [DefaultHistoryToken] = []
        for key in 1...6 {
            context.insert(PastShelf(key: key, label: "S\(key)"))
            try context.save()
            tokens.append(try Self.lastToken(context))
        }
        try live.compact()
        // The history keeps the last two inserts: undoing them reaches back to the one before.
        let oldest = tokens[3]
        var configuration = ModelConfiguration(url: store.url, asOf: tokens[0])
        configuration.historyRetention = .init(maximumCount: 2, maximumBytes: nil)
        let error = try #require(throws: FolioError.self) { try ModelContainer(for: Schema(Self.types), configurations: [configuration]) }
        #expect(error.code == .historyExpired)
        #expect(error.message.contains("the oldest token it reaches is #\(oldest.sequence)"), "\(error)")
        #expect(error.message.contains("historyRetention"), "\(error)")
        #expect(error.message.contains("at most 2 transactions"), "\(error)")
        // The token it names opens.
        let reachable = try Self.past(store, oldest)
        #expect(try ModelContext(reachable).fetch(FetchDescriptor<PastShelf>(sortBy: [SortDescriptor(\.key)])).map(\.key) == [1, 2, 3, 4])
    }

    @Test("a token after the store's last transaction, or naming another transaction, is refused as expired")
    func aTokenTheStoreNeverHadIsRefused() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let context = ModelContext(try Self.container(store))
        context.insert(PastShelf(key: 1, label: "first"))
        try context.save()
        let token = try Self.lastToken(context)
        let later = DefaultHistoryToken(storeIdentifier: token.storeIdentifier, sequence: token.sequence + 3)
        let afterLast = try #require(throws: FolioError.self) { try Self.past(store, later) }
        #expect(afterLast.code == .historyExpired)
        #expect(afterLast.message.contains("its last transaction is #\(token.sequence)"), "\(afterLast)")
        let renumbered = DefaultHistoryToken(storeIdentifier: token.storeIdentifier, sequence: token.sequence, journalIdentifier: "another")
        let other = try #require(throws: FolioError.self) { try Self.past(store, renumbered) }
        #expect(other.code == .historyExpired)
        #expect(other.message.contains("another transaction"), "\(other)")
        // The same sequence without an identifier to check opens.
        let unchecked = DefaultHistoryToken(storeIdentifier: token.storeIdentifier, sequence: token.sequence)
        #expect(try ModelContext(try Self.past(store, unchecked)).fetchCount(FetchDescriptor<PastShelf>()) == 1)
    }

    @Test("a container as of a token whose models do not match the store's schema then throws schemaMismatch")
    func otherModelsThanTheStoresThenAreRefused() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let context = ModelContext(try Self.container(store))
        context.insert(PastShelf(key: 1, label: "first"))
        try context.save()
        let token = try Self.lastToken(context)
        let before = try Self.files(store.url)
        let error = try #require(throws: FolioError.self) {
            try ModelContainer(for: Ticket.self, configurations: ModelConfiguration(url: store.url, asOf: token))
        }
        #expect(error.code == .schemaMismatch)
        #expect(error.message.contains("does not migrate"), "\(error)")
        #expect(try Self.files(store.url) == before)
    }

    @Test("a container as of sequence 0 holds the empty store before its first transaction")
    func sequenceZeroIsTheEmptyStore() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let context = ModelContext(try Self.container(store))
        context.insert(PastShelf(key: 1, label: "first"))
        try context.save()
        let past = try Self.past(store, DefaultHistoryToken(storeIdentifier: store.url.standardizedFileURL.path, sequence: 0))
        #expect(try ModelContext(past).fetchCount(FetchDescriptor<PastShelf>()) == 0)
        #expect(try Self.history(ModelContext(past)).isEmpty)
    }
}
