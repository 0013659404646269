import Foundation
import Testing
@testable import FolioStorage

/// Values that exercise every case and every width of the packed encoding.
private let sampleValues: [JSONValue] = [
    .null, .bool(false), .bool(true),
    .int(0), .int(1), .int(-1), .int(127), .int(128), .int(-128), .int(-129), .int(32767), .int(32768),
    .int(-32768), .int(-32769), .int(Int64(Int32.max)), .int(Int64(Int32.max) + 1), .int(Int64(Int32.min)),
    .int(Int64(Int32.min) - 1), .int(.max), .int(.min),
    .double(0.0), .double(-0.0), .double(1.5), .double(-2.25e-300), .double(.greatestFiniteMagnitude),
    .double(.leastNonzeroMagnitude), .double(1e16), .double(.infinity),
    .string(""), .string("plain ASCII"), .string("quote \" and backslash \\"), .string("tab\tnewline\n\u{7F}"),
    .string("é"), .string("e\u{301}"), .string("日本語"), .string("🧳 trip"), .string("\u{2028}\u{85}"),
    .string(String(repeating: "long text ", count: 20_000)),
    .string("2022-07-20T05:19:19.323Z"), .string("0001-01-01T00:00:00Z"), .string("9999-12-31T23:59:59.99999Z"),
    .string("6F9619FF-8B86-D011-B42D-00C04FC964FF"), .string("00000000-0000-0000-0000-000000000000"),
    .string("6f9619ff-8b86-d011-b42d-00c04fc964ff"), .string("2022-07-20T05:19:19.323456Z"),
    .array([]), .array([.int(1), .string("two"), .null, .array([.array([])])]),
    .array((0..<300).map { .int(Int64($0)) }),
    .object([:]), .object(["rawValue": .string("I0123456789abcdef")]),
    .object(["z": .int(1), "a": .object(["é": .bool(true), "B": .array([.double(0.5)])]), "é": .null, "e": .string("")]),
]

/// Whether two values are the same, telling `0.0` from `-0.0` apart (which `==` does not).
private func identical(_ a: JSONValue, _ b: JSONValue) -> Bool {
    switch (a, b) {
    case (.double(let x), .double(let y)): return x.bitPattern == y.bitPattern
    case (.array(let x), .array(let y)): return x.count == y.count && zip(x, y).allSatisfy { identical($0, $1) }
    case (.object(let x), .object(let y)):
        return x.count == y.count && x.allSatisfy { key, value in y[key].map { identical(value, $0) } ?? false }
    default: return a == b
    }
}

private func parseRecord(_ text: String) throws -> RecordValues {
    let bytes = Array(text.utf8)
    return try bytes.withUnsafeBufferPointer { buffer in
        var parser = _Parser(bytes: buffer, maximumDepth: 512)
        return try parser.parseRecordValues(depth: 1)
    }
}

@Suite("Packed record values")
struct PackedRecordValuesTests {
    @Test func everyKindOfValueReadsBackAsItWasStored() throws {
        for value in sampleValues {
            let record = RecordValues(["v": value, "w": .int(7)])
            #expect(identical(record["v"] ?? .null, value), "\(String(describing: value).prefix(80))")
            #expect(identical(record.values[0], value))
            #expect(record.value(atSlot: 1) == .int(7))
        }
        let all = RecordValues(names: sampleValues.indices.map { "v\($0)" }, values: ContiguousArray(sampleValues))
        let record = try #require(all)
        for (position, value) in sampleValues.enumerated() {
            #expect(identical(record["v\(position)"] ?? .null, value))
        }
    }

    @Test func aRecordIsOneSmallBuffer() {
        let trip: RecordValues = [
            "tripID": .string("6F9619FF-8B86-D011-B42D-00C04FC964FF"), "name": .string("Trip 1234567"),
            "destination": .string("City17"), "startDate": .double(7.5e8), "price": .double(1234.5),
            "mapItem": .object(["rawValue": .string("I0123456789abcdef")]),
        ]
        // 6 offsets, a UUID's 16 bytes, 12 + 6 + 17 characters, two doubles and the object's key.
        #expect(trip.values.bytes.count <= 110)
        #expect(RecordValues().values.bytes.isEmpty)
        #expect(trip.values.count == 6)
    }

