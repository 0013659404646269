import Foundation
import Testing
@testable import FolioStorage

/// The journal merge with a schema: relationships merged as relationships, uniqueness as SwiftData's
/// upsert, both the same whichever side merges into which.
@Suite("Three-way journal merge of relationships and unique values")
struct MergedRelationshipsTests {
    static let schema: JSONValue = .object([
        "entities": .object([
            "Cookbook": .object([
                "properties": .object([
                    "recipes": .object([
                        "kind": .string("relationship"), "destination": .string("Recipe"), "toMany": .bool(true),
                        "inverse": .string("cookbook"), "deleteRule": .string("nullify"),
                    ]),
                    "title": .object(["kind": .string("attribute"), "type": .string("String")]),
                ])
            ]),
            "Recipe": .object([
                "properties": .object([
                    "cookbook": .object([
                        "kind": .string("relationship"), "destination": .string("Cookbook"), "toMany": .bool(false),
                        "inverse": .string("recipes"), "optional": .bool(true),
                    ]),
                    "name": .object(["kind": .string("attribute"), "type": .string("String"), "options": .array([.string("unique")])]),
                    "servings": .object(["kind": .string("attribute"), "type": .string("Int")]),
                ]),
                "uniqueness": .array([.array([.string("name")])]),
            ]),
        ])
    ])

    static let a = IdentifierBlocks.first(in: 7), b = IdentifierBlocks.first(in: 9)

    static func transaction(
        _ sequence: UInt64, _ id: String, at millisecond: Int, inserted: [StoredRecord] = [], updated: [StoredRecord] = [],
        deleted: [DeletedRecord] = [], schema: JSONValue? = nil, nextID: Int64
    ) -> JournalTransaction {
        JournalTransaction(
            sequence: sequence, transactionID: id, timestamp: Date(timeIntervalSince1970: 1_800_000_000 + Double(millisecond) / 1000),
            author: nil, inserted: inserted, updated: updated, deleted: deleted, schema: schema, nextID: nextID)
    }

    /// A cookbook (1) with two recipes (2, 3), the schema recorded on the line (or not, when the schema
    /// is to come from the manifest).
    static func base(recordingSchema: Bool = true) -> JournalTransaction {
        Self.transaction(
            1, "base", at: 0,
            inserted: [
                StoredRecord(entity: "Cookbook", id: 1, values: ["title": .string("Suppers"), "recipes": .array([.int(2), .int(3)])]),
                StoredRecord(entity: "Recipe", id: 2, values: ["name": .string("Soup"), "cookbook": .int(1)]),
                StoredRecord(entity: "Recipe", id: 3, values: ["name": .string("Stew"), "cookbook": .int(1)]),
            ], schema: recordingSchema ? schema : nil, nextID: 4)
    }

    struct Merged {
        var records: [Int64: RecordValues]
        var conflicts: [MergeConflict]
    }

