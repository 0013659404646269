import Foundation
import Testing
@testable import FolioStorage

/// The journal merge of two clones of which one migrated the schema since the base, or both did.
@Suite("Three-way journal merge across a migration")
struct MigrationMergeTests {
    typealias Base = JournalThreeWayMergeTests
    static let blockA = Base.blockA, blockB = Base.blockB

    /// V1 → V2: `Label` removed (a custom stage may copy it into `Tag`), `Note.title` renamed to
    /// `heading`, `Note.mood` removed; V2 also adds `Note.pinned` (not written: old records read its default).
    static let toV2 = [
        RecordMigration(entity: "Label", removesEntity: true),
        RecordMigration(entity: "Note", renamedMembers: ["title": "heading"], removedMembers: ["mood"]),
    ]
    static let schemaV2 = schema(version: "2.0.0")

    static func schema(version: String) -> JSONValue {
        .object(["version": .string(version), "entities": .object(["Note": .object(["properties": .object([:])])])])
    }

    static let base = Base.transaction(
        1, "base", at: 0,
        inserted: [
            StoredRecord(entity: "Note", id: 1, values: ["title": .string("one"), "mood": .string("calm")]),
            StoredRecord(entity: "Note", id: 2, values: ["title": .string("two"), "mood": .string("glum")]),
            StoredRecord(entity: "Label", id: 3, values: ["name": .string("home")]),
        ], nextID: 4)

    /// A migration line of clone `id` at `millisecond`, with what a custom stage saved.
    static func migration(
        _ sequence: UInt64, _ id: String, at millisecond: Int, _ migrations: [RecordMigration] = toV2, schema: JSONValue = schemaV2,
        inserted: [StoredRecord] = [], updated: [StoredRecord] = [], nextID: Int64
    ) -> JournalTransaction {
        var line = Base.transaction(sequence, id, at: millisecond, inserted: inserted, updated: updated, nextID: nextID)
        line.migrations = migrations
        line.schema = schema
        return line
    }

    /// The migrating clone: a write before its migration, the migration, a write after it.
    static let migrated = [
        Base.transaction(2, "a1", at: 10, updated: [StoredRecord(entity: "Note", id: 2, values: ["mood": .string("fine")])], nextID: blockA),
        migration(3, "a2", at: 20, nextID: blockA),
        Base.transaction(
            4, "a3", at: 40,
            inserted: [StoredRecord(entity: "Note", id: blockA, values: ["heading": .string("a"), "pinned": .bool(true)])],
            updated: [StoredRecord(entity: "Note", id: 1, values: ["heading": .string("one (a)")])], nextID: blockA + 1),
    ]

    /// The clone that went on with V1: one write before the other's migration, three after it.
    static let unmigrated = [
        Base.transaction(
            2, "b1", at: 15, updated: [StoredRecord(entity: "Note", id: 1, values: ["title": .string("one (b, early)")])], nextID: blockB),
        Base.transaction(
            3, "b2", at: 30, inserted: [StoredRecord(entity: "Note", id: blockB, values: ["title": .string("b"), "mood": .string("keen")])],
            updated: [StoredRecord(entity: "Label", id: 3, values: ["name": .string("work")])], nextID: blockB + 1),
        Base.transaction(
            4, "b3", at: 50, updated: [StoredRecord(entity: "Note", id: 1, values: ["title": .string("one (b)"), "mood": .string("odd")])],
            nextID: blockB + 1),
        Base.transaction(5, "b4", at: 60, deleted: [DeletedRecord(entity: "Note", id: 2, tombstone: ["title": .string("two")])], nextID: blockB + 1),
    ]

    static func merge(_ ours: [JournalTransaction], _ theirs: [JournalTransaction]) throws -> JournalThreeWayMerge.Result {
        try JournalThreeWayMerge.merge(base: Base.file([base]), ours: Base.file([base] + ours), theirs: Base.file([base] + theirs))
    }

    @Test func theUnmigratedSidesChangesAreCarriedThroughTheMigrationTheSameEitherWayRound() throws {
        let forward = try Self.merge(Self.migrated, Self.unmigrated)
        let backward = try Self.merge(Self.unmigrated, Self.migrated)
        #expect(forward.bytes == backward.bytes)
        let lines = try JournalThreeWayMerge.read(forward.bytes, name: "merged").map(\.transaction)
        #expect(lines.map(\.transactionID) == ["base", "a1", "b1", "a2", "b2", "a3", "b3", "b4"], "by commit time")
        #expect(lines.filter { !$0.migrations.isEmpty }.map { $0.transactionID } == ["a2"], "one migration")
        let b2 = try #require(lines.first { $0.transactionID == "b2" })
        #expect(b2.inserted.map(\.values) == [["heading": .string("b")]], "renamed, the removed member dropped, the added one left to its default")
        #expect(b2.updated.isEmpty, "the removed entity's record is gone")
        let b1 = try #require(lines.first { $0.transactionID == "b1" })
        #expect(b1.updated.map(\.values) == [["title": .string("one (b, early)")]], "a write before the migration is left to it")
        #expect(lines.last?.deleted.first?.tombstone == ["heading": .string("two")])

        let records = try Base.replay(forward.bytes)
        #expect(records[1] == ["heading": .string("one (b)")], "the later write, in the new name")
        #expect(records[2] == nil, "the delete carried")
        #expect(records[Self.blockB] == ["heading": .string("b")] && records[Self.blockA] == ["heading": .string("a"), "pinned": .bool(true)])
    }

