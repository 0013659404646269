import Testing
@testable import FolioStorage

@Suite("Snapshot files")
struct SnapshotFileTests {
    @Test func theFastRecordPathAgreesWithTheGeneralOne() throws {
        let values: [String: JSONValue] = ["name": .string("Tokyo \u{2028} é"), "nested": .object(["a": .array([.int(1), .double(2.5)])])]
        let bytes = try SnapshotFile.encode(entity: "Trip", sequence: 3, records: [42: RecordValues(values), -7: RecordValues()])
        let lines = bytes.split(separator: 0x0A).map { Array($0) }
        #expect(lines.count == 3)
        for line in lines.dropFirst() {
            let fast = try line.withUnsafeBufferPointer { try SnapshotFile.fastRecord($0) }
            let general = try line.withUnsafeBufferPointer { try SnapshotFile.decodeRecord(LineFraming.decode($0)) }
            #expect(fast?.0 == general.0)
            #expect(fast?.1 == general.1)
        }
        // Another shape: nil, not an error.
        let other = try LineFraming.encode(["id": .int(1), "values": .object([:]), "extra": .null]).dropLast()
        #expect(try Array(other).withUnsafeBufferPointer { try SnapshotFile.fastRecord($0) } == nil)
    }
}