    /// A string of a date's shape (as Folio writes a `Date`) or an uppercase UUID's takes 10 or 17 bytes
    /// instead of 26 or 38, and reads back and is written as exactly its text; near misses stay text.
    @Test func datesAndUUIDsAsTextTakeFewerBytesAndReadBackAsTheirText() throws {
        func packedSize(_ text: String) -> Int { PackedEncoding.size(of: .string(text)) }
        let shaped = [
            ("2022-07-20T05:19:19.323Z", 10), ("2026-03-01T09:30:00Z", 10), ("2026-03-01T09:30:00.25Z", 10),
            ("0000-00-00T00:00:00.00000Z", 10), ("9999-99-99T99:99:99Z", 10),  // digits, not a calendar
            ("6F9619FF-8B86-D011-B42D-00C04FC964FF", 17), ("FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF", 17),
        ]
        let nearMisses = [
            "2022-07-20T05:19:19.323456Z", "2022-07-20T05:19:19.Z", "2022-07-20 05:19:19Z", "2022-07-20T05:19:19.3x3Z",
            "2022-07-20T05:19:19.323", "+022-07-20T05:19:19Z", "6f9619ff-8b86-d011-b42d-00c04fc964ff",
            "6F9619FF-8B86-D011-B42D-00C04FC964FG", "6F9619FF8B86-D011-B42D-00C04FC964FF-", "é022-07-20T05:19:19Z",
        ]
        for (text, size) in shaped {
            #expect(packedSize(text) == size, "\(text)")
        }
        for text in nearMisses {
            #expect(packedSize(text) == 2 + text.utf8.count, "\(text)")
        }
        let writer = CanonicalJSONWriter()
        for text in shaped.map(\.0) + nearMisses {
            let record: RecordValues = ["s": .string(text), "t": .array([.string(text)])]
            #expect(record["s"] == .string(text))
            #expect(record["t"] == .array([.string(text)]))
            // From the text of a line, as a store loads it, to the same bytes and back to the same text.
            let line = #"{"s":"\#(text)","t":["\#(text)"]}"#
            let parsed = try parseRecord(line)
            #expect(parsed.values.bytes == record.values.bytes, "\(text)")
            var written: [UInt8] = []
            try writer.write(parsed, into: &written)
            #expect(String(decoding: written, as: UTF8.self) == line)
        }
    }

    @Test func aSlotOutsideTheValuesReadsAsNull() {
        let record: RecordValues = ["a": .int(1)]
        #expect(record.value(atSlot: 1) == .null)
        #expect(record.value(atSlot: -1) == .null)
        #expect(RecordValues().value(atSlot: 0) == .null)
    }

    @Test func theCanonicalWriterWritesThePackedBytesAsItWritesTheValues() throws {
        let writer = CanonicalJSONWriter()
        var records: [RecordValues] = sampleValues.filter { $0 != .double(.infinity) }.map { ["v": $0, "a": .int(1)] }
        records.append(RecordValues())
        records.append(["é": .int(1), "z": .int(2), "B": .string("upper before lower")])  // not in byte order
        records.append(["b": .double(-0.0), "a": .double(0.1), "c": .double(1e-7)])
        for record in records {
            var packed: [UInt8] = []
            try writer.write(record, into: &packed)
            let old = try writer.bytes(.object(record.dictionary))
            #expect(packed == old, "\(String(decoding: old.prefix(80), as: UTF8.self))")
        }
        var output: [UInt8] = []
        #expect(throws: StorageError.self) { try writer.write(["v": .double(.nan)], into: &output) }
        #expect(throws: StorageError.self) { try writer.write(["v": .array([.double(-.infinity)])], into: &output) }
    }

