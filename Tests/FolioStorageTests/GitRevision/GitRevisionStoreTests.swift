import Foundation
import Testing
@testable import FolioStorage

/// A scratch work tree with a store folder `data/Items.folio`, and the git the tests run.
struct GitScratch {
    static let gitPath = "/usr/bin/git"
    static var hasGit: Bool { FileManager.default.isExecutableFile(atPath: gitPath) }

    let root: URL
    var work: URL { root.appending("work") }
    var store: URL { work.appending("data/Items.folio") }

    init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("folio-git-store-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root.appending("work/data"), withIntermediateDirectories: true)
        try git("init", "-q", "-b", "main", ".")
        try writeBytes(Array("data/Items.folio/lock\ndata/Items.folio/cache/\n".utf8), to: work.appending(".gitignore"))
    }

    func cleanUp() { try? FileManager.default.removeItem(at: root) }

    @discardableResult
    func git(_ arguments: String..., in directory: URL? = nil) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.gitPath)
        process.arguments = arguments
        process.currentDirectoryURL = directory ?? work
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("GIT_") }
        environment.merge([
            "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": "/dev/null", "HOME": root.path,
            "GIT_AUTHOR_NAME": "T", "GIT_AUTHOR_EMAIL": "t@example.com",
            "GIT_COMMITTER_NAME": "T", "GIT_COMMITTER_EMAIL": "t@example.com",
        ]) { _, new in new }
        process.environment = environment
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "git \(arguments.joined(separator: " ")): \(output)")
        return output
    }

    func commitAll(_ message: String) throws {
        try git("add", "-A")
        try git("commit", "-q", "-m", message)
    }
}

@Suite("A store opened as of a git revision", .enabled(if: GitScratch.hasGit, "needs /usr/bin/git"))
struct GitRevisionStoreTests {
    @Test func aRevisionHasTheRecordsItHadThenAndTakesNoWrite() throws {
        let scratch = try GitScratch()
        defer { scratch.cleanUp() }
        let first = try makeStore(at: scratch.store, transactions: 6, compactAfter: 4)
        try scratch.commitAll("first")
        let live = try Store.open(at: scratch.store)
        try writeSampleTransactions(live, count: 5, seed: 7)
        try live.compact()
        let second = StoreContent(live)
        live.close()
        try scratch.commitAll("second")
        let before = try directoryContents(scratch.root)

        let atFirst = try Store.open(gitRevision: "HEAD~1", at: scratch.store)
        #expect(StoreContent(atFirst) == first)
        #expect(atFirst.configuration.readOnly)
        let revision = try #require(atFirst.gitRevision)
        #expect(revision.storePath == "data/Items.folio" && revision.revision == "HEAD~1" && revision.commit.count == 40)
        #expect(revision.gitPath("journal.jsonl") == "HEAD~1:data/Items.folio/journal.jsonl")
        #expect { try atFirst.write(author: nil) { try $0.delete(entity: "Item", id: 1) } } throws: { ($0 as? StorageError)?.code == .readOnly }
        #expect { try atFirst.compact() } throws: { ($0 as? StorageError)?.code == .readOnly }

        let atSecond = try Store.open(gitRevision: "main", storePath: "data/Items.folio", repository: scratch.work)
        #expect(StoreContent(atSecond) == second)
        atFirst.close()
        atSecond.close()
        #expect(try directoryContents(scratch.root) == before)
        #expect(try scratch.git("status", "--porcelain").isEmpty)
    }

    @Test func aBlobIsReadFromGitWhenFirstAskedFor() throws {
        let scratch = try GitScratch()
        defer { scratch.cleanUp() }
        let live = try Store.open(at: scratch.store)
        let picture = Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        var hash = ""
        try live.write(author: nil) { transaction in
            hash = try transaction.putBlob(picture)
            let id = transaction.allocateID()
            try transaction.insert(entity: "Item", id: id, values: ["picture": BlobStore.reference(hash)])
        }
        live.close()
        try scratch.commitAll("a picture")

        let store = try Store.open(gitRevision: "HEAD", at: scratch.store)
        #expect(try store.blob(hash) == picture)
        #expect { try store.blob(String(repeating: "0", count: 64)) } throws: { ($0 as? StorageError)?.code == .blobNotFound }
    }

