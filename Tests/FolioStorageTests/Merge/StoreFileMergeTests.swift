import Foundation
import Testing
@testable import FolioStorage

/// The merges of the files only compaction writes: manifest, history, snapshots.
@Suite("Manifest, history and snapshot merges")
struct StoreFileMergeTests {
    static func manifest(sequence: UInt64, counters: [Int64], schema: JSONValue? = nil, sizes: [String: Int64] = [:]) throws -> [UInt8] {
        var manifest = Manifest(sequence: sequence, schema: schema, snapshotBytes: sizes)
        for next in counters { manifest.counters.note(next) }
        return try manifest.encoded()
    }

    @Test func aMergedManifestAddsBothSidesCompactionsAndKeepsEveryCounter() throws {
        let blockA = IdentifierBlocks.first(in: 5), blockB = IdentifierBlocks.first(in: 9)
        let merged = try Manifest.decode(
            ManifestMerge.merge(
                base: Self.manifest(sequence: 10, counters: [4], sizes: ["Trip": 100, "City": 50]),
                ours: Self.manifest(sequence: 14, counters: [4, blockA + 3], sizes: ["Trip": 120, "City": 50]),
                theirs: Self.manifest(sequence: 12, counters: [4, blockB + 8], sizes: ["Trip": 130, "City": 60])),
            path: "merged")
        #expect(merged.sequence == 16)
        #expect(merged.counters.next(in: 5) == blockA + 3 && merged.counters.next(in: 9) == blockB + 8 && merged.counters.next(in: 0) == 4)
        #expect(merged.snapshotBytes == ["City": 60], "a size both sides changed is left for the loader to find")
        #expect(merged.needsReconciliation, "the store checks what spans the snapshot files git merged one by one")
    }

