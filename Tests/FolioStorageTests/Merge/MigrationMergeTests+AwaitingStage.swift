import Foundation
import Testing
@testable import FolioStorage

/// The inserts of the clone that went on with V1 that only a custom stage can carry: kept, in V1 shape,
/// on their own line for the next open with the plan.
extension MigrationMergeTests {
    /// A schema description with a checksum, declaring `properties` for `Note`.
    static func schema(version: String, checksum: String, noteProperties: [String]) -> JSONValue {
        .object([
            "version": .string(version), "checksum": .string(checksum),
            "entities": .object([
                "Note": .object(["properties": .object(Dictionary(uniqueKeysWithValues: noteProperties.map { ($0, JSONValue.object([:])) }))])
            ]),
        ])
    }

    /// The base with the V1 schema recorded (checksum `c1`).
    static var baseWithSchema: JournalTransaction {
        var line = base
        line.schema = schema(version: "1.0.0", checksum: "c1", noteProperties: ["title", "mood"])
        return line
    }

    static func mergeWithSchema(_ ours: [JournalTransaction], _ theirs: [JournalTransaction]) throws -> JournalThreeWayMerge.Result {
        let base = baseWithSchema
        return try JournalThreeWayMerge.merge(base: Base.file([base]), ours: Base.file([base] + ours), theirs: Base.file([base] + theirs))
    }

    /// Clone a migrates to V2 (checksum `c2`, `mood` removed, `Label` removed); clone b inserts labels:
    /// one it renames later, one it deletes later, and a note.
    static var labelsAfterTheMigration: (ours: [JournalTransaction], theirs: [JournalTransaction]) {
        let v2 = schema(version: "2.0.0", checksum: "c2", noteProperties: ["heading", "body"])
        let ours = [migration(2, "a1", at: 10, schema: v2, nextID: blockA)]
        let theirs = [
            Base.transaction(
                2, "b1", at: 20,
                inserted: [
                    StoredRecord(entity: "Note", id: blockB, values: ["title": .string("b"), "mood": .string("keen")]),
                    StoredRecord(entity: "Label", id: blockB + 1, values: ["name": .string("work")]),
                    StoredRecord(entity: "Label", id: blockB + 2, values: ["name": .string("gone")]),
                ], nextID: blockB + 3),
            Base.transaction(
                3, "b2", at: 30, updated: [StoredRecord(entity: "Label", id: blockB + 1, values: ["name": .string("office")])], nextID: blockB + 3),
            Base.transaction(
                4, "b3", at: 40, deleted: [DeletedRecord(entity: "Label", id: blockB + 2, tombstone: ["name": .string("gone")])], nextID: blockB + 3),
        ]
        return (ours, theirs)
    }

