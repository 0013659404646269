import Foundation
import Testing
@testable import Folio
@_spi(FolioEngine) import FolioStorage

/// What a container as of a git revision throws when the repository, the revision, the store or git
/// itself is missing, or the store's files at that revision are damaged.
@Suite("A container as of a git revision refuses", .enabled(if: GitRevisionFixture.hasGit, "needs /usr/bin/git"))
struct GitRevisionErrorTests {
    /// The storage error under the `FolioError` opening `configuration` throws.
    static func storageError(opening configuration: ModelConfiguration) throws -> StorageError {
        do {
            // Reading the records too: a live store may read them only when first needed.
            try ModelContainer(for: Trip.self, configurations: configuration).loadRecords()
        } catch let error as FolioError {
            #expect(error.code == .storage, "\(error)")
            return try #require(error.underlying as? StorageError, "\(error)")
        }
        throw StorageError(.gitFailed, "the container opened")
    }

    @Test func aFolderOutsideAnyRepository() throws {
        let fixture = try GitRevisionFixture()
        defer { fixture.cleanUp() }
        let plain = fixture.scratch.appendingPathComponent("plain", isDirectory: true)
        try FileManager.default.createDirectory(at: plain.appendingPathComponent("Trips.folio"), withIntermediateDirectories: true)

        let inPlain = try Self.storageError(opening: ModelConfiguration(url: plain.appendingPathComponent("Trips.folio"), gitRevision: "HEAD"))
        #expect(inPlain.code == .notAGitRepository)
        #expect(inPlain.message.contains(plain.path))
        // Named as a repository, a folder inside a work tree is not taken for the work tree.
        let inside = fixture.work.appendingPathComponent("sub", isDirectory: true)
        try FileManager.default.createDirectory(at: inside, withIntermediateDirectories: true)
        for repository in [plain, inside, fixture.scratch.appendingPathComponent("missing")] {
            let error = try Self.storageError(opening: ModelConfiguration(gitRepository: repository, path: "Trips.folio", gitRevision: "HEAD"))
            #expect(error.code == .notAGitRepository, "\(repository.path): \(error)")
        }
    }

    @Test func anUnknownRevisionEvenOneThatLooksLikeAShellCommandOrAnOption() throws {
        let fixture = try GitRevisionFixture()
        defer { fixture.cleanUp() }
        try fixture.commitThreeVersions()
        let victim = fixture.work.appendingPathComponent("x")
        try Data("keep".utf8).write(to: victim)
        let output = fixture.scratch.appendingPathComponent("output")
        let revisions = [
            "nope", ";rm -rf x", "$(touch \(output.path))", "`id`", "--output=\(output.path)", "-h", "", "HEAD\nmain",
            "HEAD:Trips.folio", "HEAD^{tree}", "HEAD~99",
        ]
        for revision in revisions {
            let error = try Self.storageError(opening: ModelConfiguration(url: fixture.store, gitRevision: revision))
            #expect(error.code == .unknownRevision, "\(revision): \(error)")
        }
        #expect(FileManager.default.fileExists(atPath: victim.path))
        #expect(!FileManager.default.fileExists(atPath: output.path))
        let named = try Self.storageError(opening: ModelConfiguration(url: fixture.store, gitRevision: "nope"))
        #expect(named.message.contains("\"nope\"") && named.message.contains(fixture.work.path))
    }

