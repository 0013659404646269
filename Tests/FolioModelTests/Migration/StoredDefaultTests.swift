import Foundation
import Testing
@testable import Folio

/// Version 1 of a note, as an app first shipped it.
enum StoredDefaultsV1 {
    @Model
    final class Note {
        var text: String
        init(text: String) { self.text = text }
    }
}

/// Version 2 of the same entity: added properties with declared defaults, two of them indexed.
enum StoredDefaultsV2 {
    @Model
    final class Note {
        #Index<Note>([\.pinned], [\.priority])
        var text: String
        var pinned: Bool = false
        var rank: Int = 3
        var tag: String? = nil
        var priority: Int = 2
        init(text: String, pinned: Bool = false, rank: Int = 3, tag: String? = nil, priority: Int = 2) {
            self.text = text
            self.pinned = pinned
            self.rank = rank
            self.tag = tag
            self.priority = priority
        }
    }
}

/// A model whose added properties have defaults of many kinds.
enum StoredDefaultsKinds {
    enum Mood: String, Codable { case calm, busy }
    struct Size: Codable, Hashable {
        var width = 2
        var height = 3
    }

    @Model
    final class Card {
        var title: String
        var score: Double = 1.5
        var when: Date = Date(timeIntervalSinceReferenceDate: 86_400.25)
        var mood: Mood = .busy
        var size: Size = Size()
        var labels: [String] = ["b", "a"]
        var note: String? = "hello"
        var count: Int? = nil
        var summary: String?
        init(title: String) { self.title = title }
    }
}

/// A store written by version 1 (notes "old0"…"old2"), opened by version 2, which adds "newPinned"
/// (pinned, rank 5, tag "work", priority 9) and "newPlain" (rank 1, priority 0, its other properties at
/// their defaults).
private struct TwoVersionStore {
    typealias Note = StoredDefaultsV2.Note
    let store = TemporaryStore()
    let container: ModelContainer
    let context: ModelContext

    init(oldCount: Int = 3, addNew: Bool = true) throws {
        do {
            let context = ModelContext(try store.container(StoredDefaultsV1.Note.self))
            for number in 0..<oldCount { context.insert(StoredDefaultsV1.Note(text: "old\(number)")) }
            try context.save()
        }
        container = try store.container(StoredDefaultsV2.Note.self)
        if addNew {
            let writer = ModelContext(container)
            writer.insert(Note(text: "newPinned", pinned: true, rank: 5, tag: "work", priority: 9))
            writer.insert(Note(text: "newPlain", rank: 1, priority: 0))
            try writer.save()
        }
        context = ModelContext(container)
    }

    func texts(_ predicate: Predicate<Note>? = nil, sortBy: [SortDescriptor<Note>] = [], limit: Int? = nil) throws -> [String] {
        var descriptor = FetchDescriptor<Note>(predicate: predicate, sortBy: sortBy)
        descriptor.fetchLimit = limit
        return try context.fetch(descriptor).map(\.text)
    }

    func cleanUp() { store.cleanUp() }
}

@Suite("Records written before a property existed read its declared default")
struct StoredDefaultTests {
    typealias Note = StoredDefaultsV2.Note

    @Test func aStoredDefaultIsWhatTheEncoderWritesForAModelLeftAtItsDefaults() throws {
        typealias Card = StoredDefaultsKinds.Card
        let defaults = StoredDefaults(schema: Schema([Card.self]))
        let stored = try ModelRecordCoding.encode(Card(title: "x"), recordNumber: { _ in 0 })
        for name in ["score", "when", "mood", "size", "labels", "note", "count"] {
            #expect(defaults.value(of: name, in: "Card") == stored[name], "\(name)")
        }
        #expect(defaults.value(of: "mood", in: "Card") == .string("busy"))
        // No declared default: a required property has none, an optional one reads as null anyway.
        #expect(defaults.value(of: "title", in: "Card") == nil)
        #expect(defaults.value(of: "summary", in: "Card") == nil)
    }

    @Test func subentitiesReadTheDefaultsTheyInherit() throws {
        let defaults = StoredDefaults(schema: Schema(recipeTypes))
        let stored = try ModelRecordCoding.encode(BakedGood(name: "bun", ovenTemperature: 200), recordNumber: { _ in 0 })
        #expect(defaults.value(of: "servings", in: "BakedGood") == .int(2))
        #expect(defaults.value(of: "createdAt", in: "BakedGood") == stored["createdAt"])
        #expect(defaults.value(of: "servings", inAnyOf: ["Recipe", "BakedGood", "Beverage"]) == .int(2))
        #expect(defaults.value(of: "ovenTemperature", in: "BakedGood") == .int(180))
        #expect(defaults.value(of: "ovenTemperature", in: "Recipe") == nil)
        #expect(defaults.value(of: "glutenFree", in: "BakedGood") == nil)
        #expect(defaults.value(of: "ingredients", in: "Recipe") == nil)
    }