    @Test func theReaderPacksTheSameBytesAsEncodingTheParsedValues() throws {
        let texts = [
            #"{"a":1,"b":{"x":[true,false,null]},"c":"é","d":-0.0,"e":"\u00e9\"","f":[]}"#,
            #"{"mapItem":{"rawValue":"I0123456789abcdef"},"name":"Trip","price":12.5,"tripID":"6F9619FF"}"#,
            #"{"z":{"b":1,"a":2},"y":{"é":1,"e":2},"x":{"k\n":1},"w":{}}"#,
            #"{"n":[[1,[2,[3]]],{"a":[{"b":{}}]}],"big":9223372036854775807,"small":-9223372036854775808}"#,
            #"{"s":"tab\there","u":"\ud83e\uddf3","d":1e300,"i":123456789012}"#,
            "{\"long\":[" + (0..<200).map(String.init).joined(separator: ",") + "]}",
            "{\"keys\":{" + (0..<150).map { "\"k\(1000 + $0)\":\($0)" }.joined(separator: ",") + "}}",
            "{ \"spaced\" : [ 1 , { \"a\" : 2 } ] , \"t\" : true }",
        ]
        for text in texts {
            let parsed = try parseRecord(text)
            let expected = RecordValues(try #require(try JSONReader().parse(text).objectValue))
            #expect(parsed == expected, "\(text)")
            #expect(parsed.values.bytes == expected.values.bytes, "\(text)")
        }
        #expect(throws: (any Error).self) { try parseRecord(#"{"a":{"x":1,"x":2}}"#) }
        #expect(throws: (any Error).self) { try parseRecord("{\"a\":{\"\u{E9}\":1,\"e\u{301}\":2}}") }
        #expect(throws: (any Error).self) { try parseRecord(#"{"a":[1,]}"#) }
        #expect(throws: (any Error).self) { try parseRecord(#"{"a":{"b":1,}}"#) }
        let invalidUTF8: [UInt8] = Array(#"{"a":""#.utf8) + [0xC3, 0x28] + Array(#""}"#.utf8)
        #expect(throws: (any Error).self) {
            try invalidUTF8.withUnsafeBufferPointer { buffer in
                var parser = _Parser(bytes: buffer, maximumDepth: 512)
                return try parser.parseRecordValues(depth: 1)
            }
        }
    }

    @Test func mergingFilteringAndSettingAgreeWithADictionary() {
        let base: RecordValues = ["a": .string("first value, long enough"), "c": .array([.int(1)]), "e": .double(-0.0)]
        var dictionary = base.dictionary
        var record = base
        let steps: [(String, JSONValue?)] = [
            ("c", .object(["k": .null])), ("b", .string("")), ("a", nil), ("z", .int(.min)), ("e", nil),
            ("0", .bool(true)), ("missing", nil),
        ]
        for (name, value) in steps {
            record[name] = value
            dictionary[name] = value
            #expect(record.dictionary == dictionary)
            #expect(record == RecordValues(dictionary))
        }
        let changes: RecordValues = ["b": .int(2), "y": .string("new")]
        #expect(record.merging(changes).dictionary == dictionary.merging(changes.dictionary) { $1 })
        #expect(base.merging(["a": .null]).dictionary == ["a": .null, "c": .array([.int(1)]), "e": .double(-0.0)])
        #expect(base.merging(["e": .int(3)])["e"] == .int(3))
        #expect(base.filter { $0 != "c" }.dictionary == base.dictionary.filter { $0.key != "c" })
        #expect(base.filter { $0 == "e" }["e"].map { identical($0, .double(-0.0)) } == true)
    }

    @Test func aMigrationMovesValuesWithoutChangingThem() {
        let record: RecordValues = ["a": .string("é and more"), "b": .object(["x": .int(1)]), "c": .double(-0.0)]
        let layout = RecordLayout.interned(sortedNames: ["p", "q"])
        let moved = record.rearranged(into: layout, sources: [2, 0])
        #expect(moved.keys == ["p", "q"])
        #expect(moved["p"].map { identical($0, .double(-0.0)) } == true)
        #expect(moved["q"] == .string("é and more"))
    }

    @Test func equalValuesWithDifferentBytesAreEqualAndHashAlike() {
        let pairs: [(RecordValues, RecordValues)] = [
            (["d": .double(0.0)], ["d": .double(-0.0)]),
            (["s": .string("\u{E9}")], ["s": .string("e\u{301}")]),
            (["s": .string("K")], ["s": .string("\u{212A}")]),  // KELVIN SIGN is canonically equivalent to K
            (["o": .object(["\u{E9}": .int(1)])], ["o": .object(["e\u{301}": .int(1)])]),
            (["a": .array([.double(-0.0), .string("x")])], ["a": .array([.double(0.0), .string("x")])]),
        ]
        for (lhs, rhs) in pairs {
            #expect(lhs.values.bytes != rhs.values.bytes)
            #expect(lhs == rhs)
            #expect(lhs.hashValue == rhs.hashValue)
            #expect(Set([lhs, rhs]).count == 1)
        }
        let different: [(RecordValues, RecordValues)] = [
            (["v": .int(1)], ["v": .double(1)]),
            (["v": .int(1)], ["w": .int(1)]),
            (["v": .string("a")], ["v": .string("b")]),
            (["v": .array([.int(1)])], ["v": .array([.int(1), .int(1)])]),
            (["v": .bool(true)], ["v": .bool(false)]),
            (["v": .null], ["v": .int(0)]),
        ]
        for (lhs, rhs) in different { #expect(lhs != rhs) }
        // A NaN never reaches a store; a record holding one must still compare and hash without trapping.
        let nan: RecordValues = ["v": .double(.nan)]
        #expect(nan == nan)
        _ = nan.hashValue
        #expect(nan != ["v": .double(1)])
    }

    /// What ``PackedValues/withScalar(atSlot:_:)`` reads in place, as the decoded value it stands for:
    /// a container reads as the empty array, which it is not decoded into.
    private static func scalarValue(_ values: PackedValues, slot: Int) -> JSONValue {
        var read: JSONValue?
        values.withScalar(atSlot: slot) { scalar in
            switch scalar {
            case .null: read = .null
            case .bool(let value): read = .bool(value)
            case .int(let value): read = .int(value)
            case .double(let value): read = .double(value)
            case .text(let utf8, let isASCII):
                #expect(isASCII == utf8.allSatisfy { $0 < 0x80 })
                read = .string(String(decoding: utf8, as: UTF8.self))
            case .container: read = .array([])
            }
        }
        return read ?? .string("no call")
    }

    /// Whether reading in place agrees with decoding: the same value, but for arrays and objects, which
    /// read as containers (even broken ones, which decode as null).
    private static func scalarAgrees(_ values: PackedValues, slot: Int) -> Bool {
        let (decoded, scalar) = (values.value(atSlot: slot), scalarValue(values, slot: slot))
        switch decoded {
        case .array, .object: return scalar == .array([])
        default: return identical(decoded, scalar) || (decoded == .null && scalar == .array([]))
        }
    }

    @Test func aValueReadInPlaceIsTheDecodedValue() throws {
        let record = try #require(RecordValues(names: sampleValues.indices.map { "v\($0)" }, values: ContiguousArray(sampleValues)))
        for (slot, value) in sampleValues.enumerated() {
            #expect(Self.scalarAgrees(record.values, slot: slot), "\(String(describing: value).prefix(80))")
        }
        #expect(Self.scalarValue(record.values, slot: sampleValues.count) == .null)
        #expect(Self.scalarValue(record.values, slot: -1) == .null)
        // By name, with the slot of the last layout kept: a record of another layout looks again.
        var cache = SlotCache()
        var seen: [JSONValue] = []
        for values in [RecordValues(["a": .int(1), "b": .string("x")]), RecordValues(["b": .bool(true)]), RecordValues(["c": .null])] {
            let held = values.withScalar(named: "b", slotCache: &cache) { scalar in
                if case .text(let utf8, _) = scalar { seen.append(.string(String(decoding: utf8, as: UTF8.self))) }
                if case .bool(let value) = scalar { seen.append(.bool(value)) }
            }
            if !held { seen.append(.null) }
        }
        #expect(seen == [.string("x"), .bool(true), .null])
    }

    @Test func brokenBytesDecodeAsNullAndStayInBounds() throws {
        let record = RecordValues(
            names: ["a", "b", "c", "d"],
            values: [
                .string("some text"), .array([.object(["k": .int(300)]), .double(2.5)]), .int(.max),
                .array([.string("2022-07-20T05:19:19.323Z"), .string("6F9619FF-8B86-D011-B42D-00C04FC964FF")]),
            ])
        let bytes = try #require(record).values.bytes
        // Every truncation and every single-byte change of a valid buffer must decode without trapping.
        for length in 0..<bytes.count {
            let broken = PackedValues(unvalidatedBytes: ContiguousArray(bytes.prefix(length)))
            for slot in -1...4 { #expect(Self.scalarAgrees(broken, slot: slot), "truncated to \(length), slot \(slot)") }
            _ = broken.count
        }
        for position in bytes.indices {
            for replacement: UInt8 in [0x00, 0x01, 0x05, 0x07, 0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x7F, 0x80, 0xFF] {
                var changed = bytes
                changed[position] = replacement
                let broken = PackedValues(unvalidatedBytes: changed)
                for slot in 0..<4 {
                    #expect(Self.scalarAgrees(broken, slot: slot), "byte \(position) set to \(replacement), slot \(slot)")
                }
                guard broken.count == 4 else { continue }
                var output: [UInt8] = []
                try? CanonicalJSONWriter().write(
                    RecordValues(layout: RecordLayout.interned(sortedNames: ["a", "b", "c", "d"]), packed: broken), into: &output)
            }
        }
        // A truncated value reads as null; an absurd count or width reads as no values.
        let truncated = PackedValues(unvalidatedBytes: ContiguousArray(bytes.dropLast()))
        #expect(truncated.value(atSlot: 3) == .null)
        #expect(PackedValues(unvalidatedBytes: [3, 1, 0, 0]).isEmpty)
        #expect(PackedValues(unvalidatedBytes: [1, 0xFF, 4]).isEmpty)
        let hugeArray = PackedValues(unvalidatedBytes: [1, 1, 12, PackedEncoding.array, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F, 0])
        #expect(hugeArray.value(atSlot: 0) == .null)
        let unknownTag = PackedValues(unvalidatedBytes: [1, 1, 4, 0x42])
        #expect(unknownTag.value(atSlot: 0) == .null)
        // The canonical writer writes what the broken bytes decode as.
        var output: [UInt8] = []
        try CanonicalJSONWriter().write(RecordValues(layout: RecordLayout.interned(sortedNames: ["x"]), packed: unknownTag), into: &output)
        #expect(String(decoding: output, as: UTF8.self) == #"{"x":null}"#)
    }
}