    @Test func aSubmoduleInTheManifestsPlaceIsNoRegularFile() throws {
        let scratch = try GitScratch()
        defer { scratch.cleanUp() }
        _ = try makeStore(at: scratch.store, transactions: 3)
        try scratch.commitAll("store")
        let commit = try scratch.git("rev-parse", "HEAD").trimmingCharacters(in: .whitespacesAndNewlines)
        try scratch.git("rm", "-q", "--cached", "data/Items.folio/manifest.json")
        try scratch.git("update-index", "--add", "--cacheinfo", "160000,\(commit),data/Items.folio/manifest.json")
        try scratch.git("commit", "-q", "-m", "a submodule")

        #expect { try Store.open(gitRevision: "HEAD", at: scratch.store) } throws: { error in
            let error = error as? StorageError
            return error?.code == .notRegularFile && error?.file == "HEAD:data/Items.folio/manifest.json"
        }
    }

    @Test func theCallersGitVariablesDoNotRedirectGit() throws {
        let scratch = try GitScratch()
        defer { scratch.cleanUp() }
        let content = try makeStore(at: scratch.store, transactions: 3)
        try scratch.commitAll("store")
        let other = scratch.root.appending("other")
        try FileManager.default.createDirectory(at: other, withIntermediateDirectories: true)
        try scratch.git("init", "-q", ".", in: other)

        var environment = ProcessInfo.processInfo.environment
        environment["GIT_DIR"] = other.appending(".git").path
        environment["GIT_WORK_TREE"] = other.path
        environment["GIT_INDEX_FILE"] = other.appending("index").path
        let store = try Store.open(gitRevision: "HEAD", at: scratch.store, git: try GitRunner(environment: environment))
        #expect(StoreContent(store) == content)
    }

    /// Seeded damage committed to the repository: the store as of that commit opens exactly when the
    /// same files on disk open, with the same records, or fails with the same code at the same line.
    @Test func aSeededDamageAtARevisionGivesWhatTheSameDamageOnDiskGives() throws {
        let scratch = try GitScratch()
        defer { scratch.cleanUp() }
        _ = try makeStore(at: scratch.store, transactions: 12, compactAfter: 6)
        let clean = try directoryContents(scratch.store).filter { !$0.key.hasPrefix("/cache/") && $0.key != "/lock" }
        var random = SeededGenerator(seed: 52)
        var failures = 0
        for round in 0..<16 {
            let (name, original) = try #require(clean.sorted { $0.key < $1.key }.randomElement(using: &random))
            var bytes = original
            switch Int.random(in: 0..<3, using: &random) {
            case 0 where !bytes.isEmpty:
                let at = Int.random(in: 0..<bytes.count, using: &random)
                bytes[at] ^= UInt8.random(in: 1...255, using: &random)
            case 1: bytes = Array(bytes.prefix(Int.random(in: 0...bytes.count, using: &random)))
            default: bytes += (0..<40).map { _ in UInt8.random(in: 0...255, using: &random) } + [0x0A]
            }
            for (other, content) in clean {
                try writeBytes(other == name ? bytes : content, to: scratch.store.appendingPathComponent(String(other.dropFirst())))
            }
            try scratch.commitAll("round \(round)")

            var configuration = StoreConfiguration(readOnly: true)
            configuration.maximumLineBytes = 64 << 10
            let onDisk = Result { StoreContent(try Store.open(at: scratch.store, configuration: configuration)) }
            let atRevision = Result { StoreContent(try Store.open(gitRevision: "HEAD", at: scratch.store, configuration: configuration)) }
            switch (onDisk, atRevision) {
            case (.success(let disk), .success(let git)):
                #expect(disk == git, "round \(round), \(name)")
            case (.failure(let disk as StorageError), .failure(let git as StorageError)):
                failures += 1
                #expect(disk.code == git.code && disk.line == git.line && disk.offset == git.offset, "round \(round): \(disk) / \(git)")
                let relative = disk.file.map { String($0.dropFirst(scratch.store.path.count + 1)) }
                #expect(git.file == relative.map { "HEAD:data/Items.folio/\($0)" }, "round \(round): \(disk) / \(git)")
            default:
                Issue.record("round \(round), \(name): on disk \(onDisk), at the revision \(atRevision)")
            }
        }
        #expect(failures > 0, "some damage is refused")
    }
}