    @Test func aRevisionWithoutTheStore() throws {
        let fixture = try GitRevisionFixture()
        defer { fixture.cleanUp() }
        try Data("notes\n".utf8).write(to: fixture.work.appendingPathComponent("README"))
        try FileManager.default.createDirectory(at: fixture.work.appendingPathComponent("docs"), withIntermediateDirectories: true)
        try Data("not a store\n".utf8).write(to: fixture.work.appendingPathComponent("docs/index.md"))
        try fixture.commitAll("before the store")
        try fixture.commitThreeVersions()

        let before = try Self.storageError(opening: ModelConfiguration(url: fixture.store, gitRevision: "HEAD~3"))
        #expect(before.code == .noStoreAtRevision)
        #expect(before.message.contains("Trips.folio") && before.message.contains("HEAD~3"))
        let notAStore = try Self.storageError(opening: ModelConfiguration(url: fixture.work.appendingPathComponent("docs"), gitRevision: "HEAD"))
        #expect(notAStore.code == .noStoreAtRevision)
        let aFile = try Self.storageError(opening: ModelConfiguration(gitRepository: fixture.work, path: "README", gitRevision: "HEAD"))
        #expect(aFile.code == .noStoreAtRevision)
        let outside = try Self.storageError(
            opening: ModelConfiguration(gitRepository: fixture.work, path: "../work/Trips.folio", gitRevision: "HEAD"))
        #expect(outside.code == .noStoreAtRevision)
    }

    @Test func gitMissing() throws {
        let fixture = try GitRevisionFixture()
        defer { fixture.cleanUp() }
        try fixture.commitThreeVersions()
        var configuration = ModelConfiguration(url: fixture.store, gitRevision: "HEAD")
        configuration.gitSource?.gitExecutable = fixture.scratch.appendingPathComponent("no-git/git")
        #expect(try Self.storageError(opening: configuration).code == .gitNotFound)

        let empty = fixture.scratch.appendingPathComponent("empty-path", isDirectory: true)
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        for environment in [["PATH": empty.path], [:]] {
            #expect { try GitRunner(environment: environment) } throws: { ($0 as? StorageError)?.code == .gitNotFound }
        }
    }

    @Test func aDamagedJournalAtARevisionGivesTheErrorOfTheSameDamageOnDisk() throws {
        let fixture = try GitRevisionFixture()
        defer { fixture.cleanUp() }
        try fixture.commitThreeVersions()
        // T3's journal line with one byte of a name changed: its checksum no longer matches.
        let journal = fixture.store.appendingPathComponent("journal.jsonl")
        let text = try String(contentsOf: journal, encoding: .utf8)
        try #require(text.contains("Dolo"))
        try Data(text.replacingOccurrences(of: "Dolo", with: "Dolx").utf8).write(to: journal)
        try fixture.commitAll("damaged")

        let onDisk = try Self.storageError(opening: ModelConfiguration(url: fixture.store, allowsSave: false))
        let atRevision = try Self.storageError(opening: ModelConfiguration(url: fixture.store, gitRevision: "HEAD"))
        #expect(onDisk.code == .checksumMismatch)
        #expect(atRevision.code == onDisk.code && atRevision.line == onDisk.line && atRevision.offset == onDisk.offset)
        #expect(atRevision.file == "HEAD:Trips.folio/journal.jsonl")
        let undamaged = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: fixture.store, gitRevision: "HEAD~1"))
        #expect(try GitRevisionFixture.trips(in: undamaged).map(\.name) == ["Bari", "Como", "Dolo"])
    }

    @Test func aLinkOrAFolderInAStoreFilesPlaceAtARevision() throws {
        let fixture = try GitRevisionFixture()
        defer { fixture.cleanUp() }
        try fixture.commitThreeVersions()
        let journal = fixture.store.appendingPathComponent("journal.jsonl")
        try FileManager.default.removeItem(at: journal)
        try FileManager.default.createSymbolicLink(atPath: journal.path, withDestinationPath: "/etc/passwd")
        try fixture.commitAll("a link")
        let link = try Self.storageError(opening: ModelConfiguration(url: fixture.store, gitRevision: "HEAD"))
        #expect(link.code == .outsideStore && link.file == "HEAD:Trips.folio/journal.jsonl", "\(link)")

        try FileManager.default.removeItem(at: journal)
        try FileManager.default.createDirectory(at: journal, withIntermediateDirectories: true)
        try Data().write(to: journal.appendingPathComponent("inside"))
        try fixture.commitAll("a folder")
        let folder = try Self.storageError(opening: ModelConfiguration(url: fixture.store, gitRevision: "HEAD"))
        #expect(folder.code == .notRegularFile && folder.file == "HEAD:Trips.folio/journal.jsonl", "\(folder)")
    }
}
