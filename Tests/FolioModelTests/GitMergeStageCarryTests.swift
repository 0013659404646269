import Foundation
@_spi(FolioEngine) import FolioStorage
import FolioTestSupport
import Testing
@testable import Folio

/// A V1 clone's inserts that only the V1 → V2 custom stage can carry (new labels, which V2 keeps as
/// tags), merged by real `git` into a clone that migrated: the merge keeps them, and the next open with
/// the plan runs the stage over them, once.
@MainActor
@Suite(
    "git merge across a migration: the next open runs the custom stage", .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/git")))
struct GitMergeStageCarryTests {
    typealias Across = GitMergeAcrossMigrationTests

    /// The merged store of a clone that migrated (its stage copied Home) and one that saved with V1 (a new
    /// label Work, among other changes), merged both ways; returns the scratch directory, clone a and the
    /// merged store in it.
    static func mergedStore(_ name: String) throws -> (scratch: URL, a: URL, store: URL) {
        let (scratch, a, b) = try Across.clones(name)
        _ = try Across.container(a, MergeNotesV2.self)
        try Across.saveWithV1(in: b)
        let (merged, _) = try Across.mergeBothWays(a: a, b: b)
        return (scratch, a, merged)
    }

    static func journal(_ store: URL) throws -> String {
        try String(contentsOf: store.appendingPathComponent("journal.jsonl"), encoding: .utf8)
    }

    static func tags(_ container: ModelContainer) throws -> [String] {
        try ModelContext(container).fetch(FetchDescriptor<MergeNotesV2.Tag>()).map(\.name).sorted()
    }

    /// A V2 container without a migration plan.
    static func containerWithoutPlan(_ clone: URL) throws -> ModelContainer {
        try ModelContainer(
            for: Schema(versionedSchema: MergeNotesV2.self), configurations: ModelConfiguration(url: clone.appendingPathComponent(Across.store)))
    }

    @Test func theNewLabelsOfTheV1CloneBecomeTagsOnceWhenTheStoreIsOpenedWithThePlan() throws {
        let (scratch, a, store) = try Self.mergedStore("git-stage-carry")
        defer { try? FileManager.default.removeItem(at: scratch) }
        #expect(try Self.journal(store).components(separatedBy: "\"awaitingStage\":").count == 2, "one line keeps b's new label")

        #expect(try Self.tags(Across.container(a, MergeNotesV2.self)) == ["Home", "Work"])
        let carried = try Self.journal(store)
        #expect(carried.components(separatedBy: "\"stageCarried\":").count == 2, "one transaction carried it")
        #expect(carried.contains("\"author\":\"folio merge\""))

        // Opening again runs nothing: the journal is as it was, and there is still one Work.
        #expect(try Self.tags(Across.container(a, MergeNotesV2.self)) == ["Home", "Work"])
        #expect(try Self.journal(store) == carried)

        let conflicts = try Across.folio("conflicts", store.path)
        #expect(conflicts.output.contains("\"Work\"") && conflicts.output.contains("custom stage carried the record"), "\(conflicts.output)")
        let verify = try Across.folio("verify", store.path)
        #expect(verify.status == 0 && !verify.output.contains("await"), "\(verify.output)")
    }

    @Test func openingWithoutThePlanLeavesTheRecordsAwaitingAndSaysSo() throws {
        let (scratch, a, store) = try Self.mergedStore("git-stage-carry-no-plan")
        defer { try? FileManager.default.removeItem(at: scratch) }
        #expect(try Self.tags(Self.containerWithoutPlan(a)) == ["Home"], "no plan, no stage: Work awaits")
        #expect(!(try Self.journal(store)).contains("\"stageCarried\""))

        let verify = try Across.folio("verify", store.path)
        #expect(verify.status == 0, "awaiting records are a warning, not an error: \(verify.output)")
        #expect(verify.output.contains("1 record a git merge kept for a schema migration's custom stage await"), "\(verify.output)")
        let conflicts = try Across.folio("conflicts", store.path)
        #expect(conflicts.output.contains("awaits the migration's custom stage"), "\(conflicts.output)")
        let compact = try Across.folio("compact", store.path)
        #expect(compact.status != 0 && compact.output.contains("cannot compact"), "the lines that keep them stay: \(compact.output)")

        #expect(try Self.tags(Across.container(a, MergeNotesV2.self)) == ["Home", "Work"], "the plan, later, carries them")
    }

    /// The carrying transaction's append cut short (half its line written, the rest refused: the process
    /// dies there), or its line written and its fsync failing.
    @Test(arguments: [
        (FileOperation.write, FaultInjectingFileSystem.Fault.shortWrite), (FileOperation.fsync, FaultInjectingFileSystem.Fault.error(EIO)),
    ])
    func aCarryInterruptedWhileItsLineIsWrittenNeverRunsTheStageTwiceOverTheSameRecords(
        operation: FileOperation, fault: FaultInjectingFileSystem.Fault
    ) throws {
        let (scratch, a, store) = try Self.mergedStore("git-stage-carry-\(operation.rawValue)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let before = try Self.journal(store)
        let faults = FaultInjectingFileSystem()
        faults.arm([operation], at: 1, fault: fault, pathSuffix: "journal.jsonl")
        var configuration = ModelConfiguration(url: a.appendingPathComponent(Across.store))
        configuration.fileSystem = faults
        _ = try? ModelContainer(for: Schema(versionedSchema: MergeNotesV2.self), migrationPlan: MergeNotesPlan.self, configurations: configuration)
        #expect(faults.didFire)
        #expect(try Self.journal(store).hasPrefix(before), "the merged lines are intact")

        // Either the line is whole (the store takes it as committed) or it is not (nothing was): the next
        // open carries the records exactly once in all.
        #expect(try Self.tags(Across.container(a, MergeNotesV2.self)) == ["Home", "Work"])
        #expect(try Self.journal(store).components(separatedBy: "\"stageCarried\":").count == 2)
        #expect(try Self.tags(Across.container(a, MergeNotesV2.self)) == ["Home", "Work"])
    }
}
