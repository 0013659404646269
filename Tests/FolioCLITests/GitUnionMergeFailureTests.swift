import Foundation
import FolioStorage
import Testing

/// The failures that projects keeping JSON lines in git report of `merge=union`, each made by two real
/// clones: the union of the journals breaks the store, and `folio merge-driver` does not.
extension GitMergeDriverTests {
    enum UnionMergeFailure: String, CaseIterable, CustomTestStringConvertible {
        /// Both sides made the same change: a union keeps both lines, so the record is written twice.
        case duplicateRecords
        /// Each side changed another field of one record: a union of rewritten lines keeps one of them.
        case droppedFields
        /// One side deleted a record the other changed: a union replays the change after the delete.
        case resurrectedDeletes

        var testDescription: String { rawValue }
    }

    @Test(arguments: UnionMergeFailure.allCases)
    func theFailuresOfAUnionMergeDoNotHappen(_ failure: UnionMergeFailure) throws {
        let remote = try Remote("union-\(failure.rawValue)")
        defer { remote.scratch.remove() }
        let trips = try Self.seed(remote)
        let (oslo, rome, lima) = (trips[0], trips[1], trips[2])
        let a = try remote.clone("a"), b = try remote.clone("b")
        switch failure {
        case .duplicateRecords:
            for clone in [a, b] {
                try Self.write(clone) { t in try t.update(entity: "Trip", id: oslo, values: ["price": .double(90)]) }
            }
        case .droppedFields:
            try Self.write(a) { t in try t.update(entity: "Trip", id: rome, values: ["notes": .string("Vatican")]) }
            try Self.write(b) { t in try t.update(entity: "Trip", id: rome, values: ["price": .double(120)]) }
        case .resurrectedDeletes:
            try Self.write(a) { t in try t.delete(entity: "Trip", id: lima) }
            try Self.write(b) { t in try t.update(entity: "Trip", id: lima, values: ["price": .double(70)]) }
        }
        let journal = "Trips.folio/journal.jsonl"
        let merges = try Self.commitAndMergeBothWays(a, b)
        #expect(merges.a.status == 0 && merges.b.status == 0, "\(merges)")
        #expect(try Data(contentsOf: a.appendingPathComponent(journal)) == Data(contentsOf: b.appendingPathComponent(journal)))

        // What a union would have given: both sides' new lines, with one sequence number twice.
        let unionStore = remote.scratch.appending("union.folio")
        try FileManager.default.copyItem(at: a.appendingPathComponent("Trips.folio"), to: unionStore)
        let mergeBase = try Self.git("merge-base", "origin/a", "origin/b", in: a).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let base = try Self.git("show", "\(mergeBase):\(journal)", in: a).stdout
        let ours = try Self.git("show", "origin/a:\(journal)", in: a).stdout
        let theirs = try Self.git("show", "origin/b:\(journal)", in: a).stdout
        for (name, text) in [("O", base), ("A", ours), ("B", theirs)] {
            try Data(text.utf8).write(to: remote.scratch.appending(name))
        }
        let unionText = try Self.git(
            arguments: [
                "merge-file", "-p", "--union", remote.scratch.appending("A").path,
                remote.scratch.appending("O").path, remote.scratch.appending("B").path,
            ],
            in: a, check: false
        ).stdout
        try Data(unionText.utf8).write(to: unionStore.appendingPathComponent("journal.jsonl"))
        let unionVerify = try folio("verify", unionStore.path)
        #expect(unionVerify.status != 0 && unionVerify.stdout.contains("sequence"), "the union of the journals is not a store: \(unionVerify)")

        let records = try Self.records(a)
        let conflicts = try folio("conflicts", a.appendingPathComponent("Trips.folio").path, "--json").jsonLines()
        switch failure {
        case .duplicateRecords:
            #expect(records.count == 3)
            #expect(records[oslo]?.values["price"] == .double(90))
            #expect(conflicts.isEmpty, "the same value on both sides is no conflict: \(conflicts)")
            let lines = try String(decoding: Data(contentsOf: a.appendingPathComponent(journal)), as: UTF8.self).split(separator: "\n")
            #expect(lines.count == 3, "the base's line and each side's once")
        case .droppedFields:
            #expect(records[rome]?.values["notes"] == .string("Vatican"))
            #expect(records[rome]?.values["price"] == .double(120))
            #expect(conflicts.isEmpty, "\(conflicts)")
        case .resurrectedDeletes:
            #expect(records[lima] == nil, "the delete stands")
            #expect(conflicts.count == 1, "the dropped update is listed: \(conflicts)")
            // Merging b's branch again (it is already in) brings nothing back.
            try Self.git("merge", "--no-edit", "origin/b", in: a)
            #expect(try Self.records(a)[lima] == nil)
        }
    }
}
