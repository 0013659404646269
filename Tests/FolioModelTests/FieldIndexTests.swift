import Foundation
import Testing
import FolioStorage
@testable import Folio

@Suite("Field index")
struct FieldIndexTests {
    @Test func keysMoveBetweenOneAndManyIdentifiersAndTheSortedOrderFollows() {
        let index = FieldIndex(field: "city", conversion: .plain, isUnique: false, isDeclared: true)
        func values(_ city: String) -> RecordValues { ["city": .string(city)] }
        index.insert(1, values("Rome"))
        index.insert(2, values("Rome"))
        index.insert(3, values("Lima"))
        #expect(Array(index.lookup(.string("Rome"))) == [1, 2])
        #expect(index.sortedEntries().map(\.id) == [3, 1, 2])

        index.remove(1, values("Rome"))
        #expect(Array(index.lookup(.string("Rome"))) == [2])
        index.insert(1, values("Rome"))  // back to two
        index.remove(2, values("Rome"))
        index.remove(1, values("Rome"))
        #expect(index.lookup(.string("Rome")).isEmpty)
        #expect(index.sortedEntries().map(\.id) == [3])

        index.remove(99, values("Lima"))  // not there: nothing changes
        #expect(Array(index.lookup(.string("Lima"))) == [3])
        index.insert(4, [:])               // no value: indexed under nil, which sorts first
        #expect(Array(index.lookup(.null)) == [4])
        #expect(index.sortedEntries().map(\.id) == [4, 3])
    }
}

@Suite("Record layouts")
struct RecordLayoutTests {
    @Test func beyondTheInterningTableLayoutsStillCompareAndReadByName() {
        // More distinct property sets than the table keeps: the later ones are not shared, and must still work.
        var records: [RecordValues] = []
        for index in 0..<5000 {
            records.append(["shared": .int(Int64(index)), "p\(index)": .bool(true)])
        }
        let last = records[4999]
        let again: RecordValues = ["p4999": .bool(true), "shared": .int(4999)]
        #expect(last == again)
        #expect(last.hashValue == again.hashValue)
        #expect(last["p4999"] == .bool(true))
        #expect(last["shared"] == .int(4999))
        #expect(last.merging(["extra": .null]).keys == ["extra", "p4999", "shared"])
        #expect(records[0] != records[1])
    }
}
