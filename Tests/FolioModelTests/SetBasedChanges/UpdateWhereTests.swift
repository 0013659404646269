import Foundation
import Testing
@testable import Folio

/// `update(model:where:_:)` gives every record what changing its model and saving would, in one
/// transaction, without making models; bad changes are refused before anything is written.
@Suite("Updates by predicate")
struct UpdateWhereTests {
    static var types: [any PersistentModel.Type] { [BatchGadget.self, BatchShelf.self, BatchCornerShelf.self] }

    static func container(_ store: TemporaryStore) throws -> ModelContainer {
        try ModelContainer(for: Schema(types), configurations: [ModelConfiguration(url: store.url)])
    }

    /// The gadgets of `seed`, the same in every store made from it.
    static func gadgets(seed: UInt64, count: Int) -> [BatchGadget] {
        var rng = SplitMix64(state: seed)
        let makers = ["Acme", "Bolt", "Cogs", "Émile", "Émile", "dyn"]
        return (0..<count).map { index in
            BatchGadget(
                serial: "S\(index)", maker: makers.randomElement(using: &rng) ?? "Acme", model: index,
                price: [Double.infinity, -0.0, 1e300, .nan, 9.5][
                    Int.random(in: 0..<20, using: &rng) % 5 == 0 ? Int.random(in: 0..<5, using: &rng) : 4]
                    + Double(Int.random(in: 0..<400, using: &rng)),
                stock: Int.random(in: -5..<50, using: &rng),
                note: Bool.random(using: &rng) ? nil : "n\(Int.random(in: 0..<9, using: &rng))",
                added: Date(timeIntervalSince1970: Double(Int.random(in: 0..<1_000_000, using: &rng))))
        }
    }

    /// What a gadget holds, comparable across stores (NaN prices compare by their bits).
    struct Values: Equatable {
        var serial: String, maker: String, model: Int, priceBits: UInt64, stock: Int, note: String?, rating: Double, added: Date
        init(_ gadget: BatchGadget) {
            serial = gadget.serial; maker = gadget.maker; model = gadget.model
            priceBits = gadget.price.isNaN ? Double.nan.bitPattern : gadget.price.bitPattern
            stock = gadget.stock; note = gadget.note; rating = gadget.rating; added = gadget.added
        }
    }

    static func values(_ container: ModelContainer) throws -> [Values] {
        try ModelContext(container).fetch(FetchDescriptor<BatchGadget>(sortBy: [SortDescriptor(\.serial)])).map(Values.init)
    }

    /// One random case: a predicate, and the same change written as updates and as a model change.
    struct Case {
        var predicate: Predicate<BatchGadget>
        var updates: [AttributeUpdate<BatchGadget>]
        var change: (BatchGadget) -> Void
        var text: String
    }

