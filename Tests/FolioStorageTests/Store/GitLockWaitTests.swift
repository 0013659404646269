import Foundation
import Synchronization
import Testing
@_spi(FolioEngine) @testable import FolioStorage

/// A store inside a git work tree waits while git holds `index.lock`, as git does while a checkout,
/// merge, pull or reset replaces the store's files: each file is deleted, then written anew, so for a
/// moment it is empty or ends in half a line. These tests make that moment by hand, as git makes it.
@Suite("Waiting for git to rewrite the work tree")
struct GitLockWaitTests {
    /// Long enough never to end while a test runs: the tests wait for the save, not for the limit.
    static func configuration(gitLockWait: Double = 3600) -> StoreConfiguration {
        var configuration = StoreConfiguration(durability: .none, compactionThreshold: nil)
        configuration.gitLockWait = gitLockWait
        return configuration
    }

    /// A repository at `directory` (a `.git` folder, as `git init` leaves it) and a store `S` in it with
    /// two transactions; returns the store and the journal git will check out: the same two
    /// transactions and one more, saved by another clone.
    static func repositoryWithStore(in directory: URL, gitLockWait: Double = 3600) throws -> (Store, [UInt8]) {
        try FileManager.default.createDirectory(at: directory.appending(".git"), withIntermediateDirectories: true)
        let storeURL = directory.appending("S")
        let store = try Store.open(at: storeURL, configuration: configuration(gitLockWait: gitLockWait))
        for title in ["one", "two"] { try insert(title, into: store) }
        let other = directory.appending("other")
        try FileManager.default.copyItem(at: storeURL, to: other)
        let otherStore = try Store.open(at: other, configuration: configuration())
        try insert("from the other clone", into: otherStore)
        otherStore.close()
        return (store, try readBytes(other.appending("journal.jsonl")))
    }

    static func insert(_ title: String, into store: Store) throws {
        try store.write { transaction in
            try transaction.insert(entity: "Note", id: transaction.allocateID(), values: ["title": .string(title)])
        }
    }

    /// Runs `body` on another thread; the returned box says when it finished and what it threw.
    static func inBackground(_ body: @escaping @Sendable () throws -> Void) -> Outcome {
        let outcome = Outcome()
        Thread.detachNewThread {
            do { try body(); outcome.finish(nil) } catch { outcome.finish("\(error)") }
        }
        return outcome
    }

    /// Deletes the journal and writes `bytes` as a new file, as git checks a file out.
    static func replaceJournal(of store: URL, with bytes: [UInt8]) throws -> FileHandle {
        let journal = store.appending("journal.jsonl")
        try FileManager.default.removeItem(at: journal)
        try writeBytes(bytes, to: journal)
        let handle = try FileHandle(forWritingTo: journal)
        try handle.seekToEnd()
        return handle
    }