    @Test func valuesTheMigrationDropsAndWritesCrossingItAreListedAsConflicts() throws {
        let result = try Self.merge(Self.migrated, Self.unmigrated)
        let lines = try JournalThreeWayMerge.read(result.bytes, name: "merged").map(\.transaction)
        let onMigration = Set(try #require(lines.first { $0.transactionID == "a2" }).conflicts)
        #expect(
            onMigration == [
                MergeConflict(entity: "Note", id: Self.blockB, member: "mood", kept: .null, lost: .string("keen"), lostTransaction: "b2"),
                MergeConflict(entity: "Label", id: 3, member: "name", kept: nil, lost: .string("work"), lostTransaction: "b2"),
                MergeConflict(entity: "Note", id: 1, member: "mood", kept: .null, lost: .string("odd"), lostTransaction: "b3"),
            ])
        // `title` (b1, before the migration) and `heading` (a3) are one attribute: the later write wins.
        #expect(
            Set(result.conflicts).isSuperset(of: [
                MergeConflict(entity: "Note", id: 1, member: "heading", kept: .string("one (b)"), lost: .string("one (a)"), lostTransaction: "a3")
            ]))
    }

    @Test func twoRunsOfOneMigrationMergeAsOneKeepingEachStagesWork() throws {
        // Both clones ran a stage that copies Label into Tag and fills `words`; b inserted a note first.
        let labelToTag = Self.toV2
        let ours = [
            Self.migration(
                2, "a1", at: 10, labelToTag, inserted: [StoredRecord(entity: "Tag", id: Self.blockA, values: ["name": .string("home")])],
                updated: [StoredRecord(entity: "Note", id: 1, values: ["words": .int(1)])], nextID: Self.blockA + 1),
            Base.transaction(
                3, "a2", at: 40, updated: [StoredRecord(entity: "Tag", id: Self.blockA, values: ["name": .string("house")])], nextID: Self.blockA + 1),
        ]
        let theirs = [
            Base.transaction(
                2, "b1", at: 15, inserted: [StoredRecord(entity: "Note", id: Self.blockB, values: ["title": .string("b"), "mood": .string("keen")])],
                nextID: Self.blockB + 1),
            Self.migration(
                3, "b2", at: 20, labelToTag, inserted: [StoredRecord(entity: "Tag", id: Self.blockB + 1, values: ["name": .string("home")])],
                updated: [
                    StoredRecord(entity: "Note", id: 1, values: ["words": .int(1)]),
                    StoredRecord(entity: "Note", id: Self.blockB, values: ["words": .int(1)]),
                ],
                nextID: Self.blockB + 2),
            Base.transaction(
                4, "b3", at: 50, updated: [StoredRecord(entity: "Tag", id: Self.blockB + 1, values: ["color": .string("red")])],
                nextID: Self.blockB + 2),
        ]
        let forward = try Self.merge(ours, theirs)
        #expect(forward.bytes == (try Self.merge(theirs, ours)).bytes)
        let lines = try JournalThreeWayMerge.read(forward.bytes, name: "merged").map(\.transaction)
        #expect(lines.filter { !$0.migrations.isEmpty }.map { $0.transactionID } == ["a1"], "one migration")
        #expect(lines.first { $0.transactionID == "b2" }?.schema == nil)
        let records = try Base.replay(forward.bytes)
        #expect(records[Self.blockA] == ["name": .string("house"), "color": .string("red")], "b's copy of the tag is a's: its change applies to it")
        #expect(records[Self.blockB + 1] == nil)
        #expect(records[Self.blockB] == ["heading": .string("b"), "words": .int(1)], "b's stage filled its own note")
        #expect(forward.conflicts.isEmpty, "b ran the migration itself: nothing it wrote was dropped by another's")
    }

    @Test func twoDifferentMigrationsAreRefusedNamingBothVersions() throws {
        let other = Self.schema(version: "2.1.0")
        let ours = [Self.migration(2, "a1", at: 10, nextID: Self.blockA)]
        let theirs = [
            Self.migration(2, "b1", at: 20, [RecordMigration(entity: "Note", removedMembers: ["title"])], schema: other, nextID: Self.blockB)
        ]
        let refusal = #expect(throws: JournalThreeWayMerge.Refusal.self) { try Self.merge(ours, theirs) }
        #expect(refusal?.message.contains("migrated the store's schema, differently") == true)
        #expect(refusal?.message.contains("2.0.0") == true && refusal?.message.contains("2.1.0") == true, "\(String(describing: refusal))")
    }

    @Test func aSideThatCompactedBeforeTheOtherMigratedIsCarriedByTheMigrationLine() throws {
        // The V1 clone compacted after writing: its journal is a mark, its records in V1 snapshots.
        var mark = Base.transaction(3, "b2", at: 30, nextID: 0)
        mark.isCompactionMark = true
        mark.historyFrom = 1
        let later = Base.transaction(
            4, "b3", at: 50, updated: [StoredRecord(entity: "Note", id: 1, values: ["title": .string("one (b)"), "mood": .string("odd")])],
            nextID: Self.blockB + 1)
        let forward = try JournalThreeWayMerge.merge(
            base: Base.file([Self.base]), ours: Base.file([mark, later]), theirs: Base.file([Self.base] + Self.migrated))
        let backward = try JournalThreeWayMerge.merge(
            base: Base.file([Self.base]), ours: Base.file([Self.base] + Self.migrated), theirs: Base.file([mark, later]))
        #expect(forward.bytes == backward.bytes)
        let lines = try JournalThreeWayMerge.read(forward.bytes, name: "merged").map(\.transaction)
        #expect(lines.map(\.transactionID) == ["b2", "a1", "a2", "a3", "b3"])
        #expect(lines.first { $0.transactionID == "b3" }?.updated.map(\.values) == [["heading": .string("one (b)")]])
        #expect(
            forward.conflicts.contains(MergeConflict(entity: "Note", id: 1, member: "mood", kept: .null, lost: .string("odd"), lostTransaction: "b3"))
        )
    }
    /// The migrating clone after it compacted: a mark naming the migration it folded, then a V2 write.
    static func migratedAndCompacted() -> [JournalTransaction] {
        var mark = Base.transaction(3, "a2", at: 20, nextID: 0)
        mark.isCompactionMark = true
        mark.historyFrom = 1
        mark.foldedMigrations = [FoldedMigration(transactionID: "a2", sequence: 3, migrations: toV2, schemaChecksum: "c2")]
        return [mark, migrated[2]]
    }

    @Test func aSideThatCompactedAfterMigratingHasTheOthersChangesCarriedThroughTheMigrationItsMarkNames() throws {
        let base = try Base.file([Self.base])
        let compacted = try Base.file(Self.migratedAndCompacted()), unmigrated = try Base.file([Self.base] + Self.unmigrated)
        let forward = try JournalThreeWayMerge.merge(base: base, ours: compacted, theirs: unmigrated)
        #expect(forward.bytes == (try JournalThreeWayMerge.merge(base: base, ours: unmigrated, theirs: compacted)).bytes)
        let lines = try JournalThreeWayMerge.read(forward.bytes, name: "merged").map(\.transaction)
        #expect(lines.first?.foldedMigrations.map(\.transactionID) == ["a2"], "the merged mark still names the migration")
        let b1 = try #require(lines.first { $0.transactionID == "b1" })
        #expect(b1.updated.map(\.values) == [["heading": .string("one (b, early)")]], "every V1 line follows the folded migration")
        let b2 = try #require(lines.first { $0.transactionID == "b2" })
        #expect(b2.inserted.map(\.values) == [["heading": .string("b")]] && b2.updated.isEmpty)
        #expect(
            Set(b2.conflicts) == [
                MergeConflict(entity: "Note", id: Self.blockB, member: "mood", kept: .null, lost: .string("keen"), lostTransaction: "b2"),
                MergeConflict(entity: "Label", id: 3, member: "name", kept: nil, lost: .string("work"), lostTransaction: "b2"),
            ], "a folded migration's drops are listed on the line that lost them")
    }

    @Test func twoCompactedSidesOfWhichOneFoldedAMigrationAreRefused() throws {
        var mark = Base.transaction(3, "b2", at: 30, nextID: 0)
        mark.isCompactionMark = true
        mark.historyFrom = 1
        let refusal = #expect(throws: JournalThreeWayMerge.Refusal.self) {
            try JournalThreeWayMerge.merge(base: Base.file([Self.base]), ours: Base.file([mark]), theirs: Base.file(Self.migratedAndCompacted()))
        }
        #expect(refusal?.file == "theirs" && refusal?.message.contains("Merge before compacting a migrated store") == true)
    }

    @Test func aMarkNamesFoldedMigrationsOnlyOnAMark() throws {
        var line = Base.transaction(2, "x", at: 1, nextID: 4)
        line.foldedMigrations = [FoldedMigration(transactionID: "m", sequence: 1, migrations: Self.toV2, schemaChecksum: nil)]
        let refusal = #expect(throws: JournalThreeWayMerge.Refusal.self) {
            try JournalThreeWayMerge.read(Base.file([Self.base, line]), name: "ours")
        }
        #expect(refusal?.message.contains("foldedMigrations") == true && refusal?.line == 2)
    }
    @Test func aSchemaTheUnmigratedSideRecordedIsRefusedRatherThanLeftLast() throws {
        var recorded = Base.transaction(2, "b1", at: 90, nextID: Self.blockB)
        recorded.schema = Self.schema(version: "1.1.0")
        let refusal = #expect(throws: JournalThreeWayMerge.Refusal.self) { try Self.merge(Self.migrated, [recorded]) }
        #expect(refusal?.message.contains("both sides changed the store's schema") == true, "\(String(describing: refusal))")
    }
}
