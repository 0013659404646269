import Foundation
import Testing
@testable import FolioStorage

@Suite("Record values")
struct RecordValuesTests {
    @Test func readsLikeADictionaryWhateverTheOrderOfItsLiteral() {
        let values: RecordValues = ["price": .double(2.5), "name": .string("Tokyo"), "count": .int(3)]
        #expect(values["name"] == .string("Tokyo"))
        #expect(values["price"] == .double(2.5))
        #expect(values["missing"] == nil)
        #expect(values.keys == ["count", "name", "price"])
        #expect(values.map(\.key) == ["count", "name", "price"])
        #expect(values.dictionary == ["price": .double(2.5), "name": .string("Tokyo"), "count": .int(3)])
        #expect(values.count == 3)
    }

    @Test func recordsWithTheSameNamesShareOneLayout() {
        #expect(
            sharedLayouts(
                { RecordValues(["a": .int(1), "b": .int(2)]) },
                then: { RecordValues(["b": .int(3), "a": .int(4)]) }))
        let first = RecordValues(["a": .int(1), "b": .int(2)])
        #expect(RecordValues(["b": .int(3), "a": .int(4)]) != first)
        #expect(RecordValues(["a": .int(1), "b": .int(2)]) == first)
    }

    /// More distinct layouts than the table holds (a pathological process) must not stop the layouts
    /// seen afterwards from being shared.
    @Test func layoutsAreSharedAgainAfterTheTableOfLayoutsFills() {
        let marker = "fill-\(UInt64.random(in: 0...UInt64.max))"
        for index in 0..<5_000 {
            _ = RecordValues([marker: .int(1), "n\(index)": .int(2)])
            _ = RecordValues(names: ["n\(index)", marker, "z"], values: [.int(1), .int(2), .int(3)])
        }
        #expect(
            sharedLayouts(
                { RecordValues([marker + "-after": .int(1), "b": .int(2)]) },
                then: { RecordValues(["b": .int(3), marker + "-after": .int(4)]) }))
        #expect(
            sharedLayouts(
                { RecordValues(names: ["z", marker + "-after"], values: [.int(1), .int(2)]) ?? RecordValues() },
                then: { RecordValues(names: ["z", marker + "-after"], values: [.int(3), .int(4)]) ?? RecordValues() }))
        #expect(RecordValues(names: ["z", marker + "-after"], values: [.int(1), .int(2)])?.keys == [marker + "-after", "z"])
    }

    /// A table that goes past its capacity starts again empty, and a layout it no longer holds is an
    /// ordinary object, freed once nothing refers to it: a process going through many property sets
    /// does not keep them all.
    @Test func aLayoutTheTableNoLongerHoldsIsFreedOnceUnused() {
        let table = LayoutTable(capacity: 1)
        var first = table.layout(forSortedNames: ["a"])
        // The table holds one layout: this empties it, so only `first` refers to the first layout.
        var second = table.layout(forSortedNames: ["b"])
        _ = table.layout(forSortedNames: ["c"])
        #expect(isKnownUniquelyReferenced(&first))
        #expect(isKnownUniquelyReferenced(&second))
        #expect(first.names == ["a"] && second.names == ["b"])
        weak let released: RecordLayout? = table.layout(forSortedNames: ["d"])
        _ = table.layout(forSortedNames: ["e"])
        #expect(released == nil)
    }

    /// Whether `second` gets the layout instance `first` got, with another layout asked for between the
    /// two (so that the second is not simply the one asked for last). The table of layouts is shared by
    /// the whole process, and tests running meanwhile may fill it, which starts it again empty: a miss
    /// right then is allowed, three in a row are not.
    private func sharedLayouts(_ first: () -> RecordValues, then second: () -> RecordValues) -> Bool {
        (0..<3).contains { attempt in
            let one = first()
            let between = "between-\(attempt)-\(UInt64.random(in: 0...UInt64.max))"
            _ = RecordValues([between: .int(1)])
            _ = RecordValues(names: ["zz", between], values: [.int(1), .int(2)])
            return one.layout === second().layout
        }
    }

    @Test func settingAddsReplacesAndRemovesNames() {
        var values: RecordValues = ["b": .int(1)]
        values["a"] = .string("x")
        values["c"] = .null
        #expect(values.keys == ["a", "b", "c"])
        values["b"] = .int(2)
        #expect(values["b"] == .int(2))
        values["a"] = nil
        #expect(values.keys == ["b", "c"])
        #expect(values["c"] == .null, "null is a value, unlike a missing name")
        #expect(values == ["b": .int(2), "c": .null])
    }

    @Test func mergingAppliesChangesOverTheStoredValues() {
        let stored: RecordValues = ["a": .int(1), "b": .int(2), "d": .int(4)]
        #expect(stored.merging(["b": .int(20), "c": .int(3)]) == ["a": .int(1), "b": .int(20), "c": .int(3), "d": .int(4)])
        #expect(stored.merging([:]) == stored)
        #expect(RecordValues().merging(stored) == stored)
        #expect(stored.merging(["a": .int(0), "b": .int(0), "d": .int(0)]) == ["a": .int(0), "b": .int(0), "d": .int(0)])
        #expect(stored.merging(["z": .bool(true)]).keys == ["a", "b", "d", "z"])
        let updated = stored.merging(["d": .string("x"), "a": .null])
        #expect(updated == ["a": .null, "b": .int(2), "d": .string("x")])
        #expect(updated.layout === stored.layout, "changing names the values have keeps their layout")
    }

    /// Merging agrees with merging dictionaries, whether the changes set names the values have or not.
    @Test func mergingAgreesWithADictionaryMerge() {
        var generator = SeededGenerator(seed: 7)
        let names = ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k"]
        for _ in 0..<2_000 {
            func randomValues() -> [String: JSONValue] {
                var values: [String: JSONValue] = [:]
                for name in names where generator.next() % 3 == 0 { values[name] = .int(Int64(generator.next() % 100)) }
                return values
            }
            let stored = randomValues(), changes = randomValues()
            let merged = RecordValues(stored).merging(RecordValues(changes))
            #expect(merged == RecordValues(stored.merging(changes) { _, new in new }), "\(stored) with \(changes)")
        }
    }

    @Test func aValueIsEqualInTwoRecordsWhenItsBytesOrItsDecodedValuesAreEqual() {
        let stored: RecordValues = ["city": .string("Rome"), "price": .double(0), "code": .null]
        let changed: RecordValues = ["city": .string("Rome"), "price": .double(-0.0), "code": .int(1)]
        let otherLayout: RecordValues = ["city": .string("Rome"), "note": .string("x")]
        #expect(stored.hasEqualValue(for: "city", in: changed))
        #expect(stored.hasEqualValue(for: "price", in: changed), "0.0 and -0.0 are equal, as JSONValue compares them")
        #expect(!stored.hasEqualValue(for: "code", in: changed), "null and 1 differ")
        #expect(stored.hasEqualValue(for: "city", in: otherLayout), "found by name in another layout")
        #expect(!stored.hasEqualValue(for: "price", in: otherLayout), "a value and no value differ")
        #expect(!otherLayout.hasEqualValue(for: "note", in: stored))
        #expect(stored.hasEqualValue(for: "absent", in: otherLayout), "neither has it")
        let composed: RecordValues = ["city": .string("Cafe\u{301}")]
        #expect(composed.hasEqualValue(for: "city", in: ["city": .string("Caf\u{E9}")]), "canonically equivalent strings")
    }

    @Test func filterKeepsTheChosenNames() {
        let values: RecordValues = ["a": .int(1), "b": .int(2), "c": .int(3)]
        #expect(values.filter { $0 != "b" } == ["a": .int(1), "c": .int(3)])
        #expect(values.filter { _ in true } == values)
        #expect(values.filter { _ in false }.isEmpty)
    }

    @Test func theSnapshotParserReadsMembersInAnyOrderAndRefusesDuplicates() throws {
        func parse(_ text: String) throws -> RecordValues? {
            let bytes = Array(text.utf8)
            return try bytes.withUnsafeBufferPointer { buffer in
                var parser = _Parser(bytes: buffer, maximumDepth: 512)
                return try parser.parseRecordValues(depth: 1)
            }
        }
        let sorted = try #require(try parse(#"{"a":1,"b":{"x":[true]},"c":"é"}"#))
        #expect(sorted == ["a": .int(1), "b": .object(["x": .array([.bool(true)])]), "c": .string("é")])
        let unsorted = try #require(try parse(#"{"c":"é","a":1,"b":{"x":[true]}}"#))
        #expect(unsorted == sorted)
        #expect(unsorted.keys == ["a", "b", "c"])
        #expect(try parse("{}") == RecordValues())
        #expect(throws: (any Error).self) { try parse(#"{"b":1,"a":2,"b":3}"#) }
        #expect(throws: (any Error).self) { try parse(#"{"a":1,"a":1}"#) }
        // Canonically equivalent names are the same name, as in a dictionary.
        #expect(throws: (any Error).self) { try parse("{\"\u{E9}\":1,\"e\u{301}\":2}") }
    }

    @Test func nestedObjectsStillRefuseDuplicateKeys() {
        #expect(throws: StorageError.self) { try JSONValue(parsing: #"{"a":{"x":1,"y":2,"x":3}}"#) }
        #expect(throws: StorageError.self) { try JSONValue(parsing: #"[{"a":[{"k":1,"k":1}]}]"#) }
    }

    @Test func aSnapshotRecordWithUnsortedMembersLoadsTheSameAsASortedOne() throws {
        // A hand-edited snapshot line need not be canonical: its record reads the same.
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("folio-rv-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try Store.open(at: directory)
        try store.write { transaction in
            try transaction.insert(entity: "Trip", id: transaction.allocateID(), values: ["name": .string("Oslo"), "price": .double(1.5)])
        }
        try store.compact()
        store.close()
        let snapshot = directory.appendingPathComponent("snapshots/Trip.jsonl")
        var lines = try String(contentsOf: snapshot, encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(lines[1].hasSuffix(#","id":1,"values":{"name":"Oslo","price":1.5}}"#))
        let body = #"{"id":1,"values":{"price":1.5,"name":"Oslo"}}"#
        let crc = String(CRC32.checksum(Array(body.utf8)), radix: 16)
        lines[1] = #"{"$crc":""# + String(repeating: "0", count: 8 - crc.count) + crc + #"","# + body.dropFirst()
        try (lines.joined(separator: "\n") + "\n").write(to: snapshot, atomically: false, encoding: .utf8)

        let reopened = try Store.open(at: directory)
        let record = try #require(reopened.record(id: 1))
        #expect(record.values == ["price": .double(1.5), "name": .string("Oslo")])
        #expect(record.values.keys == ["name", "price"])
    }
}

@Suite("Record values from names and values")
struct RecordValuesFromPairsTests {
    @Test func namesAndValuesOfDifferentCountsGiveNoRecord() {
        #expect(RecordValues(names: ["a", "b"], values: [.int(1)]) == nil)
        #expect(RecordValues(names: ["b", "a"], values: [.int(1)]) == nil)
        #expect(RecordValues(names: ["a"], values: [.int(1), .int(2)]) == nil)
        #expect(RecordValues(names: ["b", "a"], values: [.int(2), .int(1)]) == ["a": .int(1), "b": .int(2)])
    }

    @Test func anArrangementMakesTheSameRecordsAsSortingTheNamesEachTime() throws {
        let names = ["title", "author", "year", "ISBN"]
        let arrangement = try #require(RecordArrangement(names: names))
        let values: ContiguousArray<JSONValue> = [.string("Dune"), .string("Herbert"), .int(1965), .string("0-441")]
        // A producer puts each value at its name's place in the record as it goes.
        var placed = ContiguousArray<JSONValue>(repeating: .null, count: values.count)
        for (position, value) in values.enumerated() { placed[arrangement.sortedPositions[position]] = value }
        let arranged = try #require(arrangement.record(sortedValues: placed))
        let sorted = try #require(RecordValues(names: names, values: values))
        #expect(arranged == sorted)
        #expect(arranged.layout === sorted.layout)
        #expect(arranged.keys == ["ISBN", "author", "title", "year"])
        #expect(arranged["year"] == .int(1965))
    }

    @Test func anArrangementRefusesRepeatedNamesAndTheWrongNumberOfValues() throws {
        #expect(RecordArrangement(names: ["a", "b", "a"]) == nil)
        let arrangement = try #require(RecordArrangement(names: ["b", "a"]))
        #expect(arrangement.record(sortedValues: [.int(1)]) == nil)
        #expect(arrangement.record(sortedValues: [.int(1), .int(2), .int(3)]) == nil)
        #expect(try #require(RecordArrangement(names: [])).record(sortedValues: []) == [:])
    }
}
