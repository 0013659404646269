import Foundation
import Folio

/// A shelf of books, for containers as of a history token: a unique key, and books it nullifies.
@Model
final class PastShelf {
    @Attribute(.unique) var key: Int
    var label: String
    @Relationship(deleteRule: .nullify, inverse: \PastBook.shelf) var books: [PastBook] = []

    init(key: Int, label: String) {
        self.key = key
        self.label = label
    }
}

/// A book, on a shelf or not.
@Model
final class PastBook {
    var key: Int
    var title: String
    var genre: String
    var pages: Int
    var note: String?
    @Attribute(.externalStorage) var cover: Data?
    var shelf: PastShelf?

    init(key: Int, title: String, genre: String, pages: Int, note: String? = nil, cover: Data? = nil) {
        self.key = key
        self.cover = cover
        self.title = title
        self.genre = genre
        self.pages = pages
        self.note = note
    }
}

/// The shelves and books of a store, kept in plain Swift alongside the saves that make them.
struct PlainLibrary: Equatable {
    struct Book: Equatable {
        var title: String, genre: String, pages: Int, note: String?, cover: Data?, shelf: Int?
    }

    var shelves: [Int: String] = [:]
    var books: [Int: Book] = [:]

    /// The books' keys on each shelf, sorted.
    var shelfContents: [Int: [Int]] {
        var contents = shelves.mapValues { _ in [Int]() }
        for (key, book) in books { if let shelf = book.shelf { contents[shelf, default: []].append(key) } }
        return contents.mapValues { $0.sorted() }
    }

    /// What `context` holds, in the same form.
    static func read(_ context: ModelContext) throws -> PlainLibrary {
        var library = PlainLibrary()
        for shelf in try context.fetch(FetchDescriptor<PastShelf>()) { library.shelves[shelf.key] = shelf.label }
        for book in try context.fetch(FetchDescriptor<PastBook>()) {
            library.books[book.key] = Book(
                title: book.title, genre: book.genre, pages: book.pages, note: book.note, cover: book.cover,
                shelf: book.shelf?.key)
        }
        return library
    }
}
