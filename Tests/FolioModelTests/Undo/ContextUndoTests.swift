import Foundation
import Testing
@testable import Folio

/// A context with an undo manager, on a store in memory.
private func undoableContext() throws -> (ModelContext, UndoManager) {
    let container = try ModelContainer(for: Schema(undoModelTypes), configurations: [ModelConfiguration(isStoredInMemoryOnly: true)])
    let context = ModelContext(container)
    let manager = UndoManager()
    context.undoManager = manager
    return (context, manager)
}

private func titles(_ context: ModelContext) throws -> [String] {
    try context.fetch(FetchDescriptor<UndoBook>()).map(\.title).sorted()
}

@Suite("ModelContext undo")
struct ContextUndoTests {
    @Test func aContextHasNoUndoManagerUnlessGivenOne() throws {
        let container = try ModelContainer(for: Schema(undoModelTypes), configurations: [ModelConfiguration(isStoredInMemoryOnly: true)])
        #expect(ModelContext(container).undoManager == nil)
    }

    @MainActor @Test func theMainContextHasAnUndoManagerWhenUndoIsEnabled() throws {
        var configuration = ModelConfiguration(isStoredInMemoryOnly: true)
        #expect(!configuration.isUndoEnabled)
        let plain = try ModelContainer(for: Schema(undoModelTypes), configurations: [configuration])
        #expect(plain.mainContext.undoManager == nil)
        configuration.isUndoEnabled = true
        let undoable = try ModelContainer(for: Schema(undoModelTypes), configurations: [configuration])
        let manager = try #require(undoable.mainContext.undoManager)
        #expect(undoable.mainContext.undoManager === manager)
    }

    @Test func anAttributeChangeUndoesAndRedoes() throws {
        let (context, manager) = try undoableContext()
        let book = UndoBook(title: "Dune")
        context.insert(book)
        context.processPendingChanges()
        book.title = "Emma"
        book.pages = 7
        manager.undo()
        #expect(book.title == "Dune")
        #expect(book.pages == 100)
        manager.redo()
        #expect(book.title == "Emma")
        #expect(book.pages == 7)
    }

    @Test func undoingAnInsertDiscardsTheModelAndRedoInsertsItAgain() throws {
        let (context, manager) = try undoableContext()
        let book = UndoBook(title: "Dune")
        context.insert(book)
        manager.undo()
        #expect(context.insertedModelsArray.isEmpty)
        #expect(book.modelContext == nil)
        #expect(!context.hasChanges)
        manager.redo()
        #expect(context.insertedModelsArray.count == 1)
        #expect(book.modelContext === context)
        try context.save()
        #expect(try titles(context) == ["Dune"])
    }

    @Test func undoingAnUnsavedDeleteKeepsTheModelAndRedoDeletesItAgain() throws {
        let (context, manager) = try undoableContext()
        let book = UndoBook(title: "Dune")
        context.insert(book)
        try context.save()
        book.title = "Emma"
        context.processPendingChanges()
        context.delete(book)
        manager.undo()
        #expect(!book.isDeleted)
        #expect(context.deletedModelsArray.isEmpty)
        // The change made before the delete is still to be saved.
        #expect(context.changedModelsArray.count == 1)
        manager.redo()
        #expect(book.isDeleted)
        try context.save()
        #expect(try titles(context).isEmpty)
    }

    @Test func undoingASavedAttributeChangeMakesAnUnsavedChangeTheNextSaveWrites() throws {
        let (context, manager) = try undoableContext()
        let book = UndoBook(title: "Dune")
        context.insert(book)
        try context.save()
        book.title = "Emma"
        try context.save()
        #expect(!context.hasChanges)
        manager.undo()
        #expect(book.title == "Dune")
        #expect(book.hasChanges)
        #expect(context.changedModelsArray.count == 1)
        try context.save()
        #expect(try titles(ModelContext(context.container)) == ["Dune"])
    }

    @Test func undoingASavedInsertDeletesTheRecordAtTheNextSave() throws {
        let (context, manager) = try undoableContext()
        context.insert(UndoBook(title: "Dune"))
        try context.save()
        manager.undo()
        #expect(context.deletedModelsArray.count == 1)
        try context.save()
        #expect(try titles(ModelContext(context.container)).isEmpty)
        manager.redo()
        try context.save()
        #expect(try titles(ModelContext(context.container)) == ["Dune"])
    }