    @Test func aSaveWaitsForGitsHalfWrittenJournalAndAppendsAfterIt() throws {
        try withTemporaryDirectory { directory in
            let (store, gitsJournal) = try Self.repositoryWithStore(in: directory)
            let lock = directory.appending(".git/index.lock")
            try writeBytes([], to: lock)
            // Git has written its journal up to the middle of the last line.
            let cut = gitsJournal.count - 20
            let journal = try Self.replaceJournal(of: directory.appending("S"), with: Array(gitsJournal[..<cut]))
            let save = Self.inBackground { try Self.insert("saved during the checkout", into: store) }
            Thread.sleep(forTimeInterval: 0.3)
            #expect(!save.isFinished, "the save went ahead while git held its index lock")
            try journal.write(contentsOf: Data(gitsJournal[cut...]))
            try journal.close()
            try FileManager.default.removeItem(at: lock)
            #expect(save.wait(seconds: 600))
            #expect(save.error == nil, "\(save.error ?? "")")

            let written = try readBytes(directory.appending("S/journal.jsonl"))
            #expect(written.starts(with: gitsJournal), "the save changed what git wrote")
            #expect(!FileManager.default.fileExists(atPath: directory.appending("S/journal.jsonl.corrupt-tail").path))
            store.close()
            let reopened = try Store.open(at: directory.appending("S"), configuration: Self.configuration())
            #expect(reopened.lastSequence == 4)
            #expect(
                Set(reopened.records(of: "Note").compactMap { $0.values.dictionary["title"]?.stringValue })
                    == ["one", "two", "from the other clone", "saved during the checkout"])
            #expect(StoreVerifier.verify(at: directory.appending("S")).problems.isEmpty)
        }
    }

    @Test func aRefreshWaitsForGitInsteadOfReadingTheEmptyFileItHasJustCreated() throws {
        try withTemporaryDirectory { directory in
            let (store, gitsJournal) = try Self.repositoryWithStore(in: directory)
            let lock = directory.appending(".git/index.lock")
            try writeBytes([], to: lock)
            let journal = try Self.replaceJournal(of: directory.appending("S"), with: [])
            let refresh = Self.inBackground { _ = try store.refresh() }
            Thread.sleep(forTimeInterval: 0.3)
            #expect(!refresh.isFinished, "the refresh read the files while git held its index lock")
            try journal.write(contentsOf: Data(gitsJournal))
            try journal.close()
            try FileManager.default.removeItem(at: lock)
            #expect(refresh.wait(seconds: 600))
            #expect(refresh.error == nil, "\(refresh.error ?? "")")
            #expect(store.lastSequence == 3)
            #expect(store.lastReload.number == 1, "one reload, of the complete file")
            #expect(!store.lastReload.lostTransactions)
            #expect(store.lastReload.arrived.count == 1)
        }
    }

    @Test func aSaveThatGitReplacedTheJournalUnderFailsAndTheNextSaveBuildsOnGitsFile() throws {
        try withTemporaryDirectory { directory in
            let (first, gitsJournal) = try Self.repositoryWithStore(in: directory)
            first.close()
            let storeURL = directory.appending("S")
            // Git takes and releases its lock in the moment between the save's look at it and its write.
            let replacing = JournalReplacingFileSystem(journal: storeURL.appending("journal.jsonl").path, with: gitsJournal)
            var configuration = Self.configuration()
            configuration.fileSystem = replacing
            let store = try Store.open(at: storeURL, configuration: configuration)
            replacing.armed.withLock { $0 = true }
            #expect {
                try Self.insert("written into the replaced journal", into: store)
            } throws: { error in
                (error as? StorageError)?.code == .filesReplaced
            }
            #expect(try readBytes(storeURL.appending("journal.jsonl")) == gitsJournal)
            try Self.insert("saved again", into: store)
            #expect(store.lastSequence == 4)
            store.close()
            let reopened = try Store.open(at: storeURL, configuration: Self.configuration())
            #expect(
                Set(reopened.records(of: "Note").compactMap { $0.values.dictionary["title"]?.stringValue })
                    == ["one", "two", "from the other clone", "saved again"])
        }
    }

    @Test func aLockAGitLeftBehindIsWaitedForOnceThenReported() throws {
        try withTemporaryDirectory { directory in
            let (store, _) = try Self.repositoryWithStore(in: directory, gitLockWait: 0.2)
            try writeBytes([], to: directory.appending(".git/index.lock"))
            try Self.insert("three", into: store)
            try Self.insert("four", into: store)
            #expect(store.lastSequence == 4)
            #expect(store.warnings.filter { $0.contains("index.lock") }.count == 1, "\(store.warnings)")
        }
    }

    @Test(arguments: [Double.nan, -1])
    func aWaitLimitThatIsNotANumberOfSecondsDoesNotStopTheProcess(limit: Double) throws {
        try withTemporaryDirectory { directory in
            let (store, _) = try Self.repositoryWithStore(in: directory, gitLockWait: limit)
            try writeBytes([], to: directory.appending(".git/index.lock"))
            try Self.insert("three", into: store)
            #expect(store.lastSequence == 3)
        }
    }

    @Test func aLinkedWorktreesLockIsInTheGitDirectoryItsDotGitFileNames() throws {
        try withTemporaryDirectory { directory in
            let tree = directory.appending("tree")
            try FileManager.default.createDirectory(at: tree.appending("Store.folio"), withIntermediateDirectories: true)
            try Data("gitdir: ../repo/.git/worktrees/tree\n".utf8).write(to: tree.appending(".git"))
            let found = GitWorkTree.containing(tree.appending("Store.folio").path, fileSystem: PosixFileSystem())
            let lock = try #require(found?.indexLock)
            #expect(
                URL(fileURLWithPath: lock).standardizedFileURL.path
                    == directory.appending("repo/.git/worktrees/tree/index.lock").standardizedFileURL.path)
            #expect(GitWorkTree.containing(directory.path, fileSystem: PosixFileSystem()) == nil)
        }
    }
}

/// A file system that, once armed, replaces the journal with `with` (deleting it and writing a new
/// file, as git checks a file out) right before the next write to it.
final class JournalReplacingFileSystem: ForwardingFileSystem, @unchecked Sendable {
    // Sendable: `armed` is a mutex; the rest is immutable.
    let base = PosixFileSystem()
    let journal: String
    let replacement: [UInt8]
    let armed = Mutex(false)

    init(journal: String, with replacement: [UInt8]) {
        self.journal = journal
        self.replacement = replacement
    }

    func write(_ file: FileDescriptor, _ bytes: UnsafeRawBufferPointer, at offset: Int64) throws -> Int {
        if armed.withLock({
            let was = $0; $0 = false; return was
        }) {
            try base.unlink(journal)
            let new = try base.open(journal, .readWriteCreate)
            try base.writeAll(new, replacement, at: 0)
            base.close(new)
        }
        return try base.write(file, bytes, at: offset)
    }
}

/// When a background call finished, and the error it threw.
final class Outcome: @unchecked Sendable {
    // Sendable: the state is read and written only while holding `lock`.
    private let lock = NSLock()
    private var finished = false
    private var thrown: String?

    func finish(_ error: String?) {
        lock.withLock {
            finished = true; thrown = error
        }
    }
    var isFinished: Bool { lock.withLock { finished } }
    var error: String? { lock.withLock { thrown } }

    /// Waits for the call to finish, polling on this thread, up to `seconds`.
    func wait(seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while !isFinished, Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        return isFinished
    }
}
