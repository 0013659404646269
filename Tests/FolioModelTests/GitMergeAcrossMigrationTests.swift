import Foundation
import Testing
@testable import Folio

/// Two clones of a store, one migrated to the app's next version and one that went on saving with the
/// old one, merged by real `git` through `folio merge-driver`.
@MainActor
@Suite("git merge across a schema migration", .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/git")))
struct GitMergeAcrossMigrationTests {
    typealias Git = GitLiveStoreTests
    static let store = "Notes.folio"

    static func container(_ clone: URL, _ version: any VersionedSchema.Type) throws -> ModelContainer {
        try ModelContainer(
            for: Schema(versionedSchema: version), migrationPlan: MergeNotesPlan.self,
            configurations: ModelConfiguration(url: clone.appendingPathComponent(store)))
    }

    static func folio(_ arguments: String...) throws -> (status: Int32, output: String) {
        try Git.run(try #require(builtExecutableURL("folio"), "folio is built next to the tests"), arguments)
    }

    /// The base, pushed from clone a: notes One and Two, the label Home.
    static func clones(_ name: String) throws -> (scratch: URL, a: URL, b: URL) {
        let (scratch, origin, a) = try Git.remote(name, store: store)
        do {
            let context = ModelContext(try container(a, MergeNotesV1.self))
            context.insert(MergeNotesV1.Note(title: "One", body: "first", mood: "calm"))
            context.insert(MergeNotesV1.Note(title: "Two", body: "second", mood: "glum"))
            context.insert(MergeNotesV1.Label(name: "Home"))
            try context.save()
        }
        try commitAndPush(a, as: "main")
        return (scratch, a, try Git.clone(origin, "b", in: scratch))
    }

    static func commitAndPush(_ clone: URL, as branch: String) throws {
        try Git.git("add", "-A", in: clone)
        try Git.git("commit", "-q", "-m", branch, in: clone)
        try Git.git("push", "-q", "origin", "main:\(branch)", in: clone)
    }

    /// Clone b's V1 saves: an edit of One (title and mood), a new note and label, Two deleted.
    static func saveWithV1(in b: URL) throws {
        let context = ModelContext(try container(b, MergeNotesV1.self))
        let notes = try context.fetch(FetchDescriptor<MergeNotesV1.Note>())
        let one = try #require(notes.first { $0.title == "One" })
        one.title = "One, edited on b"
        one.mood = "odd"
        try context.delete(#require(notes.first { $0.title == "Two" }))
        context.insert(MergeNotesV1.Note(title: "Three", body: "third from b", mood: "keen"))
        context.insert(MergeNotesV1.Label(name: "Work"))
        try context.save()
    }

    /// Pushes each clone as its own branch, then merges b's into a and a's into b; returns the paths of
    /// the two merged stores, whose files must be the same bytes.
    static func mergeBothWays(a: URL, b: URL) throws -> (a: URL, b: URL) {
        try commitAndPush(a, as: "a")
        try commitAndPush(b, as: "b")
        try Git.git("fetch", "-q", "origin", in: a)
        try Git.git("merge", "-q", "--no-edit", "origin/b", in: a)
        try Git.git("fetch", "-q", "origin", in: b)
        try Git.git("merge", "-q", "--no-edit", "origin/a", in: b)
        let (storeA, storeB) = (a.appendingPathComponent(store), b.appendingPathComponent(store))
        for file in ["journal.jsonl", "manifest.json", "history.jsonl"] {
            let ours = try? Data(contentsOf: storeA.appendingPathComponent(file))
            #expect(ours == (try? Data(contentsOf: storeB.appendingPathComponent(file))), "\(file) is the same either way round")
        }
        return (storeA, storeB)
    }

    @Test func aCloneThatWentOnWithV1MergesIntoTheMigratedOneWithItsChangesInV2Shape() throws {
        let (scratch, a, b) = try Self.clones("git-migration-merge")
        defer { try? FileManager.default.removeItem(at: scratch) }
        // Clone a migrates (the stage copies Home into a tag) and then edits One's body.
        do {
            let context = ModelContext(try Self.container(a, MergeNotesV2.self))
            let one = try #require(try context.fetch(FetchDescriptor<MergeNotesV2.Note>()).first { $0.heading == "One" })
            one.body = "first, edited on a"
            try context.save()
        }
        try Self.saveWithV1(in: b)
        let (merged, _) = try Self.mergeBothWays(a: a, b: b)

        let verify = try Self.folio("verify", merged.path)
        #expect(verify.status == 0, "\(verify.output)")
        let context = ModelContext(try Self.container(a, MergeNotesV2.self))
        let notes = try context.fetch(FetchDescriptor<MergeNotesV2.Note>(sortBy: [SortDescriptor(\.heading)]))
        #expect(notes.map(\.heading) == ["One, edited on b", "Three"], "b's rename and insert in V2's names; its delete of Two")
        #expect(notes.map(\.body) == ["first, edited on a", "third from b"])
        #expect(notes.map(\.pinned) == [false, false], "the added property reads its default")
        #expect(
            try context.fetch(FetchDescriptor<MergeNotesV2.Tag>()).map(\.name).sorted() == ["Home", "Work"],
            "the stage's copy of the base's label, and of b's, which the open with the plan ran the stage over")

        let conflicts = try Self.folio("conflicts", merged.path)
        #expect(conflicts.output.contains("mood") && conflicts.output.contains("\"odd\""), "b's value of the removed mood: \(conflicts.output)")
        #expect(conflicts.output.contains("\"keen\""), "\(conflicts.output)")
        #expect(
            conflicts.output.contains("Label") && conflicts.output.contains("\"Work\""),
            "b's label, which only the stage could carry: \(conflicts.output)")
    }

    @Test func clonesThatBothRanTheMigrationMergeWithOneMigrationAndOneCopyOfEachTag() throws {
        let (scratch, a, b) = try Self.clones("git-migration-merge-both")
        defer { try? FileManager.default.removeItem(at: scratch) }
        try Self.saveWithV1(in: b)
        for (clone, body) in [(a, "first, edited on a"), (b, "second body from b")] {
            let context = ModelContext(try Self.container(clone, MergeNotesV2.self))
            let notes = try context.fetch(FetchDescriptor<MergeNotesV2.Note>())
            try #require(notes.first { $0.heading.hasPrefix("One") }).body = body
            try context.save()
        }
        let (merged, _) = try Self.mergeBothWays(a: a, b: b)

        let verify = try Self.folio("verify", merged.path)
        #expect(verify.status == 0, "\(verify.output)")
        let journal = try String(contentsOf: merged.appendingPathComponent("journal.jsonl"), encoding: .utf8)
        #expect(journal.components(separatedBy: "\"migrate\":").count == 2, "one migration line")
        let context = ModelContext(try Self.container(a, MergeNotesV2.self))
        let tags = try context.fetch(FetchDescriptor<MergeNotesV2.Tag>()).map(\.name).sorted()
        #expect(tags == ["Home", "Work"], "each clone's stage copied Home; b's also its own Work")
        let notes = try context.fetch(FetchDescriptor<MergeNotesV2.Note>(sortBy: [SortDescriptor(\.heading)]))
        #expect(notes.map(\.heading) == ["One, edited on b", "Three"])
        let conflicts = try Self.folio("conflicts", merged.path)
        #expect(!conflicts.output.contains("Label"), "b ran the stage over its own labels: \(conflicts.output)")
    }

    @Test func aV1CloneThatCompactedMergesIntoTheMigratedOne() throws {
        let (scratch, a, b) = try Self.clones("git-migration-merge-compacted")
        defer { try? FileManager.default.removeItem(at: scratch) }
        _ = try Self.container(a, MergeNotesV2.self)
        try Self.saveWithV1(in: b)
        try Self.container(b, MergeNotesV1.self).compact()
        let (merged, _) = try Self.mergeBothWays(a: a, b: b)

        let verify = try Self.folio("verify", merged.path)
        #expect(verify.status == 0, "\(verify.output)")
        let context = ModelContext(try Self.container(a, MergeNotesV2.self))
        let notes = try context.fetch(FetchDescriptor<MergeNotesV2.Note>(sortBy: [SortDescriptor(\.heading)]))
        #expect(notes.map(\.heading) == ["One, edited on b", "Three"], "the compacted V1 records, carried by the migration line")
    }

    @Test func aCloneThatCompactedAfterMigratingHasTheV1ClonesChangesCarriedThroughTheFoldedMigration() throws {
        let (scratch, a, b) = try Self.clones("git-migration-merge-folded")
        defer { try? FileManager.default.removeItem(at: scratch) }
        do {
            let container = try Self.container(a, MergeNotesV2.self)
            let context = ModelContext(container)
            let one = try #require(try context.fetch(FetchDescriptor<MergeNotesV2.Note>()).first { $0.heading == "One" })
            one.body = "first, edited on a"
            try context.save()
            try container.compact()
        }
        let journal = try String(contentsOf: a.appendingPathComponent(Self.store).appendingPathComponent("journal.jsonl"), encoding: .utf8)
        #expect(journal.contains("\"foldedMigrations\":"), "the mark names the migration it folded: \(journal)")
        try Self.saveWithV1(in: b)
        let (merged, _) = try Self.mergeBothWays(a: a, b: b)

        let verify = try Self.folio("verify", merged.path)
        #expect(verify.status == 0, "\(verify.output)")
        let context = ModelContext(try Self.container(a, MergeNotesV2.self))
        let notes = try context.fetch(FetchDescriptor<MergeNotesV2.Note>(sortBy: [SortDescriptor(\.heading)]))
        #expect(notes.map(\.heading) == ["One, edited on b", "Three"])
        #expect(notes.map(\.body) == ["first, edited on a", "third from b"])
        #expect(try context.fetch(FetchDescriptor<MergeNotesV2.Tag>()).map(\.name).sorted() == ["Home", "Work"], "b's label, by the stage")
        let conflicts = try Self.folio("conflicts", merged.path)
        #expect(conflicts.output.contains("\"odd\"") && conflicts.output.contains("\"Work\""), "\(conflicts.output)")
    }

    @Test func twoDifferentMigrationsAreRefusedAndGitReportsAConflict() throws {
        let (scratch, a, b) = try Self.clones("git-migration-merge-refused")
        defer { try? FileManager.default.removeItem(at: scratch) }
        _ = try Self.container(a, MergeNotesV2.self)
        // b's app dropped the labels in another V2, without a plan.
        _ = try ModelContainer(for: MergeNotesV1.Note.self, configurations: ModelConfiguration(url: b.appendingPathComponent(Self.store)))
        try Self.commitAndPush(a, as: "a")
        try Self.commitAndPush(b, as: "b")
        try Git.git("fetch", "-q", "origin", in: a)
        let merge = try Git.run(
            URL(fileURLWithPath: "/usr/bin/git"), ["merge", "--no-edit", "origin/b"], in: a,
            environment: [
                "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": "/dev/null", "HOME": a.path, "GIT_MERGE_AUTOEDIT": "no",
                "GIT_AUTHOR_NAME": "Test", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "Test",
                "GIT_COMMITTER_EMAIL": "t@example.com",
            ])
        #expect(merge.status != 0)
        #expect(merge.output.contains("migrated the store's schema, differently"), "\(merge.output)")
    }
}