    @Test func undoingASavedDeleteInsertsTheModelAgainWithANewIdentifier() throws {
        let (context, manager) = try undoableContext()
        let book = UndoBook(title: "Dune", pages: 412)
        context.insert(book)
        try context.save()
        let savedIdentifier = book.persistentModelID
        context.delete(book)
        try context.save()
        manager.undo()
        #expect(!book.isDeleted)
        #expect(context.insertedModelsArray.count == 1)
        try context.save()
        #expect(book.persistentModelID != savedIdentifier)
        let fetched = try ModelContext(context.container).fetch(FetchDescriptor<UndoBook>())
        #expect(fetched.map(\.title) == ["Dune"])
        #expect(fetched.map(\.pages) == [412])
    }

    @Test func aToOneRelationshipChangeUndoesOnBothSides() throws {
        let (context, manager) = try undoableContext()
        let first = UndoShelf(name: "first")
        let second = UndoShelf(name: "second")
        let book = UndoBook(title: "Dune")
        context.insert(first)
        context.insert(second)
        book.shelf = first
        try context.save()
        book.shelf = second
        #expect(first.books.isEmpty && second.books.count == 1)
        manager.undo()
        #expect(book.shelf === first)
        #expect(first.books.map(\.title) == ["Dune"])
        #expect(second.books.isEmpty)
        manager.redo()
        #expect(book.shelf === second)
        #expect(first.books.isEmpty)
        #expect(second.books.map(\.title) == ["Dune"])
    }

    @Test func appendingANewModelToAToManyRelationshipUndoesWithoutDoubleInverses() throws {
        let (context, manager) = try undoableContext()
        let shelf = UndoShelf(name: "shelf")
        context.insert(shelf)
        try context.save()
        let book = UndoBook(title: "Dune")
        shelf.books.append(book)
        #expect(book.modelContext === context)
        manager.undo()
        #expect(shelf.books.isEmpty)
        #expect(book.shelf == nil)
        #expect(book.modelContext == nil)
        manager.redo()
        #expect(shelf.books.map(\.title) == ["Dune"])
        #expect(book.shelf === shelf)
        #expect(book.modelContext === context)
        manager.undo()
        manager.redo()
        #expect(shelf.books.count == 1)
        try context.save()
        let fresh = ModelContext(context.container)
        let stored = try fresh.fetch(FetchDescriptor<UndoShelf>())
        #expect(stored.first?.books.map(\.title) == ["Dune"])
    }

    @Test func undoingASavedCascadeDeleteRestoresTheModelsAndTheirRelationships() throws {
        let (context, manager) = try undoableContext()
        let shelf = UndoShelf(name: "shelf")
        context.insert(shelf)
        shelf.books = [UndoBook(title: "Dune"), UndoBook(title: "Emma")]
        try context.save()
        context.delete(shelf)
        try context.save()
        #expect(try titles(context).isEmpty)
        manager.undo()
        try context.save()
        let fresh = ModelContext(context.container)
        let shelves = try fresh.fetch(FetchDescriptor<UndoShelf>())
        #expect(shelves.map(\.name) == ["shelf"])
        #expect(shelves.first?.books.map(\.title).sorted() == ["Dune", "Emma"])
        manager.redo()
        try context.save()
        #expect(try ModelContext(context.container).fetchCount(FetchDescriptor<UndoBook>()) == 0)
        #expect(try ModelContext(context.container).fetchCount(FetchDescriptor<UndoShelf>()) == 0)
    }

    @Test func undoingASavedDeleteRestoresTheInversesItsNullifyRuleCleared() throws {
        let (context, manager) = try undoableContext()
        let book = UndoBook(title: "Dune")
        let reader = UndoReader(name: "Ann")
        context.insert(reader)
        reader.favourite = book
        try context.save()
        context.delete(book)
        try context.save()
        #expect(reader.favourite == nil)
        manager.undo()
        #expect(reader.favourite === book)
        try context.save()
        let fresh = ModelContext(context.container)
        let stored = try fresh.fetch(FetchDescriptor<UndoReader>())
        #expect(stored.first?.favourite?.title == "Dune")
    }

