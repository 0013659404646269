import Foundation
import Observation
import Testing
import Folio
import FolioStorage

@MainActor
@Suite("Sample app: inventory (delete rules, renames, ephemeral values, observation)")
struct InventoryTests {
    static var types: [any PersistentModel.Type] { [Shelf.self, StockItem.self, ShelfLabel.self, LabelColour.self] }

    @Test func aShelfThatHoldsItemsCannotBeDeletedUntilItIsEmpty() throws {
        let container = try ModelContainer(for: Schema(Self.types), configurations: [ModelConfiguration(isStoredInMemoryOnly: true)])
        let context = ModelContext(container)
        let shelf = Shelf(code: "A1")
        let bolts = StockItem(title: "Bolts", count: 40)
        context.insert(shelf)
        shelf.items.append(bolts)
        try context.save()
        context.delete(shelf)
        #expect(shelf.isDeleted)
        #expect {
            try context.save()
        } throws: { error in
            (error as? FolioError)?.code == .deleteDenied
        }
        context.rollback()
        context.delete(bolts)
        context.delete(shelf)
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<Shelf>()) == 0)
    }

    @Test func noActionLeavesTheRelatedModelsAlone() throws {
        let container = try ModelContainer(for: Schema(Self.types), configurations: [ModelConfiguration(isStoredInMemoryOnly: true)])
        let context = ModelContext(container)
        let shelf = Shelf(code: "B2")
        let label = ShelfLabel(text: "Fragile")
        label.colours = [LabelColour(name: "red")]
        context.insert(shelf)
        shelf.labels = [label]
        try context.save()
        context.delete(shelf)
        try context.save()
        #expect(try context.fetch(FetchDescriptor<ShelfLabel>()).map(\.text) == ["Fragile"])
    }

    @Test func aLabelWithoutItsMinimumOfColoursIsNotSaved() throws {
        let container = try ModelContainer(for: Schema(Self.types), configurations: [ModelConfiguration(isStoredInMemoryOnly: true)])
        let context = ModelContext(container)
        context.insert(ShelfLabel(text: "Blank"))
        #expect {
            try context.save()
        } throws: { error in
            guard let error = error as? FolioError else { return false }
            return error.code == .invalidModel && error.message.contains("minimumModelCount")
        }
    }

    @Test func aRenamedPropertyReadsTheValuesStoredUnderItsOldName() throws {
        let store = SampleStore()
        defer { store.cleanUp() }
        // An earlier version of the app stored the title as "name".
        let engine = try Store.open(at: store.url)
        _ = try engine.write { transaction in
            try transaction.insert(entity: "StockItem", id: transaction.allocateID(), values: ["name": .string("Washers"), "count": .int(7)])
        }
        engine.close()
        let container = try ModelContainer(for: Schema(Self.types), configurations: [ModelConfiguration(url: store.url)])
        let context = ModelContext(container)
        let item = try #require(try context.fetch(FetchDescriptor<StockItem>()).first)
        #expect(item.title == "Washers")
        item.count = 8
        try context.save()
        let reopened = ModelContext(try ModelContainer(for: Schema(Self.types), configurations: [ModelConfiguration(url: store.url)]))
        #expect(try reopened.fetch(FetchDescriptor<StockItem>()).map(\.title) == ["Washers"])
    }

    @Test func anEphemeralPropertyIsTrackedButNeverStored() throws {
        let store = SampleStore()
        defer { store.cleanUp() }
        do {
            let context = ModelContext(try ModelContainer(for: Schema(Self.types), configurations: [ModelConfiguration(url: store.url)]))
            let nuts = StockItem(title: "Nuts", count: 3)
            context.insert(nuts)
            try context.save()
            nuts.isSelected = true
            #expect(nuts.hasChanges)
            #expect(nuts.modelContext === context)
            try context.save()
        }
        let context = ModelContext(try ModelContainer(for: Schema(Self.types), configurations: [ModelConfiguration(url: store.url)]))
        #expect(try context.fetch(FetchDescriptor<StockItem>()).first?.isSelected == false)
    }

    @Test func modelsAreObservableAndObserversGiveSections() async throws {
        let container = try ModelContainer(for: Schema(Self.types), configurations: [ModelConfiguration(isStoredInMemoryOnly: true)])
        let context = ModelContext(container)
        let screws = StockItem(title: "Screws", count: 100)
        context.insert(screws)
        try context.save()
        let changed = LockedFlag()
        withObservationTracking {
            _ = screws.count
        } onChange: {
            changed.set()
        }
        screws.count = 99
        #expect(changed.value, "a model's property reports its change to Observation")

        let byShelf = try ResultsObserver<StockItem, String>(
            fetchDescriptor: FetchDescriptor(sortBy: [SortDescriptor(\.title)]),
            sectionBy: \.shelf?.code, modelContext: context)
        let shelf = Shelf(code: "C3")
        context.insert(shelf)
        shelf.items.append(StockItem(title: "Rivets", count: 5))
        try context.save()
        #expect(await eventually { byShelf.sections?.map { $0.title } == ["", "C3"] })
    }

    @Test func pendingChangesAreFetchedUnlessTheDescriptorSaysNot() throws {
        let container = try ModelContainer(for: Schema(Self.types), configurations: [ModelConfiguration(isStoredInMemoryOnly: true)])
        let context = ModelContext(container)
        context.insert(StockItem(title: "Hinges", count: 4))
        context.processPendingChanges()
        var stored = FetchDescriptor<StockItem>()
        #expect(try context.fetchCount(stored) == 1)
        stored.includePendingChanges = false
        #expect(try context.fetchCount(stored) == 0)
    }

    @Test func aContainerThatDoesNotAllowSavingRefusesToSave() throws {
        let store = SampleStore()
        defer { store.cleanUp() }
        do {
            let context = ModelContext(try ModelContainer(for: Schema(Self.types), configurations: [ModelConfiguration(url: store.url)]))
            context.insert(Shelf(code: "D4"))
            try context.save()
        }
        let readOnly = ModelConfiguration("Inventory", url: store.url, allowsSave: false)
        #expect(readOnly.name == "Inventory")
        let context = ModelContext(try ModelContainer(for: Schema(Self.types), configurations: [readOnly]))
        #expect(try context.fetch(FetchDescriptor<Shelf>()).map(\.code) == ["D4"])
        context.insert(Shelf(code: "E5"))
        #expect {
            try context.save()
        } throws: { error in
            (error as? FolioError)?.code == .saveNotAllowed
        }
    }
}

/// A flag set from an Observation callback.
final class LockedFlag: @unchecked Sendable {  // guarded by `lock`
    private let lock = NSLock()
    private var isSet = false
    func set() { lock.withLock { isSet = true } }
    var value: Bool { lock.withLock { isSet } }
}
