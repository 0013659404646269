import Foundation
import Testing
@testable import Folio
@_spi(FolioEngine) import FolioStorage

/// A container over a store as of a git revision, read from git's objects.
@Suite("A container as of a git revision", .enabled(if: GitRevisionFixture.hasGit, "needs /usr/bin/git"))
struct GitRevisionContainerTests {
    @Test func aFetchAsOfARevisionEqualsTheSameFetchOnACheckoutOfIt() throws {
        let fixture = try GitRevisionFixture()
        defer { fixture.cleanUp() }
        try fixture.commitThreeVersions()
        try fixture.git("clone", "-q", fixture.work.path, "clone", in: fixture.scratch)
        let clone = fixture.scratch.appendingPathComponent("clone")

        var seen: [[TripValues]] = []
        for revision in ["HEAD~2", "HEAD~1", "HEAD", "v1"] {
            let atRevision = try ModelContainer(
                for: Trip.self, configurations: ModelConfiguration(url: fixture.store, gitRevision: revision))
            let read = try GitRevisionFixture.trips(in: atRevision)

            let commit = try fixture.git("rev-parse", "\(revision)^{commit}").trimmingCharacters(in: .whitespacesAndNewlines)
            try fixture.git("checkout", "-q", "--detach", commit, in: clone)
            let checkedOut = try ModelContainer(
                for: Trip.self, configurations: ModelConfiguration(url: clone.appendingPathComponent("Trips.folio"), allowsSave: false))
            let expected = try GitRevisionFixture.trips(in: checkedOut)
            #expect(read == expected, "as of \(revision)")
            seen.append(read)
        }
        #expect(seen[0].map(\.name) == ["Ancona", "Bari"])
        #expect(seen[1].map(\.name) == ["Ancona", "Bari", "Como"] && seen[1][1].price == 42)
        #expect(seen[2].map(\.name) == ["Bari", "Como", "Dolo"])
        #expect(seen[3] == seen[0], "the tag v1 is T1")
    }

    @Test func aBareCloneIsReadAsOfATag() throws {
        let fixture = try GitRevisionFixture()
        defer { fixture.cleanUp() }
        try fixture.commitThreeVersions()
        try fixture.git("clone", "-q", "--bare", fixture.work.path, "bare.git", in: fixture.scratch)
        let bare = fixture.scratch.appendingPathComponent("bare.git")

        let configuration = ModelConfiguration(gitRepository: bare, path: "Trips.folio", gitRevision: "v1")
        #expect(configuration.name == "Trips" && !configuration.allowsSave && configuration.gitRevision == "v1")
        let container = try ModelContainer(for: Trip.self, configurations: configuration)
        #expect(try GitRevisionFixture.trips(in: container).map(\.name) == ["Ancona", "Bari"])
        let newest = try ModelContainer(
            for: Trip.self, configurations: ModelConfiguration(gitRepository: bare, path: "./Trips.folio/", gitRevision: "main"))
        #expect(try GitRevisionFixture.trips(in: newest).map(\.name) == ["Bari", "Como", "Dolo"])
    }

    @Test func readingARevisionLeavesTheWorkTreeTheIndexAndTheStoreAsTheyWere() throws {
        let fixture = try GitRevisionFixture()
        defer { fixture.cleanUp() }
        try fixture.commitThreeVersions()
        #expect(try fixture.git("status", "--porcelain").isEmpty)
        let before = try GitRevisionFixture.files(under: fixture.scratch)

        for revision in ["HEAD~2", "HEAD~1", "HEAD"] {
            let container = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: fixture.store, gitRevision: revision))
            #expect(try !GitRevisionFixture.trips(in: container).isEmpty)
            let context = ModelContext(container)
            context.insert(GitRevisionFixture.trip("Fano"))
            #expect(throws: (any Error).self, "a container as of a revision does not save") { try context.save() }
        }

        #expect(try GitRevisionFixture.files(under: fixture.scratch) == before, "no file of the repository, index or store changed")
        #expect(try fixture.git("status", "--porcelain").isEmpty)
    }

    @Test func aRevisionIsReadFromGitsObjectsNotFromTheWorkTree() throws {
        let fixture = try GitRevisionFixture()
        defer { fixture.cleanUp() }
        try fixture.commitThreeVersions()
        // An uncommitted save, and the store's folder moved away: HEAD's store is still there in git.
        let live = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: fixture.store))
        let liveContext = ModelContext(live)
        liveContext.insert(GitRevisionFixture.trip("Enna"))
        try liveContext.save()
        let atHead = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: fixture.store, gitRevision: "HEAD"))
        #expect(try GitRevisionFixture.trips(in: atHead).map(\.name) == ["Bari", "Como", "Dolo"])

        try FileManager.default.moveItem(at: fixture.store, to: fixture.scratch.appendingPathComponent("moved.folio"))
        let withoutFolder = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: fixture.store, gitRevision: "HEAD~2"))
        #expect(try GitRevisionFixture.trips(in: withoutFolder).map(\.name) == ["Ancona", "Bari"])
        #expect(!FileManager.default.fileExists(atPath: fixture.store.path), "nothing made the store's folder again")
    }

    @Test func aStoreWrittenWithOtherModelsIsNotMigratedButRefused() throws {
        let fixture = try GitRevisionFixture()
        defer { fixture.cleanUp() }
        let old = try ModelContainer(for: JournalSchemaV1.Entry.self, configurations: ModelConfiguration(url: fixture.store))
        let context = ModelContext(old)
        context.insert(JournalSchemaV1.Entry(title: "Monday", body: "Rain", mood: "calm"))
        try context.save()
        try fixture.commitAll("V1")
        let before = try GitRevisionFixture.files(under: fixture.scratch)

        do {
            _ = try ModelContainer(
                for: JournalSchemaV2.Entry.self,
                configurations: ModelConfiguration(url: fixture.store, gitRevision: "HEAD"))
            Issue.record("a store of other models opened as of a revision")
        } catch let error as FolioError {
            #expect(error.code == .schemaMismatch)
            #expect(error.message.contains("HEAD"))
        }
        #expect(try GitRevisionFixture.files(under: fixture.scratch) == before)
        let same = try ModelContainer(
            for: JournalSchemaV1.Entry.self,
            configurations: ModelConfiguration(url: fixture.store, gitRevision: "HEAD"))
        #expect(try ModelContext(same).fetch(FetchDescriptor<JournalSchemaV1.Entry>()).map(\.title) == ["Monday"])
    }

    @Test func configurationsOfTwoRevisionsAreTwoConfigurations() {
        let url = URL(fileURLWithPath: "/tmp/Trips.folio")
        let first = ModelConfiguration(url: url, gitRevision: "v1")
        #expect(first == ModelConfiguration(url: url, gitRevision: "v1"))
        #expect(first != ModelConfiguration(url: url, gitRevision: "v2"))
        #expect(first != ModelConfiguration(url: url, allowsSave: false))
        #expect(ModelConfiguration(url: url).gitRevision == nil)
    }
}