    @Test func undoingAnEditAndADeleteOfOneEventRestoresTheModelAsItWas() throws {
        let (context, manager) = try undoableContext()
        let book = UndoBook(title: "Dune")
        context.insert(book)
        try context.save()
        book.title = "Emma"
        context.delete(book)
        try context.save()
        manager.undo()
        #expect(book.title == "Dune")
        try context.save()
        #expect(try titles(ModelContext(context.container)) == ["Dune"])
    }

    @Test func undoingAnUnsavedDeleteBeforeTheSaveAppliesNoDeleteRule() throws {
        let (context, manager) = try undoableContext()
        let shelf = UndoShelf(name: "shelf")
        context.insert(shelf)
        shelf.books = [UndoBook(title: "Dune")]
        try context.save()
        context.delete(shelf)
        manager.undo()
        try context.save()
        #expect(try titles(context) == ["Dune"])
        #expect(try context.fetchCount(FetchDescriptor<UndoShelf>()) == 1)
    }

    @Test func rollbackEmptiesTheUndoStack() throws {
        let (context, manager) = try undoableContext()
        let book = UndoBook(title: "Dune")
        context.insert(book)
        try context.save()
        book.title = "Emma"
        #expect(manager.canUndo)
        context.rollback()
        #expect(!manager.canUndo)
        #expect(!manager.canRedo)
        #expect(book.title == "Dune")
    }

    @Test func processPendingChangesAndSaveEndTheEvent() throws {
        let (context, manager) = try undoableContext()
        let book = UndoBook(title: "a")
        context.insert(book)
        try context.save()
        book.title = "b"
        context.processPendingChanges()
        #expect(manager.groupingLevel == 0)
        book.title = "c"
        book.title = "d"
        try context.save()
        #expect(manager.groupingLevel == 0)
        manager.undo()
        #expect(book.title == "b")
        manager.undo()
        #expect(book.title == "a")
        manager.undo()
        #expect(book.isDeleted)
    }

    @Test func disabledRegistrationRecordsNothing() throws {
        let (context, manager) = try undoableContext()
        manager.disableUndoRegistration()
        context.insert(UndoBook(title: "Dune"))
        #expect(!manager.canUndo)
    }

    @Test func undoingAChangeToAModelAnotherContextDeletedDoesNothing() throws {
        let (context, manager) = try undoableContext()
        let book = UndoBook(title: "Dune")
        context.insert(book)
        try context.save()
        book.title = "Emma"
        try context.save()
        let other = ModelContext(context.container)
        let otherBook = try #require(try other.fetch(FetchDescriptor<UndoBook>()).first)
        other.delete(otherBook)
        try other.save()
        manager.undo()
        #expect(book.title == "Emma")
        #expect(!context.hasChanges)
        #expect(!manager.canRedo)
        try context.save()
        #expect(try titles(ModelContext(context.container)).isEmpty)
    }

    @Test func anAppLikeSequenceOnDiskLeavesTheStoreAsUndoneAndRedone() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        do {
            let container = try ModelContainer(for: Schema(undoModelTypes), configurations: [ModelConfiguration(url: store.url)])
            let context = ModelContext(container)
            let manager = UndoManager()
            context.undoManager = manager
            let fiction = UndoShelf(name: "Fiction")
            let poetry = UndoShelf(name: "Poetry")
            context.insert(fiction)
            context.insert(poetry)
            fiction.books = [UndoBook(title: "Dune"), UndoBook(title: "Emma")]
            poetry.books = [UndoBook(title: "Odes")]
            try context.save()
            // Edit, save, undo, redo.
            fiction.name = "Novels"
            try context.save()
            manager.undo()
            #expect(fiction.name == "Fiction")
            manager.redo()
            #expect(fiction.name == "Novels")
            // Delete with cascade, save, undo, save.
            context.delete(poetry)
            try context.save()
            #expect(try context.fetchCount(FetchDescriptor<UndoBook>()) == 2)
            manager.undo()
            try context.save()
            // Delete again and keep it.
            context.delete(fiction)
            try context.save()
        }
        let reopened = try ModelContainer(for: Schema(undoModelTypes), configurations: [ModelConfiguration(url: store.url)])
        let context = ModelContext(reopened)
        let shelves = try context.fetch(FetchDescriptor<UndoShelf>())
        #expect(shelves.map(\.name) == ["Poetry"])
        #expect(shelves.first?.books.map(\.title) == ["Odes"])
        #expect(try titles(context) == ["Odes"])
    }
}
