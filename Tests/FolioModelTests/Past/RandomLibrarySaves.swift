import Foundation
import Folio

/// Random saves of shelves and books through a context, mirrored in a ``PlainLibrary``: inserts,
/// changes of attributes and of a book's shelf, deletes of books and of shelves (whose books the
/// nullify rule takes off them). Only saved models are deleted: deleting a model inserted since the
/// last save that a saved model's relationship refers to makes the save fail (a problem of its own).
struct RandomLibrarySaves {
    var rng: SplitMix64
    var plain = PlainLibrary()
    private var nextKey = 1
    /// The library as the last save left it: only its models are deleted, not those inserted since.
    private var saved = PlainLibrary()
    static let genres = ["poetry", "history", "maths"]

    init(seed: UInt64) { rng = SplitMix64(state: seed) }

    /// Makes one to four random changes in `context` and saves them; returns what they were, for
    /// failure messages.
    mutating func save(_ context: ModelContext, step: Int) throws -> [String] {
        var done: [String] = []
        saved = plain
        for _ in 0..<Int.random(in: 1...4, using: &rng) {
            done.append(try change(context, step: step))
        }
        try context.save()
        return done
    }

    private mutating func change(_ context: ModelContext, step: Int) throws -> String {
        let shelfKeys = plain.shelves.keys.sorted(), bookKeys = plain.books.keys.sorted()
        let choice = Int.random(in: 0..<8, using: &rng)
        if choice == 0 || shelfKeys.isEmpty {
            let key = take()
            context.insert(PastShelf(key: key, label: "S\(key)"))
            plain.shelves[key] = "S\(key)"
            return "insert shelf \(key)"
        }
        if choice <= 2 || bookKeys.isEmpty {
            let key = take()
            let genre = Self.genres.randomElement(using: &rng) ?? "poetry"
            let pages = Int.random(in: 10...500, using: &rng)
            let note = Bool.random(using: &rng) ? nil : "n\(step)"
            let cover = Int.random(in: 0..<3, using: &rng) == 0 ? Data("cover of \(key) at \(step)".utf8) : nil
            let book = PastBook(key: key, title: "T\(key)", genre: genre, pages: pages, note: note, cover: cover)
            context.insert(book)
            var shelf: Int? = nil
            if Bool.random(using: &rng), let target = shelfKeys.randomElement(using: &rng) {
                book.shelf = try Self.shelf(target, in: context)
                shelf = target
            }
            plain.books[key] = PlainLibrary.Book(title: "T\(key)", genre: genre, pages: pages, note: note, cover: cover, shelf: shelf)
            return "insert book \(key) on \(String(describing: shelf))"
        }
        let bookKey = bookKeys.randomElement(using: &rng) ?? bookKeys[0]
        let shelfKey = shelfKeys.randomElement(using: &rng) ?? shelfKeys[0]
        switch choice {
        case 3:
            let book = try Self.book(bookKey, in: context)
            let pages = Int.random(in: 10...500, using: &rng)
            book.title = "T\(bookKey)-\(step)"
            book.pages = pages
            book.note = book.note == nil ? "n\(step)" : nil
            plain.books[bookKey]?.title = book.title
            plain.books[bookKey]?.pages = pages
            plain.books[bookKey]?.note = book.note
            return "change book \(bookKey)"
        case 4:
            let onShelf = Bool.random(using: &rng)
            try Self.book(bookKey, in: context).shelf = onShelf ? try Self.shelf(shelfKey, in: context) : nil
            plain.books[bookKey]?.shelf = onShelf ? shelfKey : nil
            return "move book \(bookKey) to \(onShelf ? String(shelfKey) : "none")"
        case 5:
            guard saved.books[bookKey] != nil else { return "keep book \(bookKey), not saved yet" }
            context.delete(try Self.book(bookKey, in: context))
            plain.books[bookKey] = nil
            return "delete book \(bookKey)"
        case 6:
            guard saved.shelves[shelfKey] != nil else { return "keep shelf \(shelfKey), not saved yet" }
            context.delete(try Self.shelf(shelfKey, in: context))
            plain.shelves[shelfKey] = nil
            for (key, book) in plain.books where book.shelf == shelfKey { plain.books[key]?.shelf = nil }
            return "delete shelf \(shelfKey)"
        default:
            try Self.shelf(shelfKey, in: context).label = "S\(shelfKey)-\(step)"
            plain.shelves[shelfKey] = "S\(shelfKey)-\(step)"
            return "rename shelf \(shelfKey)"
        }
    }

    private mutating func take() -> Int {
        defer { nextKey += 1 }
        return nextKey
    }

    static func book(_ key: Int, in context: ModelContext) throws -> PastBook {
        guard let book = try context.fetch(FetchDescriptor<PastBook>(predicate: #Predicate { $0.key == key })).first else {
            throw FolioError(.invalidModel, "no book \(key)")
        }
        return book
    }

    static func shelf(_ key: Int, in context: ModelContext) throws -> PastShelf {
        guard let shelf = try context.fetch(FetchDescriptor<PastShelf>(predicate: #Predicate { $0.key == key })).first else {
            throw FolioError(.invalidModel, "no shelf \(key)")
        }
        return shelf
    }
}
