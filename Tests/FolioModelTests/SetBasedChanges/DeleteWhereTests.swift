import Foundation
import Testing
@testable import Folio

/// `delete(model:where:)` deletes records without making models, and leaves every store as deleting
/// each model and saving would: delete rules (cascade, nullify, deny, no action) included.
@Suite("Deletes by predicate")
struct DeleteWhereTests {
    static var types: [any PersistentModel.Type] {
        [
            BatchOwner.self, BatchPart.self, BatchPiece.self, BatchTag.self, BatchMemo.self, BatchVault.self, BatchItem.self,
            BatchGadget.self, BatchShelf.self,
        ]
    }

    static func container(_ store: TemporaryStore) throws -> ModelContainer {
        try ModelContainer(for: Schema(types), configurations: [ModelConfiguration(url: store.url)])
    }

    /// A random graph of owners, parts, pieces, tags and memos, the same for a seed in every store.
    static func makeGraph(seed: UInt64, in context: ModelContext) throws {
        var rng = SplitMix64(state: seed)
        let tags = (0..<8).map { BatchTag(key: $0) }
        let memos = (0..<6).map { BatchMemo(key: $0) }
        for tag in tags { context.insert(tag) }
        for memo in memos { context.insert(memo) }
        var partKey = 0, pieceKey = 0
        for key in 0..<30 {
            let owner = BatchOwner(key: key, group: Int.random(in: 0..<4, using: &rng))
            context.insert(owner)
            for _ in 0..<Int.random(in: 0..<4, using: &rng) {
                let part = BatchPart(key: partKey)
                partKey += 1
                part.owner = owner
                for _ in 0..<Int.random(in: 0..<3, using: &rng) {
                    let piece = BatchPiece(key: pieceKey)
                    pieceKey += 1
                    piece.part = part
                }
            }
            for tag in tags where Int.random(in: 0..<4, using: &rng) == 0 { owner.tags.append(tag) }
            if Int.random(in: 0..<3, using: &rng) == 0, let tag = tags.randomElement(using: &rng), tag.favourite == nil { tag.favourite = owner }
            if Bool.random(using: &rng) { owner.memo = memos.randomElement(using: &rng) }
        }
        try context.save()
    }

    /// Everything a store holds, by keys: each model with the keys of what it relates to.
    struct Graph: Equatable, CustomStringConvertible {
        var owners: [String] = [], parts: [String] = [], pieces: [String] = [], tags: [String] = [], memos: [Int] = []

        init(_ container: ModelContainer) throws {
            let context = ModelContext(container)
            owners = try context.fetch(FetchDescriptor<BatchOwner>()).map {
                "\($0.key)/g\($0.group) parts\($0.parts.map(\.key).sorted()) tags\($0.tags.map(\.key).sorted()) fav\($0.favouriteOf.map(\.key).sorted()) memo\($0.memo?.key ?? -1)"
            }.sorted()
            parts = try context.fetch(FetchDescriptor<BatchPart>()).map {
                "\($0.key) owner\($0.owner?.key ?? -1) pieces\($0.pieces.map(\.key).sorted())"
            }.sorted()
            pieces = try context.fetch(FetchDescriptor<BatchPiece>()).map { "\($0.key) part\($0.part?.key ?? -1)" }.sorted()
            tags = try context.fetch(FetchDescriptor<BatchTag>()).map {
                "\($0.key) owners\($0.owners.map(\.key).sorted()) fav\($0.favourite?.key ?? -1)"
            }.sorted()
            memos = try context.fetch(FetchDescriptor<BatchMemo>()).map(\.key).sorted()
        }

        var description: String { "owners \(owners)\nparts \(parts)\npieces \(pieces)\ntags \(tags)\nmemos \(memos)" }
    }

