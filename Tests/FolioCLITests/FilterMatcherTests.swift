import Foundation
import FolioStorage
import Testing
@testable import folio

/// A filter made ready for many records (``Filter/matcher(isDate:)``), which reads values in place,
/// answers as the filter's plain reading of decoded values (``Filter/matches(_:isDate:)``) does, for
/// any record and any filter. Seeded: set `FOLIO_DIFFERENTIAL_SEED` to replay a failure.
@Suite("--where filters read in place")
struct FilterMatcherTests {
    static let texts = [
        "ABC", "xAbY", "a\r\nb", "\tab", "Shared Beginning", "a long shared beginning 12", "é", "e\u{301}", "",
        "2024-01-01", "2024-01-01T00:00:00.5Z", "6F9619FF-8B86-D011-B42D-00C04FC964FF", "City7", "city70",
    ]
    static let literals: [String] = [
        "1", "-2.5", "9007199254740993", "2024-01-01", "2024-01-01T00:00:00Z", "1968-11-01", "AB", "ab", "'b'", "\"\"",
        "é", "E", "'shared b'", "'LONG SHARED'", "'\t'", "city7", "null", "true", "false", "'6f9619ff'", "'2024-01-01T00:00:00.5Z'",
    ]

    static func randomValue(_ random: inout SplitMix64) -> JSONValue {
        switch random.next() % 4 {
        case 0: return .string(texts[Int(random.next() % UInt64(texts.count))])
        case 1: return ServeViewsTests.randomText(&random)
        default: return ServeViewsTests.randomValue(&random)
        }
    }

    static func randomFilter(_ random: inout SplitMix64, depth: Int = 0) throws -> Filter {
        let fields = ["a", "b", "id", "entity", "a.k", "missing"]
        let ops = ["==", "!=", "<", "<=", ">", ">=", "contains"]
        let comparison = {
            (random: inout SplitMix64) in
            "\(fields[Int(random.next() % 6)]) \(ops[Int(random.next() % 7)]) \(literals[Int(random.next() % UInt64(literals.count))])"
        }
        switch depth < 2 ? random.next() % 5 : 0 {
        case 1: return try Filter.parse("(\(comparison(&random))) and (\(comparison(&random)))")
        case 2: return try Filter.parse("(\(comparison(&random))) or not (\(comparison(&random)))")
        default: return try Filter.parse(comparison(&random))
        }
    }

    @Test func aPreparedFilterAnswersAsThePlainReadingForAnyRecordAndFilter() throws {
        let seed = ServeViewsTests.seed()
        var random = SplitMix64(seed: seed)
        for round in 0..<300 {
            let filter = try Self.randomFilter(&random)
            let dateFields: Set<String> = random.next() % 2 == 0 ? ["a"] : []
            let isDate: (String) -> Bool = { dateFields.contains($0) }
            let prepared = filter.matcher(isDate: isDate)
            for index in 0..<40 {
                var values: [String: JSONValue] = ["a": Self.randomValue(&random)]
                if random.next() % 3 != 0 { values["b"] = Self.randomValue(&random) }
                if random.next() % 5 == 0 { values["a"] = .object(["k": Self.randomValue(&random)]) }
                let record = StoredRecord(entity: ["Trip", "trip"][index % 2], id: Int64(index), values: RecordValues(values))
                #expect(
                    prepared(record) == filter.matches(record, isDate: isDate),
                    "seed \(seed) round \(round): \(filter) on \(values), dates \(dateFields)")
            }
        }
    }
}
