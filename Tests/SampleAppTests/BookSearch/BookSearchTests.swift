import Foundation
import Testing
import SwiftData

@Suite("Sample app: book search with composed predicates (import SwiftData)")
struct BookSearchTests {
    static func library() throws -> ModelContext {
        let container = try SwiftData.ModelContainer(for: Book.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        let books = [
            Book(title: "The Left Hand of Darkness", author: "Le Guin", genre: "SF", year: 1969, rating: 4.5),
            Book(title: "The Dispossessed", author: "Le Guin", genre: "SF", year: 1974),
            Book(title: "Middlemarch", author: "Eliot", genre: "Novel", year: 1871, rating: 4.8),
            Book(title: "Piranesi", author: "Clarke", genre: "Fantasy", year: 2020),
            Book(title: "A Memory Called Empire", author: "Martine", genre: "SF", year: 2019),
        ]
        for book in books { context.insert(book) }
        try context.save()
        return context
    }

    func titles(_ filter: BookFilter, in context: ModelContext) throws -> [String] {
        try context.fetch(FetchDescriptor(predicate: filter.predicate(), sortBy: [SortDescriptor(\.year)])).map(\.title)
    }

    @Test func composedFiltersSelectWhatEachSelects() throws {
        let context = try Self.library()
        #expect(try titles(BookFilter(), in: context).count == 5)
        #expect(
            try titles(BookFilter(genre: "SF"), in: context)
                == ["The Left Hand of Darkness", "The Dispossessed", "A Memory Called Empire"])
        #expect(try titles(BookFilter(genre: "SF", since: 1970), in: context) == ["The Dispossessed", "A Memory Called Empire"])
        #expect(try titles(BookFilter(text: "the"), in: context) == ["The Left Hand of Darkness", "The Dispossessed"])
        #expect(try titles(BookFilter(genre: "Novel", text: "march"), in: context) == ["Middlemarch"])
    }

    @Test func theComposedFilterAgreesWithEvaluatingEachModel() throws {
        let context = try Self.library()
        let filter = BookFilter(genre: "SF", since: 1970, text: "")
        let predicate = filter.predicate()
        let all = try context.fetch(FetchDescriptor<Book>(sortBy: [SortDescriptor(\.year)]))
        #expect(try titles(filter, in: context) == all.filter { try predicate.evaluate($0) }.map(\.title))
    }

    @Test func anIndexedConditionInsideAComposedPredicateUsesItsIndex() throws {
        let context = try Self.library()
        let sf = #Predicate<Book> { $0.genre == "SF" }
        let rated = #Predicate<Book> { $0.rating != nil }
        let descriptor = FetchDescriptor<Book>(predicate: #Predicate { sf.evaluate($0) && rated.evaluate($0) })
        #expect(try context.fetch(descriptor).map(\.title) == ["The Left Hand of Darkness"])
        #expect(try context.queryPlan(for: descriptor).access == .index("genre"))
    }
}
