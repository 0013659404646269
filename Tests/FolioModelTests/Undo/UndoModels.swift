import Folio

// Models for the undo tests: a shelf cascades to its books; a book nullifies its readers' favourite.

@Model
final class UndoShelf {
    var name: String
    @Relationship(deleteRule: .cascade, inverse: \UndoBook.shelf) var books: [UndoBook] = []

    init(name: String) {
        self.name = name
    }
}

@Model
final class UndoBook {
    var title: String
    var pages: Int
    var shelf: UndoShelf?
    @Relationship(deleteRule: .nullify, inverse: \UndoReader.favourite) var readers: [UndoReader] = []

    init(title: String, pages: Int = 100) {
        self.title = title
        self.pages = pages
    }
}

@Model
final class UndoReader {
    var name: String
    var favourite: UndoBook?

    init(name: String) {
        self.name = name
    }
}

var undoModelTypes: [any PersistentModel.Type] { [UndoShelf.self, UndoBook.self, UndoReader.self] }