    @Test func booleanPredicatesOnAnAddedPropertyReadOldRecordsAsItsDefault() throws {
        let notes = try TwoVersionStore()
        defer { notes.cleanUp() }
        #expect(try notes.texts(#Predicate { $0.pinned }) == ["newPinned"])
        #expect(try notes.texts(#Predicate { !$0.pinned }) == ["old0", "old1", "old2", "newPlain"])
        #expect(try notes.texts(#Predicate { $0.pinned || $0.text == "old1" }) == ["old1", "newPinned"])
    }

    @Test func comparisonsOnAddedPropertiesReadOldRecordsAsTheirDefaults() throws {
        let notes = try TwoVersionStore()
        defer { notes.cleanUp() }
        #expect(try notes.texts(#Predicate { $0.rank == 3 }) == ["old0", "old1", "old2"])
        // A comparison with a constant runs over the entity's columns, where old records hold the default.
        #expect(try notes.texts(#Predicate { $0.rank > 2 && $0.rank < 5 }) == ["old0", "old1", "old2"])
        #expect(try notes.container.index.columnTable(for: "Note").numbers("rank", .plain) == [3, 3, 3, 5, 1])
        #expect(try notes.texts(#Predicate { $0.rank != 3 }) == ["newPinned", "newPlain"])
        #expect(try notes.texts(#Predicate { $0.tag == nil && $0.rank >= 3 }) == ["old0", "old1", "old2"])
        #expect(try notes.texts(#Predicate { $0.tag == nil }) == ["old0", "old1", "old2", "newPlain"])
    }