    /// Merges both ways round, requires the same bytes, and replays the result.
    static func merge(
        ours: [JournalTransaction], theirs: [JournalTransaction], base: JournalTransaction = base(), fallback: JSONValue? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> Merged {
        func file(_ transactions: [JournalTransaction]) throws -> [UInt8] { try transactions.flatMap { try $0.encodedLine() } }
        let forward = try JournalThreeWayMerge.merge(
            base: file([base]), ours: file([base] + ours), theirs: file([base] + theirs), schema: fallback)
        let backward = try JournalThreeWayMerge.merge(
            base: file([base]), ours: file([base] + theirs), theirs: file([base] + ours), schema: fallback)
        #expect(forward.bytes == backward.bytes, "the same merge whichever side merges into which", sourceLocation: sourceLocation)
        var state = StoreState()
        for line in try JournalThreeWayMerge.read(forward.bytes, name: "merged") {
            #expect(state.apply(line.transaction).isEmpty, "transaction \(line.transaction.sequence) applies cleanly", sourceLocation: sourceLocation)
        }
        var records: [Int64: RecordValues] = [:]
        state.forEachRecord { id, _, values in records[id] = values }
        return Merged(records: records, conflicts: forward.conflicts)
    }

    static func recipes(_ merged: Merged, of cookbook: Int64 = 1) -> Set<Int64> {
        Set(merged.records[cookbook]?["recipes"]?.arrayValue?.compactMap(\.intValue) ?? [])
    }

    @Test func recipesBothSidesAddedToOneCookbookAreAllInItsList() throws {
        let ours = [
            Self.transaction(
                2, "a1", at: 10, inserted: [StoredRecord(entity: "Recipe", id: Self.a, values: ["name": .string("Pie"), "cookbook": .int(1)])],
                updated: [StoredRecord(entity: "Cookbook", id: 1, values: ["recipes": .array([.int(2), .int(3), .int(Self.a)])])],
                nextID: Self.a + 1)
        ]
        let theirs = [
            Self.transaction(
                2, "b1", at: 20, inserted: [StoredRecord(entity: "Recipe", id: Self.b, values: ["name": .string("Tart"), "cookbook": .int(1)])],
                updated: [StoredRecord(entity: "Cookbook", id: 1, values: ["recipes": .array([.int(2), .int(3), .int(Self.b)])])],
                nextID: Self.b + 1)
        ]
        let merged = try Self.merge(ours: ours, theirs: theirs)
        #expect(Self.recipes(merged) == [2, 3, Self.a, Self.b])
        #expect(merged.conflicts.isEmpty, "a set merge loses nothing: \(merged.conflicts)")
    }

    @Test func withoutASchemaTheLaterListWinsAndTheOtherIsAConflict() throws {
        let ours = [
            Self.transaction(2, "a1", at: 10, updated: [StoredRecord(entity: "Cookbook", id: 1, values: ["recipes": .array([.int(2)])])], nextID: 4)
        ]
        let theirs = [
            Self.transaction(
                2, "b1", at: 20, updated: [StoredRecord(entity: "Cookbook", id: 1, values: ["recipes": .array([.int(2), .int(3), .int(9)])])],
                nextID: 10)
        ]
        let merged = try Self.merge(ours: ours, theirs: theirs, base: Self.base(recordingSchema: false))
        #expect(Self.recipes(merged) == [2, 3, 9])
        #expect(merged.conflicts.map(\.member) == ["recipes"])
    }

    @Test func aRecipeOneSideMovedOutStaysOutWhileTheOtherSideAddsOne() throws {
        // Ours takes Stew (3) out of the cookbook; theirs adds Tart.
        let ours = [
            Self.transaction(
                2, "a1", at: 30,
                updated: [
                    StoredRecord(entity: "Cookbook", id: 1, values: ["recipes": .array([.int(2)])]),
                    StoredRecord(entity: "Recipe", id: 3, values: ["cookbook": .null]),
                ], nextID: 4)
        ]
        let theirs = [
            Self.transaction(
                2, "b1", at: 20, inserted: [StoredRecord(entity: "Recipe", id: Self.b, values: ["name": .string("Tart"), "cookbook": .int(1)])],
                updated: [StoredRecord(entity: "Cookbook", id: 1, values: ["recipes": .array([.int(2), .int(3), .int(Self.b)])])],
                nextID: Self.b + 1)
        ]
        let merged = try Self.merge(ours: ours, theirs: theirs)
        #expect(Self.recipes(merged) == [2, Self.b])
        #expect(merged.records[3]?["cookbook"] == .null)
        #expect(merged.conflicts.isEmpty, "\(merged.conflicts)")
    }

    @Test func aRecipeBothSidesMovedFollowsTheLaterMove() throws {
        // Ours moves Soup (2) out; theirs, later, moves it into a new cookbook and adds Tart to cookbook 1.
        let ours = [
            Self.transaction(
                2, "a1", at: 10,
                updated: [
                    StoredRecord(entity: "Cookbook", id: 1, values: ["recipes": .array([.int(3)])]),
                    StoredRecord(entity: "Recipe", id: 2, values: ["cookbook": .null]),
                ], nextID: 4)
        ]
        let theirs = [
            Self.transaction(
                2, "b1", at: 20,
                inserted: [
                    StoredRecord(entity: "Cookbook", id: Self.b, values: ["title": .string("Lunches"), "recipes": .array([.int(2)])])
                ],
                updated: [
                    StoredRecord(entity: "Cookbook", id: 1, values: ["recipes": .array([.int(3)])]),
                    StoredRecord(entity: "Recipe", id: 2, values: ["cookbook": .int(Self.b)]),
                ], nextID: Self.b + 1)
        ]
        let merged = try Self.merge(ours: ours, theirs: theirs)
        #expect(merged.records[2]?["cookbook"] == .int(Self.b))
        #expect(Self.recipes(merged) == [3])
        #expect(Self.recipes(merged, of: Self.b) == [2])
        #expect(merged.conflicts.map(\.member) == ["cookbook"], "the to-one both sides set is a conflict: \(merged.conflicts)")
    }

    @Test func aRecipeAddedToACookbookTheOtherSideDeletedLosesTheReferenceAndSaysSo() throws {
        let ours = [
            Self.transaction(
                2, "a1", at: 30,
                updated: [
                    StoredRecord(entity: "Recipe", id: 2, values: ["cookbook": .null]),
                    StoredRecord(entity: "Recipe", id: 3, values: ["cookbook": .null]),
                ], deleted: [DeletedRecord(entity: "Cookbook", id: 1, tombstone: [:])], nextID: 4)
        ]
        let theirs = [
            Self.transaction(
                2, "b1", at: 20, inserted: [StoredRecord(entity: "Recipe", id: Self.b, values: ["name": .string("Tart"), "cookbook": .int(1)])],
                updated: [StoredRecord(entity: "Cookbook", id: 1, values: ["recipes": .array([.int(2), .int(3), .int(Self.b)])])],
                nextID: Self.b + 1)
        ]
        let merged = try Self.merge(ours: ours, theirs: theirs)
        #expect(merged.records[1] == nil)
        #expect(merged.records[Self.b]?["name"] == .string("Tart"), "the recipe is kept")
        #expect(merged.records[Self.b]?["cookbook"] == .null)
        let reference = merged.conflicts.first { $0.id == Self.b && $0.member == "cookbook" }
        #expect(reference?.lost == .int(1))
        #expect(reference?.kept == .null)
        #expect(reference?.lostTransaction == "b1")
    }

    @Test func aListThatStillNamesARecipeTheOtherSideDeletedDropsItWithoutALoss() throws {
        let ours = [
            Self.transaction(
                2, "a1", at: 10, updated: [StoredRecord(entity: "Cookbook", id: 1, values: ["recipes": .array([.int(2)])])],
                deleted: [DeletedRecord(entity: "Recipe", id: 3, tombstone: [:])], nextID: 4)
        ]
        let theirs = [
            Self.transaction(
                2, "b1", at: 20, inserted: [StoredRecord(entity: "Recipe", id: Self.b, values: ["name": .string("Tart"), "cookbook": .int(1)])],
                updated: [StoredRecord(entity: "Cookbook", id: 1, values: ["recipes": .array([.int(2), .int(3), .int(Self.b)])])],
                nextID: Self.b + 1)
        ]
        let merged = try Self.merge(ours: ours, theirs: theirs)
        #expect(merged.records[3] == nil)
        #expect(Self.recipes(merged) == [2, Self.b])
        #expect(merged.conflicts.isEmpty, "the list held the recipe before; nothing was added and lost: \(merged.conflicts)")
    }

    @Test func aRecipeAddedToAListAfterTheOtherSideDeletedItIsALostReference() throws {
        // Theirs moves Stew (3) to a new cookbook; ours, earlier, deleted Stew.
        let ours = [
            Self.transaction(
                2, "a1", at: 10, updated: [StoredRecord(entity: "Cookbook", id: 1, values: ["recipes": .array([.int(2)])])],
                deleted: [DeletedRecord(entity: "Recipe", id: 3, tombstone: [:])], nextID: 4)
        ]
        let theirs = [
            Self.transaction(
                2, "b1", at: 5,
                inserted: [
                    StoredRecord(entity: "Cookbook", id: Self.b, values: ["title": .string("Lunches"), "recipes": .array([.int(3)])])
                ],
                updated: [
                    StoredRecord(entity: "Cookbook", id: 1, values: ["recipes": .array([.int(2)])]),
                    StoredRecord(entity: "Recipe", id: 3, values: ["cookbook": .int(Self.b)]),
                ], nextID: Self.b + 1)
        ]
        let merged = try Self.merge(ours: ours, theirs: theirs)
        #expect(merged.records[3] == nil)
        #expect(Self.recipes(merged, of: Self.b).isEmpty)
        let lost = merged.conflicts.first { $0.id == Self.b && $0.member == "recipes" }
        #expect(lost?.lost == .array([.int(3)]))
        #expect(lost?.kept == .array([]))
    }

    @Test func twoRecipesInsertedWithOneUniqueNameBecomeOneRecordAsAnUpsert() throws {
        let ours = [
            Self.transaction(
                2, "a1", at: 10,
                inserted: [
                    StoredRecord(entity: "Recipe", id: Self.a, values: ["name": .string("Pie"), "servings": .int(4)])
                ], nextID: Self.a + 1)
        ]
        let theirs = [
            Self.transaction(
                2, "b1", at: 20,
                inserted: [
                    StoredRecord(entity: "Recipe", id: Self.b, values: ["name": .string("Pie"), "servings": .int(6), "cookbook": .int(1)])
                ], updated: [StoredRecord(entity: "Cookbook", id: 1, values: ["recipes": .array([.int(2), .int(3), .int(Self.b)])])],
                nextID: Self.b + 1),
            Self.transaction(
                3, "b2", at: 40, updated: [StoredRecord(entity: "Recipe", id: Self.b, values: ["servings": .int(8)])], nextID: Self.b + 1),
        ]
        let merged = try Self.merge(ours: ours, theirs: theirs)
        #expect(merged.records[Self.b] == nil, "the later insert became an update of the earlier record")
        #expect(merged.records[Self.a]?.dictionary == ["name": .string("Pie"), "servings": .int(8), "cookbook": .int(1)])
        #expect(Self.recipes(merged) == [2, 3, Self.a], "references to the later record lead to the one kept")
        let identity = merged.conflicts.first { $0.member == JournalThreeWayMerge.uniqueMergeMember }
        #expect(identity?.id == Self.b)
        #expect(identity?.kept == .int(Self.a))
        let servings = merged.conflicts.first { $0.member == "servings" }
        #expect(servings?.lost == .int(4))
        #expect(servings?.kept == .int(6))
    }

    @Test func theManifestsSchemaIsUsedWhenNoLineRecordsOne() throws {
        let ours = [
            Self.transaction(
                2, "a1", at: 10, inserted: [StoredRecord(entity: "Recipe", id: 7, values: ["name": .string("Pie"), "cookbook": .int(1)])],
                updated: [StoredRecord(entity: "Cookbook", id: 1, values: ["recipes": .array([.int(2), .int(3), .int(7)])])], nextID: 8)
        ]
        let theirs = [
            Self.transaction(
                2, "b1", at: 20, inserted: [StoredRecord(entity: "Recipe", id: Self.b, values: ["name": .string("Tart"), "cookbook": .int(1)])],
                updated: [StoredRecord(entity: "Cookbook", id: 1, values: ["recipes": .array([.int(2), .int(3), .int(Self.b)])])],
                nextID: Self.b + 1)
        ]
        let merged = try Self.merge(ours: ours, theirs: theirs, base: Self.base(recordingSchema: false), fallback: Self.schema)
        #expect(Self.recipes(merged) == [2, 3, 7, Self.b])
        var manifest = Manifest()
        manifest.schema = Self.schema
        #expect(MergeSchema.recorded(inManifest: try manifest.encoded()) == Self.schema)
        #expect(MergeSchema.recorded(inManifest: Array("{\"not\":\"a manifest\"}\n".utf8)) == nil)
    }
}
