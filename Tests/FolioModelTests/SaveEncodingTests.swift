import Foundation
import Testing
@testable import Folio
import FolioStorage

/// A postage stamp whose `Codable` refuses to encode an empty text, or one starting with `!`.
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
        if text.hasPrefix("!") {
            throw EncodingError.invalidValue(text, .init(codingPath: encoder.codingPath, debugDescription: "stamp \(text) is refused"))
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

/// A second model type without relationships, for saves that mix types.
@Model
final class Parcel {
    var label: String
    var grams: Int
    var sentOn: Date

    init(label: String, grams: Int, sentOn: Date) {
        self.label = label
        self.grams = grams
        self.sentOn = sentOn
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
        #expect(
            try ModelContext(container).fetch(FetchDescriptor<Letter>(sortBy: [SortDescriptor(\.code)])).map(\.stamp.text)
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

    @Test func aLargeSaveEncodesEveryModelAtItsPlaceAndLeavesOutOnlyThoseAskedFor() throws {
        let letters = (0..<5_000).map { Letter(code: "code \($0)", stamp: PostageStamp(text: "stamp \($0) é \u{2028}")) }
        let everyOne = Array(repeating: true, count: letters.count)
        let oneThread = try InsertEncoding(models: letters, encodesHere: everyOne).encode()
        #expect(oneThread.count == 5_000)
        #expect(oneThread.allSatisfy { $0 != nil })
        #expect(oneThread[4_321]?["stamp"] == .string("stamp 4321 é \u{2028}"))
        #expect(oneThread[4_321]?["code"] == .string("code 4321"))

        // Models not encoded ahead keep their place, as nil.
        var some = everyOne
        some[10] = false
        some[4_999] = false
        let partial = try InsertEncoding(models: letters, encodesHere: some).encode()
        #expect(partial[10] == nil && partial[4_999] == nil && partial[11] == oneThread[11])

        // Saved through a context, the records read back as inserted.
        let container = try ModelContainer(for: Letter.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        for letter in letters { context.insert(letter) }
        try context.save()
        let stored = try ModelContext(container).fetch(FetchDescriptor<Letter>(predicate: #Predicate { $0.code == "code 4999" }))
        #expect(stored.map(\.stamp.text) == ["stamp 4999 é \u{2028}"])
    }

    /// Each run of a large save keeps the arrangement of the type it encoded last; models of two types
    /// taking turns must each get their own type's values, and each type learns its names.
    @Test func modelsOfTwoTypesTakingTurnsInALargeSaveEachGetTheirOwnValues() throws {
        let models = (0..<4_000).map { index -> any PersistentModel in
            if index % 3 != 0 { return Letter(code: "code \(index)", stamp: PostageStamp(text: "stamp \(index)")) }
            return Parcel(label: "parcel \(index)", grams: index, sentOn: Date(timeIntervalSince1970: Double(index)))
        }
        let encoded = try InsertEncoding(models: models, encodesHere: Array(repeating: true, count: models.count)).encode()
        for (index, values) in encoded.enumerated() {
            var expected: [String: JSONValue] = ["code": .string("code \(index)"), "stamp": .string("stamp \(index)")]
            if index % 3 == 0 {
                let sentOn = try ValueEncoder.encode(Date(timeIntervalSince1970: Double(index)))
                expected = ["label": .string("parcel \(index)"), "grams": .int(Int64(index)), "sentOn": sentOn]
            }
            #expect(values == RecordValues(expected), "model \(index)")
        }
        #expect(ModelRecordCoding.learnedArrangement(of: Parcel.self)?.names == ["label", "grams", "sentOn"])
        #expect(ModelRecordCoding.learnedArrangement(of: Letter.self)?.names == ["code", "stamp"])
    }

    @Test func whenSeveralModelsFailTheFirstInInsertionOrderIsReported() throws {
        var letters = (0..<4_000).map { Letter(code: "code \($0)", stamp: PostageStamp(text: "stamp \($0)")) }
        letters[3_900] = Letter(code: "late", stamp: PostageStamp(text: "!late"))
        letters[1_234] = Letter(code: "early", stamp: PostageStamp(text: "!early"))
        let encoding = InsertEncoding(models: letters, encodesHere: Array(repeating: true, count: letters.count))
        let error = try #require(throws: ModelCodingError.self) { try encoding.encode() }
        #expect(error.property == "stamp")
        #expect("\(error)".contains("!early"))
        #expect(!"\(error)".contains("!late"))
        let container = try ModelContainer(for: Letter.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        for letter in letters { context.insert(letter) }
        #expect(throws: FolioError.self) { try context.save() }
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Letter>()) == 0)
    }

    @Test func aLargeSaveUpdatesTheStoredModelsItsUniqueValuesMatchWhicheverThreadChecksThem() throws {
        let container = try ModelContainer(for: Letter.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        for n in 0..<3_000 { context.insert(Letter(code: "code \(n)", stamp: PostageStamp(text: "old \(n)"))) }
        try context.save()

        // Every third code of 0..<6000 is stored already, spread over the runs of a large save.
        let other = ModelContext(container)
        for n in stride(from: 0, to: 6_000, by: 3) { other.insert(Letter(code: "code \(n)", stamp: PostageStamp(text: "new \(n)"))) }
        try other.save()

        let letters = try ModelContext(container).fetch(FetchDescriptor<Letter>())
        #expect(letters.count == 3_000 + 1_000)
        let stamps = Dictionary(uniqueKeysWithValues: letters.map { ($0.code, $0.stamp.text) })
        #expect(stamps["code 0"] == "new 0")
        #expect(stamps["code 2997"] == "new 2997")
        #expect(stamps["code 2998"] == "old 2998")
        #expect(stamps["code 5997"] == "new 5997")
    }

    /// The uniqueness check goes constraint by constraint over runs of models; with no index on the
    /// first field it scans the entity's records once per run. Both ways, with the models' whole
    /// records or only their constrained values, on one thread or several, give the same matches.
    @Test func theUniquenessCheckFindsTheSameMatchesWithOrWithoutAnIndexOnAnyNumberOfThreads() throws {
        let container = try ModelContainer(for: Letter.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        for n in 0..<3_000 { context.insert(Letter(code: "code \(n)", stamp: PostageStamp(text: "old \(n)"))) }
        try context.save()
        let index = try container.index
        let indexed = try #require(index.fieldIndex("Letter", "code"))

        // Every third code of 0..<6000 is stored already: 1,000 of the 2,000 models match.
        let letters = stride(from: 0, to: 6_000, by: 3).map { Letter(code: "code \($0)", stamp: PostageStamp(text: "new \($0)")) }
        let encoded = try InsertEncoding(models: letters, encodesHere: Array(repeating: true, count: letters.count)).encode()
        func matches(index fieldIndex: FieldIndex?, encoded: [RecordValues?], threads: Int) throws -> [Int64?] {
            let plan = UniqueMatching.Plan(
                names: ["code"],
                constraints: [
                    UniqueMatching.Constraint(fields: [("code", .plain)], firstFieldIndexes: [("Letter", fieldIndex)])
                ])
            return try UniqueMatching(
                records: encoded, plans: [plan],
                planOfModel: Array(repeating: 0, count: letters.count), index: index
            ).matches(threads: threads)
        }
        let expected = try matches(index: indexed, encoded: encoded, threads: 1)
        #expect(expected.count == 2_000)
        #expect(expected.compactMap { $0 }.count == 1_000)
        for (letter, match) in zip(letters, expected) {
            let stored = indexed.lookup(QueryKey(.string(letter.code), .plain))
            #expect(match == stored.first, "\(letter.code)")
        }
        let unencoded: [RecordValues?] = letters.map { RecordValues(["code": .string($0.code)]) }
        for threads in [1, 4] {
            #expect(try matches(index: indexed, encoded: encoded, threads: threads) == expected)
            #expect(try matches(index: nil, encoded: encoded, threads: threads) == expected)
            #expect(try matches(index: indexed, encoded: unencoded, threads: threads) == expected)
            #expect(try matches(index: nil, encoded: unencoded, threads: threads) == expected)
        }
    }

    @Test func aLargeSaveReturnsWhileTheIndexTakesItsChangesAndEveryReaderStillSeesThem() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        do {
            let container = try store.container(Letter.self)
            let context = ModelContext(container)
            for round in 0..<3 {
                for n in 0..<3_000 { context.insert(Letter(code: "r\(round) \(n)", stamp: PostageStamp(text: "s\(n)"))) }
                try context.save()
                // Right after the save, from this thread and from others, through the index.
                let code = "r\(round) 2999"
                #expect(try ModelContext(container).fetchCount(FetchDescriptor<Letter>()) == 3_000 * (round + 1))
                let counts = try (0..<4).map { _ in
                    try Thread.runAndWait {
                        try ModelContext(container).fetch(FetchDescriptor<Letter>(predicate: #Predicate { $0.code == code })).count
                    }
                }
                #expect(counts == [1, 1, 1, 1])
            }
            // The next save's uniqueness check sees the earlier saves' records in the index.
            context.insert(Letter(code: "r0 5", stamp: PostageStamp(text: "replaced")))
            try context.save()
            let stored = try ModelContext(container).fetch(FetchDescriptor<Letter>(predicate: #Predicate { $0.code == "r0 5" }))
            #expect(stored.map(\.stamp.text) == ["replaced"])
            #expect(try ModelContext(container).fetchCount(FetchDescriptor<Letter>()) == 9_000)
        }
    }
}

extension Thread {
    /// Runs `body` on a new thread and waits for its result.
    static func runAndWait<T: Sendable>(_ body: @escaping @Sendable () throws -> T) throws -> T {
        nonisolated(unsafe) var result: Result<T, any Error>?
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            result = Result { try body() }
            done.signal()
        }
        thread.start()
        done.wait()
        return try result!.get()
    }
}