    @Test func sortingByAnAddedPropertyPlacesOldRecordsAtTheirDefault() throws {
        let notes = try TwoVersionStore()
        defer { notes.cleanUp() }
        #expect(try notes.texts(sortBy: [SortDescriptor(\.rank)]) == ["newPlain", "old0", "old1", "old2", "newPinned"])
        #expect(
            try notes.texts(sortBy: [SortDescriptor(\.rank, order: .reverse)])
                == ["newPinned", "old0", "old1", "old2", "newPlain"])
        // The same sort after a column scan, and top-k walks of the sorted index on `priority`.
        #expect(
            try notes.texts(#Predicate { $0.rank >= 1 }, sortBy: [SortDescriptor(\.rank, order: .reverse)])
                == ["newPinned", "old0", "old1", "old2", "newPlain"])
        // Sorts on the values a record scan kept, and on a column scan's records by a key that is no column.
        #expect(
            try notes.texts(#Predicate { $0.text != "" }, sortBy: [SortDescriptor(\.rank)])
                == ["newPlain", "old0", "old1", "old2", "newPinned"])
        #expect(
            try notes.texts(#Predicate { $0.rank >= 1 }, sortBy: [SortDescriptor(\.rank), SortDescriptor(\.text, order: .reverse)])
                == ["newPlain", "old2", "old1", "old0", "newPinned"])
        #expect(try notes.texts(sortBy: [SortDescriptor(\.priority)], limit: 2) == ["newPlain", "old0"])
        #expect(try notes.texts(sortBy: [SortDescriptor(\.priority, order: .reverse)], limit: 2) == ["newPinned", "old0"])
        #expect(try notes.texts(#Predicate { $0.priority > 1 }) == ["old0", "old1", "old2", "newPinned"])
    }

    @Test func anIndexOnAnAddedPropertyHoldsOldRecordsUnderTheDefault() throws {
        let notes = try TwoVersionStore()
        defer { notes.cleanUp() }
        let unpinned = FetchDescriptor<Note>(predicate: #Predicate { $0.pinned == false })
        #expect(try notes.context.queryPlan(for: unpinned).access == .index("pinned"))
        #expect(try notes.context.fetch(unpinned).map(\.text) == ["old0", "old1", "old2", "newPlain"])
        #expect(try notes.texts(#Predicate { $0.pinned == true }) == ["newPinned"])
        let index = try notes.container.index
        #expect(index.lookup("Note", "pinned", equalTo: .bool(false))?.count == 4)
        #expect(index.lookup("Note", "pinned", equalTo: .null)?.count == 0)
    }

    @Test func countsAndIdentifiersOfPredicatesOnAddedPropertiesIncludeOldRecords() throws {
        let notes = try TwoVersionStore()
        defer { notes.cleanUp() }
        #expect(try notes.context.fetchCount(FetchDescriptor<Note>(predicate: #Predicate { !$0.pinned })) == 4)
        #expect(try notes.context.fetchCount(FetchDescriptor<Note>(predicate: #Predicate { $0.rank == 3 })) == 3)
        let identifiers = try notes.context.fetchIdentifiers(FetchDescriptor<Note>(predicate: #Predicate { !$0.pinned }))
        #expect(identifiers.count == 4)
    }

    @Test func aggregatesOfAddedPropertiesCountOldRecordsAtTheirDefaults() throws {
        let notes = try TwoVersionStore()
        defer { notes.cleanUp() }
        let context = notes.context
        #expect(try context.sum(\Note.rank) == 3 * 3 + 5 + 1)
        #expect(try context.average(\Note.rank) == Double(3 * 3 + 5 + 1) / 5)
        #expect(try context.minimum(\Note.rank) == 1)
        #expect(try context.maximum(\Note.rank, where: #Predicate { !$0.pinned }) == 3)
        // Without a predicate the counts come from the index on `pinned`.
        #expect(try context.count(Note.self, groupedBy: \.pinned) == [false: 4, true: 1])
        #expect(try context.count(Note.self, where: #Predicate { $0.rank > 0 }, groupedBy: \.pinned) == [false: 4, true: 1])
        #expect(try context.count(Note.self, groupedBy: \.tag) == [nil: 4, "work": 1])
        #expect(try context.sum(\Note.rank, groupedBy: \.pinned) == [false: 3 * 3 + 1, true: 5])
    }

    @Test func sectionsOfAFetchOnAddedPropertiesIncludeOldRecords() throws {
        let notes = try TwoVersionStore()
        defer { notes.cleanUp() }
        let descriptor = FetchDescriptor<Note>(predicate: #Predicate { $0.rank >= 3 }, sortBy: [SortDescriptor(\.rank)])
        let sections = try notes.context.fetch(descriptor, sectionBy: \.tag)
        #expect(sections.sectionTitles == ["", "work"])
        #expect(sections.map { $0.map(\.text) } == [["old0", "old1", "old2"], ["newPinned"]])
    }

    @Test func oldRecordsChangedByTheNewVersionReadTheirOwnValuesAndTheRestTheirDefaults() throws {
        let notes = try TwoVersionStore()
        defer { notes.cleanUp() }
        let context = notes.context
        let old = try context.fetch(
            FetchDescriptor<Note>(
                predicate: #Predicate { $0.text.starts(with: "old") },
                sortBy: [SortDescriptor(\.text)]))
        #expect(old.map(\.pinned) == [false, false, false])
        #expect(old.map(\.rank) == [3, 3, 3])
        #expect(old.map(\.tag) == [nil, nil, nil])
        old[0].pinned = true
        old[1].text = "old1 edited"  // saves the text alone: the record still has no `pinned` or `rank`
        // Unsaved changes are overlaid on the stored records.
        #expect(try notes.texts(#Predicate { $0.pinned }) == ["old0", "newPinned"])
        #expect(try notes.texts(#Predicate { !$0.pinned && $0.rank == 3 }) == ["old1 edited", "old2"])
        try context.save()
        #expect(try notes.texts(#Predicate { $0.pinned }) == ["old0", "newPinned"])
        #expect(try notes.texts(#Predicate { $0.pinned == false }) == ["old1 edited", "old2", "newPlain"])
        #expect(try notes.texts(#Predicate { !$0.pinned && $0.rank == 3 }) == ["old1 edited", "old2"])
        #expect(try context.count(Note.self, groupedBy: \.pinned) == [false: 3, true: 2])

        // Another container over the same store loads the mix of old and new records alike.
        let reopened = ModelContext(try notes.store.container(Note.self))
        let pinned = try reopened.fetch(FetchDescriptor<Note>(predicate: #Predicate { $0.pinned == true }))
        #expect(pinned.map(\.text) == ["old0", "newPinned"])
        #expect(try reopened.fetchCount(FetchDescriptor<Note>(predicate: #Predicate { $0.rank == 3 })) == 3)
    }
}