    @Test func aLabelInsertedWithV1IsKeptForTheStageAsItsWriterLastSavedItTheSameEitherWayRound() throws {
        let (ours, theirs) = Self.labelsAfterTheMigration
        let forward = try Self.mergeWithSchema(ours, theirs)
        #expect(forward.bytes == (try Self.mergeWithSchema(theirs, ours)).bytes)
        let lines = try JournalThreeWayMerge.read(forward.bytes, name: "merged").map(\.transaction)
        let b1 = try #require(lines.first { $0.transactionID == "b1" })
        #expect(
            b1.awaitingStage
                == AwaitingStage(
                    fromChecksum: "c1", toChecksum: "c2",
                    inserted: [StoredRecord(entity: "Label", id: Self.blockB + 1, values: ["name": .string("office")])]),
            "the later rename applied, the later delete taken out, the note (carried by the rename map) not kept")
        #expect(b1.inserted.map(\.entity) == ["Note"], "the labels are not in the merged store")
        #expect(lines.filter { $0.awaitingStage != nil }.count == 1)
        #expect(
            forward.conflicts.contains(
                MergeConflict(entity: "Label", id: Self.blockB + 1, member: "name", kept: nil, lost: .string("work"), lostTransaction: "b1")),
            "still listed as a conflict")
    }

    @Test func anInsertHoldingAValueOfAPropertyAStageConvertedIsKeptAndOneWithoutItIsNot() throws {
        // V2 converts `mood` (removed from the records, declared anew with another type by the stage).
        let v2 = Self.schema(version: "2.0.0", checksum: "c2", noteProperties: ["heading", "mood"])
        let ours = [
            Self.migration(
                2, "a1", at: 10, [RecordMigration(entity: "Note", renamedMembers: ["title": "heading"], removedMembers: ["mood"])], schema: v2,
                nextID: Self.blockA)
        ]
        let withMood = StoredRecord(entity: "Note", id: Self.blockB, values: ["title": .string("b"), "mood": .string("keen")])
        let without = StoredRecord(entity: "Note", id: Self.blockB + 1, values: ["title": .string("c")])
        let theirs = [Base.transaction(2, "b1", at: 20, inserted: [withMood, without], nextID: Self.blockB + 2)]
        let lines = try JournalThreeWayMerge.read(try Self.mergeWithSchema(ours, theirs).bytes, name: "merged").map(\.transaction)
        let b1 = try #require(lines.first { $0.transactionID == "b1" })
        #expect(b1.awaitingStage?.inserted == [withMood], "kept in V1 shape, its old names")
        #expect(b1.inserted.map(\.id) == [Self.blockB, Self.blockB + 1], "both carried as far as the rename map goes")
    }

    @Test func nothingIsKeptForAStageWithoutTheSchemaTheRecordsWereWrittenWith() throws {
        // The base records no schema (a store whose manifest holds it, merged without it): no checksum to name.
        let (ours, theirs) = Self.labelsAfterTheMigration
        let lines = try JournalThreeWayMerge.read(try Self.merge(ours, theirs).bytes, name: "merged").map(\.transaction)
        #expect(lines.allSatisfy { $0.awaitingStage == nil })
    }

    @Test func aSideThatRanTheMigrationItselfKeepsNothingForTheStage() throws {
        let v2 = Self.schema(version: "2.0.0", checksum: "c2", noteProperties: ["heading"])
        let ours = [Self.migration(2, "a1", at: 10, schema: v2, nextID: Self.blockA)]
        let theirs = [
            Base.transaction(
                2, "b1", at: 5, inserted: [StoredRecord(entity: "Label", id: Self.blockB, values: ["name": .string("work")])], nextID: Self.blockB + 1
            ),
            Self.migration(
                3, "b2", at: 20, schema: v2, inserted: [StoredRecord(entity: "Tag", id: Self.blockB + 1, values: ["name": .string("work")])],
                nextID: Self.blockB + 2),
        ]
        let lines = try JournalThreeWayMerge.read(try Self.mergeWithSchema(ours, theirs).bytes, name: "merged").map(\.transaction)
        #expect(lines.allSatisfy { $0.awaitingStage == nil }, "b's own stage copied its label")
    }

    @Test func theAwaitingAndCarriedMembersReadBackAndAMarkHoldsNeither() throws {
        var line = Base.transaction(2, "x", at: 1, nextID: 4)
        line.awaitingStage = AwaitingStage(
            fromChecksum: "c1", toChecksum: "c2", inserted: [StoredRecord(entity: "Label", id: 3, values: ["name": .string("a")])])
        line.stageCarried = ["m"]
        let read = try JournalThreeWayMerge.read(Base.file([Self.base, line]), name: "ours").map(\.transaction)
        #expect(read.last == line)
        var mark = Base.transaction(2, "x", at: 1, nextID: 0)
        mark.isCompactionMark = true
        mark.stageCarried = ["m"]
        let refusal = #expect(throws: JournalThreeWayMerge.Refusal.self) { try JournalThreeWayMerge.read(Base.file([mark]), name: "ours") }
        #expect(refusal?.message.contains("compaction mark") == true, "\(String(describing: refusal))")
    }
}

extension MigrationMergeTests {
    @Test func twoClonesThatBothCarriedTheSameAwaitingRecordsMergeWithOneCopy() throws {
        // The merged store of `labelsAfterTheMigration` is the base; each clone opened it with the plan.
        let (ours, theirs) = Self.labelsAfterTheMigration
        let merged = try JournalThreeWayMerge.read(try Self.mergeWithSchema(ours, theirs).bytes, name: "merged").map(\.transaction)
        let last = try #require(merged.last)
        func carry(_ id: String, at millisecond: Int, tag: Int64) -> JournalTransaction {
            var line = Base.transaction(
                last.sequence + 1, id, at: millisecond, inserted: [StoredRecord(entity: "Tag", id: tag, values: ["name": .string("office")])],
                nextID: tag + 1)
            line.stageCarried = ["b1"]
            return line
        }
        let ours2 = [
            carry("a9", at: 100, tag: Self.blockA + 5),
            Base.transaction(
                last.sequence + 2, "a10", at: 300, updated: [StoredRecord(entity: "Tag", id: Self.blockA + 5, values: ["name": .string("desk")])],
                nextID: Self.blockA + 6),
        ]
        let theirs2 = [
            carry("b9", at: 200, tag: Self.blockB + 5),
            Base.transaction(
                last.sequence + 2, "b10", at: 400, updated: [StoredRecord(entity: "Tag", id: Self.blockB + 5, values: ["color": .string("red")])],
                nextID: Self.blockB + 6),
        ]
        let base = try Base.file(merged)
        let forward = try JournalThreeWayMerge.merge(base: base, ours: base + Base.file(ours2), theirs: base + Base.file(theirs2))
        #expect(forward.bytes == (try JournalThreeWayMerge.merge(base: base, ours: base + Base.file(theirs2), theirs: base + Base.file(ours2))).bytes)
        let lines = try JournalThreeWayMerge.read(forward.bytes, name: "merged").map(\.transaction)
        #expect(lines.first { $0.transactionID == "b9" }?.inserted.isEmpty == true, "the later carry's copy is the earlier's")
        #expect(lines.first { $0.transactionID == "b9" }?.stageCarried.isEmpty == true)
        let records = try Base.replay(forward.bytes)
        #expect(records[Self.blockA + 5] == ["name": .string("desk"), "color": .string("red")], "both clones' later changes apply to one tag")
        #expect(records[Self.blockB + 5] == nil)
    }
}