    @Test(
        "a delete by predicate leaves the store as deleting each model would, delete rules included (seeded)",
        arguments: [false, true])
    func deletesEqualModelDeletes(holdingSomeModels: Bool) throws {
        let base = ProcessInfo.processInfo.environment["FOLIO_DIFFERENTIAL_SEED"].flatMap(UInt64.init) ?? 20_261_207
        for seed in base..<(base + 12) {
            let byPredicate = TemporaryStore(), byModels = TemporaryStore()
            defer { byPredicate.cleanUp(); byModels.cleanUp() }
            let setContainer = try Self.container(byPredicate), modelContainer = try Self.container(byModels)
            try Self.makeGraph(seed: seed, in: ModelContext(setContainer))
            try Self.makeGraph(seed: seed, in: ModelContext(modelContainer))
            var rng = SplitMix64(state: seed ^ 0xD1E)
            let group = Int.random(in: 0..<4, using: &rng)

            let setContext = ModelContext(setContainer)
            var held: [BatchPart] = []
            if holdingSomeModels {
                // Models the context holds, one with an unsaved change, decide for their records.
                held = try setContext.fetch(FetchDescriptor<BatchPart>()).filter { $0.key % 3 == 0 }
                if let first = held.first { first.key += 1000 }
            }
            let heldOwnerGroups = held.map { $0.owner?.group }
            try setContext.delete(model: BatchOwner.self, where: #Predicate { $0.group == group })
            try setContext.save()

            let modelContext = ModelContext(modelContainer)
            if holdingSomeModels, let first = try modelContext.fetch(FetchDescriptor<BatchPart>()).first(where: { $0.key % 3 == 0 }) {
                first.key += 1000
            }
            for owner in try modelContext.fetch(FetchDescriptor<BatchOwner>(predicate: #Predicate { $0.group == group })) {
                modelContext.delete(owner)
            }
            try modelContext.save()
            let expected = try Graph(modelContainer), found = try Graph(setContainer)
            #expect(found == expected, "seed \(seed), group \(group), holding models: \(holdingSomeModels)\nexpected:\n\(expected)\nfound:\n\(found)")
            // A held part of a deleted owner was deleted by the cascade, as a model.
            for (part, ownerGroup) in zip(held, heldOwnerGroups) {
                #expect(part.isDeleted == (ownerGroup == group), "seed \(seed): part \(part.key)")
            }
        }
    }

    @Test("records deleted by predicate are not made into models, fetches leave them out until rollback or save")
    func deleteWithoutModels() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let container = try Self.container(store)
        let writer = ModelContext(container)
        for index in 0..<20 { writer.insert(BatchGadget(serial: "S\(index)", maker: "M", model: index, price: Double(index), stock: index % 4)) }
        try writer.save()

        let context = ModelContext(container)
        try context.delete(model: BatchGadget.self, where: #Predicate { $0.stock == 0 })
        #expect(context.hasChanges)
        #expect(context.registered.isEmpty, "no model was made")
        #expect(context.deletedModelsArray.isEmpty)
        #expect(try context.fetchCount(FetchDescriptor<BatchGadget>()) == 15)
        #expect(try context.fetch(FetchDescriptor<BatchGadget>(sortBy: [SortDescriptor(\.model)])).map(\.model).allSatisfy { $0 % 4 != 0 })
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<BatchGadget>()) == 20, "nothing is written before the save")
        context.rollback()
        #expect(!context.hasChanges)
        #expect(try context.fetchCount(FetchDescriptor<BatchGadget>()) == 20)

        try context.delete(model: BatchGadget.self, where: #Predicate { $0.stock == 0 })
        try context.save()
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<BatchGadget>()) == 15)
        let reopened = try Self.container(store)
        #expect(try ModelContext(reopened).fetchCount(FetchDescriptor<BatchGadget>(predicate: #Predicate { $0.stock == 0 })) == 0)
    }

    @Test("a held model, a changed one and an unsaved one that match are deleted as models")
    func heldModelsAreDeletedAsModels() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let container = try Self.container(store)
        let context = ModelContext(container)
        for index in 0..<6 { context.insert(BatchGadget(serial: "S\(index)", maker: "M", model: index, price: 1, stock: index)) }
        try context.save()
        let held = try context.fetch(FetchDescriptor<BatchGadget>(sortBy: [SortDescriptor(\.model)]))
        held[1].stock = 100  // no longer matches
        held[4].stock = 0  // now matches
        let unsaved = BatchGadget(serial: "new", maker: "M", model: 99, price: 1, stock: 2)
        context.insert(unsaved)
        try context.delete(model: BatchGadget.self, where: #Predicate { $0.stock < 3 })
        #expect(held[0].isDeleted && held[2].isDeleted && held[4].isDeleted)
        #expect(!held[1].isDeleted && !held[3].isDeleted)
        #expect(context.insertedModelsArray.isEmpty)
        try context.save()
        #expect(try ModelContext(container).fetch(FetchDescriptor<BatchGadget>(sortBy: [SortDescriptor(\.model)])).map(\.model) == [1, 3, 5])
    }

    @Test("a .deny rule refuses the save and nothing is written; the history keeps preserved values")
    func denyAndTombstones() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let container = try Self.container(store)
        let context = ModelContext(container)
        let vault = BatchVault(key: 1)
        context.insert(vault)
        let item = BatchItem(key: 1)
        item.vault = vault
        context.insert(BatchVault(key: 2))
        let gadget = BatchGadget(serial: "S", maker: "M", model: 1, price: 1, stock: 1)
        gadget.label = "kept"
        context.insert(gadget)
        try context.save()

        let deleter = ModelContext(container)
        try deleter.delete(model: BatchVault.self)
        let denied = #expect(throws: FolioError.self) { try deleter.save() }
        #expect(denied?.code == .deleteDenied)
        #expect(denied?.description.contains("BatchVault record") == true)
        #expect(denied?.description.contains("BatchItem record") == true)
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<BatchVault>()) == 2)
        deleter.rollback()
        try deleter.delete(model: BatchVault.self, where: #Predicate { $0.key == 2 })
        try deleter.delete(model: BatchGadget.self)
        try deleter.save()
        #expect(try ModelContext(container).fetch(FetchDescriptor<BatchVault>()).map(\.key) == [1])
        let last = try #require(try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).last)
        let tombstones = last.changes.compactMap { change -> DefaultHistoryDelete<BatchGadget>? in
            if case .delete(let delete) = change { return delete as? DefaultHistoryDelete<BatchGadget> }
            return nil
        }
        #expect(tombstones.count == 1)
        #expect(tombstones.first?.tombstone[\BatchGadget.label] as? String == "kept")
        #expect(tombstones.first?.tombstone[\BatchGadget.serial] == nil)
    }

    @Test("with an undo manager, a delete by predicate deletes models, and undoing it brings them back")
    func deleteWithUndoManagerCanBeUndone() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let container = try Self.container(store)
        let writer = ModelContext(container)
        for index in 0..<8 { writer.insert(BatchGadget(serial: "S\(index)", maker: "M", model: index, price: 1, stock: index % 2)) }
        try writer.save()

        let context = ModelContext(container)
        let manager = UndoManager()
        context.undoManager = manager
        try context.delete(model: BatchGadget.self, where: #Predicate { $0.stock == 0 })
        #expect(context.deletedModelsArray.count == 4)
        try context.save()
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<BatchGadget>()) == 4)
        #expect(manager.canUndo)
        manager.undo()
        try context.save()
        let serials = try ModelContext(container).fetch(FetchDescriptor<BatchGadget>(sortBy: [SortDescriptor(\.serial)])).map(\.serial)
        #expect(serials == (0..<8).map { "S\($0)" })
    }
}