    @Test func schemasBothSidesChangedAndDamagedManifestsAreRefused() throws {
        let base = try Self.manifest(sequence: 1, counters: [2], schema: .string("v1"))
        let conflict = #expect(throws: JournalThreeWayMerge.Refusal.self) {
            try ManifestMerge.merge(
                base: base, ours: Self.manifest(sequence: 2, counters: [2], schema: .string("v2")),
                theirs: Self.manifest(sequence: 2, counters: [2], schema: .string("v3")))
        }
        #expect(conflict?.message.contains("schema") == true)
        let damaged = #expect(throws: JournalThreeWayMerge.Refusal.self) {
            try ManifestMerge.merge(base: base, ours: Array("{\"a\":1}\n".utf8), theirs: base)
        }
        #expect(damaged?.file == "ours" && damaged?.message.contains("not a Folio manifest") == true)
    }

    static func snapshot(_ records: [(Int64, [String: JSONValue])], sequence: UInt64 = 3, conflicts: [MergeConflict] = []) throws -> [UInt8] {
        var bytes = try SnapshotFile.header(entity: "Trip", sequence: sequence, count: records.count, conflicts: conflicts)
        for (id, values) in records {
            try SnapshotFile.appendRecordLine(id: id, values: RecordValues(values), with: CanonicalJSONWriter(), to: &bytes)
        }
        return bytes
    }

    @Test func snapshotsMergeRecordByRecordAndAttributeByAttribute() throws {
        let base = try Self.snapshot([
            (1, ["name": .string("Oslo"), "price": .double(1)]), (2, ["name": .string("Rome")]),
            (3, ["name": .string("Lima")]),
        ])
        let ours = try Self.snapshot(
            [
                (1, ["name": .string("Oslo"), "price": .double(5)]), (2, ["name": .string("Rome")]),
                (3, ["name": .string("Lima")]), (7, ["name": .string("Kyoto")]),
            ], sequence: 6)
        let theirs = try Self.snapshot(
            [
                (1, ["name": .string("Oslo (b)"), "price": .double(1)]), (3, ["name": .string("Lima")]),
                (9, ["name": .string("Quito")]),
            ], sequence: 5)
        let merged = try SnapshotMerge.merge(base: base, ours: ours, theirs: theirs)
        #expect(
            merged
                == (try Self.snapshot(
                    [
                        (1, ["name": .string("Oslo (b)"), "price": .double(5)]), (3, ["name": .string("Lima")]),
                        (7, ["name": .string("Kyoto")]), (9, ["name": .string("Quito")]),
                    ], sequence: 6)))
        #expect(try SnapshotMerge.merge(base: base, ours: theirs, theirs: ours) == merged, "the same bytes either way round")
    }

    static func header(of snapshot: [UInt8]) throws -> SnapshotFile.Header {
        let line = Array(snapshot.split(separator: 0x0A)[0])
        return try line.withUnsafeBufferPointer { try SnapshotFile.decodeHeader(LineFraming.decode($0)) }
    }

    @Test func anAttributeBothSidesChangedGoesToTheLaterHeaderAndTheLoserIsRecordedInTheHeader() throws {
        let base = try Self.snapshot([(1, ["name": .string("Oslo"), "price": .double(1)]), (2, ["name": .string("Rome")])])
        let ours = try Self.snapshot([(1, ["name": .string("Oslo"), "price": .double(5)]), (2, ["name": .string("Rome")])], sequence: 6)
        let theirs = try Self.snapshot([(1, ["name": .string("Oslo"), "price": .double(7)]), (2, ["name": .string("Roma")])], sequence: 5)
        let merged = try SnapshotMerge.merge(base: base, ours: ours, theirs: theirs)
        let lost = MergeConflict(entity: "Trip", id: 1, member: "price", kept: .double(5), lost: .double(7), lostTransaction: "")
        #expect(
            merged
                == (try Self.snapshot(
                    [(1, ["name": .string("Oslo"), "price": .double(5)]), (2, ["name": .string("Roma")])],
                    sequence: 6, conflicts: [lost])))
        #expect(try SnapshotMerge.merge(base: base, ours: theirs, theirs: ours) == merged, "the same bytes either way round")
        // On equal sequences the value whose canonical JSON sorts last wins, whichever side is ours.
        let equal = try Self.snapshot([(1, ["name": .string("Oslo"), "price": .double(7)]), (2, ["name": .string("Rome")])], sequence: 6)
        let tie = try SnapshotMerge.merge(base: base, ours: ours, theirs: equal)
        #expect(tie == (try SnapshotMerge.merge(base: base, ours: equal, theirs: ours)))
        let header = try Self.header(of: tie)
        #expect(header.conflicts == [MergeConflict(entity: "Trip", id: 1, member: "price", kept: .double(7), lost: .double(5), lostTransaction: "")])
    }

    @Test func aRecordOneSideDeletedAndTheOtherChangedStaysDeletedWithTheChangesRecorded() throws {
        let base = try Self.snapshot([(1, ["name": .string("Oslo"), "price": .double(1)]), (2, ["name": .string("Rome")])])
        let ours = try Self.snapshot([(2, ["name": .string("Rome")])], sequence: 4)
        let theirs = try Self.snapshot([(1, ["name": .string("Oslo"), "price": .double(9)]), (2, ["name": .string("Rome")])], sequence: 5)
        let merged = try SnapshotMerge.merge(base: base, ours: ours, theirs: theirs)
        let lost = MergeConflict(entity: "Trip", id: 1, member: "price", kept: nil, lost: .double(9), lostTransaction: "")
        #expect(merged == (try Self.snapshot([(2, ["name": .string("Rome")])], sequence: 5, conflicts: [lost])))
        #expect(try SnapshotMerge.merge(base: base, ours: theirs, theirs: ours) == merged)
    }

    @Test func aToManyRelationshipBothSidesChangedMergesAsASetWithTheSchema() throws {
        let schema = try #require(
            MergeSchema(
                .object([
                    "entities": .object([
                        "Trip": .object([
                            "properties": .object([
                                "stops": .object(["kind": .string("relationship"), "toMany": .bool(true)])
                            ])
                        ])
                    ])
                ])))
        func trip(_ stops: [Int64], price: Double = 1) -> [String: JSONValue] { ["stops": .array(stops.map { .int($0) }), "price": .double(price)] }
        let base = try Self.snapshot([(1, trip([10, 11, 12]))])
        let ours = try Self.snapshot([(1, trip([10, 12, 20]))], sequence: 6)
        let theirs = try Self.snapshot([(1, trip([11, 10, 12, 30], price: 2))], sequence: 5)
        let merged = try SnapshotMerge.merge(base: base, ours: ours, theirs: theirs, schema: schema)
        // 11 removed by ours, 20 and 30 added; the price only theirs changed.
        #expect(merged == (try Self.snapshot([(1, trip([10, 12, 20, 30], price: 2))], sequence: 6)))
        #expect(try SnapshotMerge.merge(base: base, ours: theirs, theirs: ours, schema: schema) == merged)
        #expect(try Self.header(of: merged).conflicts.isEmpty, "nothing of either list is lost")
        // Without the schema the list is a value like any other: one side's wins and the other's is listed.
        #expect(try Self.header(of: SnapshotMerge.merge(base: base, ours: ours, theirs: theirs)).conflicts.map(\.member) == ["stops"])
    }

    @Test func headerConflictsMergeThreeWaysSoOneASideClearedStaysGone() throws {
        func conflict(_ id: Int64) -> MergeConflict {
            MergeConflict(entity: "Trip", id: id, member: "price", kept: .double(1), lost: .double(2), lostTransaction: "T\(id)")
        }
        let records: [(Int64, [String: JSONValue])] = [(1, ["name": .string("Oslo")])]
        let base = try Self.snapshot(records, conflicts: [conflict(1), conflict(2)])
        let ours = try Self.snapshot(records, sequence: 5, conflicts: [conflict(1), conflict(2), conflict(3)])
        let theirs = try Self.snapshot(records + [(4, ["name": .string("Lima")])], sequence: 6, conflicts: [conflict(2)])
        let merged = try SnapshotMerge.merge(base: base, ours: ours, theirs: theirs)
        let header = try Self.header(of: merged)
        #expect(header.conflicts == [conflict(2), conflict(3)])
    }

    @Test func snapshotLinesOutOfOrderMiscountedOrConflictedAreRefusedNamingTheLine() throws {
        let good = try Self.snapshot([(1, [:]), (2, [:])])
        var lines: [[UInt8]] = good.split(separator: 0x0A).map { Array($0) }
        let swapped: [UInt8] = [lines[0], lines[2], lines[1]].flatMap { $0 + [0x0A] }
        lines[0] = Array(try SnapshotFile.header(entity: "Trip", sequence: 3, count: 5).dropLast())
        let miscounted: [UInt8] = lines.flatMap { $0 + [0x0A] }
        let cases: [(theirs: [UInt8], line: Int, says: String)] = [
            (swapped, 3, "out of order"), (miscounted, 1, "counts 5"), (good + Array("=======\n".utf8), 4, "conflict marker"),
        ]
        for (theirs, line, says) in cases {
            let refusal = #expect(throws: JournalThreeWayMerge.Refusal.self) { try SnapshotMerge.merge(base: good, ours: good, theirs: theirs) }
            #expect(refusal?.file == "theirs" && refusal?.line == line && refusal?.message.contains(says) == true, "\(String(describing: refusal))")
        }
    }

    @Test func aRecordTheBaseLacksThatBothSidesHoldDifferentlyCombinesAgainstNothing() throws {
        // The base's journal inserted it; both sides folded it, and one changed it again.
        let base = try Self.snapshot([])
        let ours = try Self.snapshot([(1, ["name": .string("Oslo (a)"), "price": .double(1)])], sequence: 5)
        let theirs = try Self.snapshot([(1, ["name": .string("Oslo"), "price": .double(1), "notes": .string("b")])], sequence: 4)
        let merged = try SnapshotMerge.merge(base: base, ours: ours, theirs: theirs)
        let lost = MergeConflict(entity: "Trip", id: 1, member: "name", kept: .string("Oslo (a)"), lost: .string("Oslo"), lostTransaction: "")
        #expect(
            merged
                == (try Self.snapshot(
                    [(1, ["name": .string("Oslo (a)"), "price": .double(1), "notes": .string("b")])],
                    sequence: 5, conflicts: [lost])),
            "equal values stay, a member one side has is taken, the later side wins a difference and it is recorded")
        #expect(try SnapshotMerge.merge(base: base, ours: theirs, theirs: ours) == merged, "the same bytes either way round")
    }

    @Test func historiesKeepBothSidesTransactionsOnceRenumberedByTime() throws {
        func transaction(_ sequence: UInt64, _ id: String, at second: Double) -> JournalTransaction {
            JournalTransaction(
                sequence: sequence, transactionID: id, timestamp: Date(timeIntervalSince1970: second), author: id,
                inserted: [], updated: [StoredRecord(entity: "Trip", id: 1, values: ["n": .string(id)])], deleted: [], nextID: 2)
        }
        func file(_ transactions: [JournalTransaction]) throws -> [UInt8] { try transactions.flatMap { try $0.encodedLine() } }
        let base = [transaction(1, "t1", at: 1), transaction(2, "t2", at: 2)]
        let shared = transaction(3, "t3", at: 3)
        let ours = [base[1], shared, transaction(4, "a", at: 5)]
        let theirs = base + [shared, transaction(4, "b", at: 4)]
        let merged = try HistoryMerge.merge(base: file(base), ours: file(ours), theirs: file(theirs))
        let lines = try JournalThreeWayMerge.read(merged, name: "merged").map(\.transaction)
        #expect(lines.map(\.transactionID) == ["t2", "t3", "b", "a"], "the base's lines one side dropped go; added ones once, by time")
        // Both sides' compactions counted t3: the history ends at 4 + 4 - 2, the base's line moved up by one.
        #expect(lines.map(\.sequence) == [3, 4, 5, 6])
        #expect(lines.map(\.foldedBy) == [nil, nil, "b", "a"], "a line both sides added is no side's")
        #expect(lines.last?.author == "a" && lines.last?.updated.first?.values["n"] == .string("a"), "renumbered lines keep their changes")

        var damaged = try file(theirs)
        damaged[damaged.count - 5] ^= 0x01
        let refusal = #expect(throws: JournalThreeWayMerge.Refusal.self) {
            try HistoryMerge.merge(base: file(base), ours: file(ours), theirs: damaged)
        }
        #expect(refusal?.file == "theirs" && refusal?.line == 4 && refusal?.message.contains("not a Folio history line") == true)
    }
}
