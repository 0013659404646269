import Foundation
import SwiftData

// A library app's search, written against SwiftData's names: filters built as separate predicates
// and composed with `evaluate`, as search screens do.

@Model
final class Book {
    #Index<Book>([\.genre], [\.year])
    var title: String
    var author: String
    var genre: String
    var year: Int
    var rating: Double?

    init(title: String, author: String, genre: String, year: Int, rating: Double? = nil) {
        self.title = title
        self.author = author
        self.genre = genre
        self.year = year
        self.rating = rating
    }
}

/// The search screen's filters, each its own predicate, composed into one.
struct BookFilter {
    var genre: String?
    var since: Int?
    var text: String = ""

    func predicate() -> SwiftData.Predicate<Book> {
        let genre = genre ?? ""
        let since = since ?? Int.min
        let text = text
        let inGenre = #Predicate<Book> { genre.isEmpty || $0.genre == genre }
        let recent = #Predicate<Book> { $0.year >= since }
        let matching = #Predicate<Book> { text.isEmpty || $0.title.localizedStandardContains(text) }
        return #Predicate<Book> { inGenre.evaluate($0) && recent.evaluate($0) && matching.evaluate($0) }
    }
}