    static func randomCase(_ rng: inout SplitMix64) -> Case {
        let threshold = Double(Int.random(in: 0..<400, using: &rng))
        let maker = ["Acme", "Émile", "E\u{301}mile", "dyn", "zzz"].randomElement(using: &rng) ?? "Acme"
        let stock = Int.random(in: -5..<50, using: &rng)
        let predicates: [(Predicate<BatchGadget>, String)] = [
            (#Predicate { $0.price < threshold }, "price < \(threshold)"),
            (#Predicate { $0.maker == maker }, "maker == \(maker)"),
            (#Predicate { $0.stock >= stock && $0.note != nil }, "stock >= \(stock) && note != nil"),
            (#Predicate { $0.note == nil || $0.maker > maker }, "note == nil || maker > \(maker)"),
            (#Predicate { _ in true }, "true"),
        ]
        let (predicate, predicateText) = predicates[Int.random(in: 0..<predicates.count, using: &rng)]
        let delta = Int.random(in: -3..<4, using: &rng)
        let note = Bool.random(using: &rng) ? nil : "set\(delta)"
        let date = Date(timeIntervalSince1970: Double(delta) * 86_400)
        switch Int.random(in: 0..<5, using: &rng) {
        case 0:
            return Case(predicate: predicate, updates: [.set(\.price) { $0 + 1 }], change: { $0.price += 1 }, text: "\(predicateText): price += 1")
        case 1:
            return Case(
                predicate: predicate, updates: [.set(\.stock) { $0 * 2 + delta }, .set(\.note, to: note)],
                change: {
                    $0.stock = $0.stock * 2 + delta; $0.note = note
                }, text: "\(predicateText): stock = stock*2+\(delta), note = \(String(describing: note))")
        case 2:
            return Case(
                predicate: predicate, updates: [.set(\.rating, to: Double(delta))], change: { $0.rating = Double(delta) },
                text: "\(predicateText): rating = \(delta)")
        case 3:
            return Case(
                predicate: predicate, updates: [.set(\.added) { $0.addingTimeInterval(date.timeIntervalSince1970) }],
                change: { $0.added = $0.added.addingTimeInterval(date.timeIntervalSince1970) }, text: "\(predicateText): added += \(delta) days")
        default:
            return Case(
                predicate: predicate, updates: [.set(\.note) { $0.map { $0 + "!" } }], change: { $0.note = $0.note.map { $0 + "!" } },
                text: "\(predicateText): note += !")
        }
    }

    @Test("an update by predicate leaves every record as changing its model and saving would (seeded)")
    func updatesEqualModelChanges() throws {
        let seed = ProcessInfo.processInfo.environment["FOLIO_DIFFERENTIAL_SEED"].flatMap(UInt64.init) ?? 20_261_207
        var rng = SplitMix64(state: seed)
        let byPredicate = TemporaryStore(), byModels = TemporaryStore()
        defer { byPredicate.cleanUp(); byModels.cleanUp() }
        let setContainer = try Self.container(byPredicate), modelContainer = try Self.container(byModels)
        for container in [setContainer, modelContainer] {
            let context = ModelContext(container)
            for gadget in Self.gadgets(seed: seed, count: 120) { context.insert(gadget) }
            try context.save()
        }
        for step in 0..<40 {
            let test = Self.randomCase(&rng)
            let setContext = ModelContext(setContainer)
            let count = try setContext.update(model: BatchGadget.self, where: test.predicate, changes: test.updates)
            let modelContext = ModelContext(modelContainer)
            for gadget in try modelContext.fetch(FetchDescriptor<BatchGadget>(predicate: test.predicate)) { test.change(gadget) }
            let expectedCount = modelContext.changedModelsArray.filter { !$0.persistentBackingData.changedProperties.isEmpty }.count
            try modelContext.save()
            let expected = try Self.values(modelContainer), found = try Self.values(setContainer)
            #expect(found == expected, "seed \(seed), step \(step): \(test.text)")
            #expect(count <= expectedCount, "seed \(seed), step \(step): \(test.text): \(count) records changed")
        }
        // Both stores read back the same after reopening, from their files.
        let reopened = try ModelContainer(for: Schema(Self.types), configurations: [ModelConfiguration(url: byPredicate.url)])
        #expect(try Self.values(reopened) == (try Self.values(modelContainer)), "seed \(seed): after reopening")
    }

    @Test("an update changes only the matching records, returns how many changed, and keeps other attributes")
    func updateChangesMatchingRecords() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let container = try Self.container(store)
        let context = ModelContext(container)
        for gadget in Self.gadgets(seed: 1, count: 30) { context.insert(gadget) }
        try context.save()
        let before = try Self.values(container)
        let changed = try ModelContext(container).update(model: BatchGadget.self, where: #Predicate { $0.stock < 10 }, .set(\.stock, to: 10))
        let after = try Self.values(container)
        #expect(changed == before.filter { $0.stock < 10 }.count)
        #expect(changed > 0)
        for (old, new) in zip(before, after) {
            var expected = old
            if old.stock < 10 { expected.stock = 10 }
            #expect(new == expected, "\(old.serial)")
        }
        // Setting what records hold already changes nothing.
        #expect(try ModelContext(container).update(model: BatchGadget.self, where: #Predicate { $0.stock <= 10 }, .set(\.stock, to: 10)) == 0)
    }

    @Test("each updated record's history has its changed values, under the context's author")
    func updateWritesHistory() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let container = try Self.container(store)
        let context = ModelContext(container)
        for gadget in Self.gadgets(seed: 2, count: 10) { context.insert(gadget) }
        try context.save()
        let updater = ModelContext(container)
        updater.author = "Repricer"
        let changed = try updater.update(model: BatchGadget.self, where: #Predicate { $0.model < 4 }, .set(\.rating, to: 5))
        #expect(changed == 4)
        let last = try #require(try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).last)
        #expect(last.author == "Repricer")
        #expect(last.changes.count == 4)
        for change in last.changes {
            guard case .update(let update) = change, let typed = update as? DefaultHistoryUpdate<BatchGadget> else {
                Issue.record("expected updates, found \(change)")
                continue
            }
            #expect(typed.updatedAttributes.count == 1)
            #expect(typed.changedValues.value(for: \.rating) == 5)
        }
    }

    @Test("models held without unsaved changes read the new values; a model's unsaved change is kept and saved over the update")
    func liveModelsSeeTheUpdate() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let container = try Self.container(store)
        let context = ModelContext(container)
        for gadget in Self.gadgets(seed: 3, count: 5) { context.insert(gadget) }
        try context.save()
        let held = try context.fetch(FetchDescriptor<BatchGadget>(sortBy: [SortDescriptor(\.serial)]))
        let other = ModelContext(container)
        let otherHeld = try other.fetch(FetchDescriptor<BatchGadget>(sortBy: [SortDescriptor(\.serial)]))
        _ = otherHeld.map(\.stock)
        held[0].stock = 1234
        try context.update(model: BatchGadget.self, .set(\.stock, to: 7), .set(\.note, to: "batch"))
        #expect(held[1].stock == 7)
        #expect(held[1].note == "batch")
        #expect(held[0].stock == 1234, "an unsaved change is kept")
        // The other context's models read the new values on their next fetch.
        let refetched = try other.fetch(FetchDescriptor<BatchGadget>(sortBy: [SortDescriptor(\.serial)]))
        #expect(refetched.map(\.stock).allSatisfy { $0 == 7 })
        #expect(refetched[2] === otherHeld[2])
        try context.save()
        #expect(try Self.values(container).map(\.stock) == [1234, 7, 7, 7, 7])
    }

    @Test("an update of a subclass's records, and of the superclass without them")
    func updateFollowsIncludeSubclasses() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let container = try Self.container(store)
        let context = ModelContext(container)
        context.insert(BatchShelf(label: "plain"))
        context.insert(BatchCornerShelf(label: "corner", corner: 1))
        try context.save()
        #expect(try context.update(model: BatchShelf.self, includeSubclasses: false, .set(\.label) { $0 + "!" }) == 1)
        #expect(try context.update(model: BatchShelf.self, .set(\.label) { $0 + "?" }) == 2)
        let labels = try ModelContext(container).fetch(FetchDescriptor<BatchShelf>(sortBy: [SortDescriptor(\.label)])).map(\.label)
        #expect(labels == ["corner?", "plain!?"])
    }

    @Test("an update that would break .unique or #Unique is refused before anything is written")
    func updateRespectsUniqueness() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let container = try Self.container(store)
        let context = ModelContext(container)
        for gadget in Self.gadgets(seed: 4, count: 6) { context.insert(gadget) }
        try context.save()
        let before = try Self.values(container)
        let sequence = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).count

        let sameSerial = #expect(throws: FolioError.self) {
            try context.update(model: BatchGadget.self, where: #Predicate { $0.model < 2 }, .set(\.serial, to: "one"))
        }
        #expect(sameSerial?.code == .uniquenessViolation)
        #expect(sameSerial?.description.contains("serial") == true)
        let samePair = #expect(throws: FolioError.self) {
            try context.update(model: BatchGadget.self, .set(\.maker, to: "Acme"), .set(\.model) { $0 % 2 })
        }
        #expect(samePair?.code == .uniquenessViolation)
        #expect(samePair?.description.contains("maker, model") == true)
        #expect(try Self.values(container) == before)
        #expect(try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).count == sequence)

        // Distinct new values, and a value moving from one record to another in the same update, are fine.
        #expect(try context.update(model: BatchGadget.self, .set(\.serial) { "X" + $0 }) == 6)
        #expect(try context.update(model: BatchGadget.self, .set(\.model) { ($0 + 1) % 6 }) == 6)
        #expect(try Self.values(container).map(\.serial) == before.map { "X" + $0.serial })
    }

