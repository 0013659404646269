import Foundation
import Testing
@testable import Folio

/// A postage stamp whose `Codable` refuses to encode an empty text.
struct PostageStamp: Codable, Equatable {
    var text: String

    init(text: String) {
        self.text = text
    }

    init(from decoder: any Decoder) throws {
        text = try decoder.singleValueContainer().decode(String.self)
    }

    func encode(to encoder: any Encoder) throws {
        if text.isEmpty {
            throw EncodingError.invalidValue(text, .init(codingPath: encoder.codingPath, debugDescription: "a postage stamp needs a text"))
        }
        var container = encoder.singleValueContainer()
        try container.encode(text)
    }
}

@Model
final class Letter {
    @Attribute(.unique) var code: String
    @Attribute(.codable) var stamp: PostageStamp

    init(code: String, stamp: PostageStamp) {
        self.code = code
        self.stamp = stamp
    }
}

@Suite("Encoding models when saving")
struct SaveEncodingTests {
    @Test func aValueThatFailsToEncodeFailsTheSaveNamingItAndWritesNothingUntilItIsFixed() throws {
        let container = try ModelContainer(for: Letter.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        context.insert(Letter(code: "a", stamp: PostageStamp(text: "first")))
        try context.save()

        let broken = Letter(code: "b", stamp: PostageStamp(text: ""))
        context.insert(broken)
        let error = try #require(throws: FolioError.self) { try context.save() }
        #expect(error.code == .modelCoding)
        #expect("\(error)".contains("stamp"))
        #expect(context.hasChanges)
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Letter>()) == 1)

        broken.stamp = PostageStamp(text: "second")
        try context.save()
        #expect(try ModelContext(container).fetch(FetchDescriptor<Letter>(sortBy: [SortDescriptor(\.code)])).map(\.stamp.text)
                == ["first", "second"])
    }

    @Test func aModelWhoseUniqueValueIsStoredUpdatesTheStoredOneWithAllItsValues() throws {
        let container = try ModelContainer(for: Letter.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        for code in ["a", "b", "c"] { context.insert(Letter(code: code, stamp: PostageStamp(text: "old \(code)"))) }
        try context.save()

        let other = ModelContext(container)
        other.insert(Letter(code: "b", stamp: PostageStamp(text: "new b")))
        other.insert(Letter(code: "d", stamp: PostageStamp(text: "new d")))
        try other.save()

        let letters = try ModelContext(container).fetch(FetchDescriptor<Letter>(sortBy: [SortDescriptor(\.code)]))
        #expect(letters.map(\.code) == ["a", "b", "c", "d"])
        #expect(letters.map(\.stamp.text) == ["old a", "new b", "old c", "new d"])
    }
}