    @Test("an update of a relationship, an ephemeral attribute or by a throwing transform is refused, the store unchanged")
    func badUpdatesAreRefused() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let container = try Self.container(store)
        let context = ModelContext(container)
        for gadget in Self.gadgets(seed: 5, count: 6) { context.insert(gadget) }
        try context.save()
        let before = try Self.values(container)
        struct Refused: Error {}

        let relationship = #expect(throws: FolioError.self) { try context.update(model: BatchGadget.self, .set(\.shelf, to: nil)) }
        #expect(relationship?.code == .invalidModel)
        #expect(relationship?.description.contains("BatchGadget.shelf is a relationship") == true)
        let ephemeral = #expect(throws: FolioError.self) { try context.update(model: BatchGadget.self, .set(\.scratch, to: 1)) }
        #expect(ephemeral?.code == .invalidModel)
        #expect(ephemeral?.description.contains("ephemeral") == true)
        var calls = 0
        let thrown = #expect(throws: FolioError.self) {
            try context.update(
                model: BatchGadget.self,
                .set(\.stock) { stock in
                    calls += 1
                    if calls == 4 { throw Refused() }
                    return stock + 1
                })
        }
        #expect(thrown?.code == .modelCoding)
        #expect(thrown?.underlying is Refused || (thrown?.underlying as? FolioError)?.underlying is Refused)
        #expect(try Self.values(container) == before)

        let huge = Int.max
        let overflow = #expect(throws: FolioError.self) {
            try context.update(model: BatchGadget.self, where: #Predicate { $0.stock + huge > 0 }, .set(\.stock, to: 1))
        }
        #expect(overflow?.code == .invalidFetchDescriptor)
        #expect(try Self.values(container) == before)

        let readOnly = try ModelContainer(for: Schema(Self.types), configurations: [ModelConfiguration(url: store.url, allowsSave: false)])
        let refused = #expect(throws: FolioError.self) { try ModelContext(readOnly).update(model: BatchGadget.self, .set(\.stock, to: 1)) }
        #expect(refused?.code == .saveNotAllowed)
        #expect(try Self.values(container) == before)
    }

    @Test("results observers and other contexts see an update like a save")
    func observersHearOfUpdates() async throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let container = try Self.container(store)
        let context = ModelContext(container)
        for gadget in Self.gadgets(seed: 6, count: 4) { context.insert(gadget) }
        try context.save()
        let observer = try ResultsObserver<BatchGadget, Never>(
            filterBy: #Predicate { $0.stock == 999 },
            sortBy: [SortDescriptor(\.serial)], modelContainer: container)
        #expect(observer.results.isEmpty)
        let other = ModelContext(container)
        #expect(try other.fetchCount(FetchDescriptor<BatchGadget>(predicate: #Predicate { $0.stock == 999 })) == 0)
        try ModelContext(container).update(model: BatchGadget.self, where: #Predicate { $0.model < 3 }, .set(\.stock, to: 999))
        #expect(await eventually { observer.results.map(\.serial) == ["S0", "S1", "S2"] })
        #expect(try other.fetchCount(FetchDescriptor<BatchGadget>(predicate: #Predicate { $0.stock == 999 })) == 3)
    }

    @Test("an update after another container's save of an indexed attribute leaves every index right")
    func updateAfterAnotherWriterKeepsIndexesRight() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let mine = try Self.container(store)
        let context = ModelContext(mine)
        for gadget in Self.gadgets(seed: 7, count: 40) { context.insert(gadget) }
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<BatchGadget>(predicate: #Predicate { $0.serial == "S3" })) == 1)

        // Another container (as another process would) renames S3, and saves a model change (a bulk update).
        let theirs = try Self.container(store)
        let other = ModelContext(theirs)
        let renamed = try #require(try other.fetch(FetchDescriptor<BatchGadget>(predicate: #Predicate { $0.serial == "S3" })).first)
        renamed.serial = "S3-renamed"
        try other.save()
        for gadget in try other.fetch(FetchDescriptor<BatchGadget>(predicate: #Predicate { $0.model < 10 })) { gadget.stock += 100 }
        try other.save()

        // This container's update, of an attribute no index holds, comes after both.
        #expect(try context.update(model: BatchGadget.self, where: #Predicate { $0.model >= 20 }, .set(\.price, to: 1)) == 20)
        #expect(try context.update(model: BatchGadget.self, .set(\.rating) { $0 + 1 }) == 40)
        let fresh = ModelContext(mine)
        #expect(try fresh.fetchCount(FetchDescriptor<BatchGadget>(predicate: #Predicate { $0.serial == "S3" })) == 0)
        #expect(try fresh.fetch(FetchDescriptor<BatchGadget>(predicate: #Predicate { $0.serial == "S3-renamed" })).map(\.model) == [3])
        #expect(try fresh.fetchCount(FetchDescriptor<BatchGadget>(predicate: #Predicate { $0.price == 1 })) == 20)
        #expect(try fresh.fetchCount(FetchDescriptor<BatchGadget>(predicate: #Predicate { $0.stock >= 95 })) >= 10)
        let reopened = try Self.values(try Self.container(store))
        #expect(try Self.values(mine) == reopened)
    }
}
