import Foundation
import FolioStorage
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `folio sync` run on real clones of a bare remote, with real git.
@Suite("folio sync between clones of a remote", .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/git")))
struct SyncCommandTests {
    typealias Remote = GitMergeDriverTests.Remote

    /// The environment git runs with in these tests (no user or system configuration), which
    /// `folio sync` passes on to the git it runs.
    static func environment(_ clone: URL) -> [String: String] {
        [
            "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": "/dev/null", "HOME": clone.path, "GIT_AUTHOR_NAME": "Test",
            "GIT_AUTHOR_EMAIL": "test@example.com", "GIT_COMMITTER_NAME": "Test", "GIT_COMMITTER_EMAIL": "test@example.com",
        ]
    }

    /// Runs `folio sync Trips.folio ARGUMENTS` in `clone`.
    static func sync(_ clone: URL, _ arguments: String...) throws -> FolioRun {
        try folio(arguments: ["sync", "Trips.folio"] + arguments, environment: environment(clone), directory: clone)
    }

    static func git(_ arguments: String..., in directory: URL) throws -> String {
        try GitMergeDriverTests.git(arguments: arguments, in: directory, check: true).stdout
    }

    /// Every record's values in the clone's store, after `folio verify` passed there.
    static func state(_ clone: URL) throws -> [Int64: RecordValues] {
        try GitMergeDriverTests.records(clone).mapValues(\.values)
    }

    static func insert(_ clone: URL, _ name: String, price: Double) throws -> Int64 {
        var id: Int64 = 0
        try GitMergeDriverTests.write(clone) { t in
            id = t.allocateID()
            try t.insert(entity: "Trip", id: id, values: ["name": .string(name), "price": .double(price)])
        }
        return id
    }

    /// Clones `a` and `b` of the seeded `remote`: `b` inserted a trip and synced, `a` inserted another
    /// and has not, so that `a`'s next sync merges.
    static func clonesWithAMergeToCome(_ remote: Remote) throws -> (a: URL, b: URL, fromA: Int64, fromB: Int64) {
        _ = try GitMergeDriverTests.seed(remote)
        let a = try remote.clone("a"), b = try remote.clone("b")
        let fromB = try Self.insert(b, "Quito", price: 70)
        #expect(try Self.sync(b).status == 0)
        let fromA = try Self.insert(a, "Kyoto", price: 120)
        return (a, b, fromA, fromB)
    }

    /// Starts `folio sync Trips.folio` in `clone` with a pre-commit hook (of every commit, or only of a
    /// merge's) that writes its own and its parent git's process identifiers and waits while the `flag`
    /// file exists; returns once the hook is waiting.
    static func syncHeldInPreCommit(
        _ clone: URL, remote: Remote, onlyWhileMerging: Bool
    ) throws -> (process: Process, hookAndGit: [Int32], flag: URL) {
        let flag = remote.scratch.appending("hold"), pids = remote.scratch.appending("pids")
        try Data().write(to: flag)
        let hook = clone.appendingPathComponent(".git/hooks/pre-commit")
        let condition = (onlyWhileMerging ? "[ -f .git/MERGE_HEAD ] && " : "") + "[ -f '\(flag.path)' ]"
        try Data(
            """
            #!/bin/sh
            if \(condition); then echo "$$ $PPID" > '\(pids.path).tmp'; mv '\(pids.path).tmp' '\(pids.path)'; sleep 60; fi
            exit 0

            """.utf8
        ).write(to: hook)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: hook.path)
        let (process, hookAndGit) = try startSync(clone, heldUntil: pids)
        return (process, hookAndGit, flag)
    }

    /// Starts `folio sync Trips.folio` in `clone` and returns once what holds it (a hook or a filter that
    /// writes its own and its parent git's process identifiers to `pids`, then waits) has written them.
    static func startSync(_ clone: URL, heldUntil pids: URL) throws -> (process: Process, holderAndGit: [Int32]) {
        let process = Process()
        process.executableURL = folioExecutable()
        process.arguments = ["sync", "Trips.folio"]
        process.currentDirectoryURL = clone
        process.environment = ProcessInfo.processInfo.environment.merging(Self.environment(clone)) { _, new in new }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(60)
        while !FileManager.default.fileExists(atPath: pids.path), Date() < deadline { usleep(20_000) }
        let text = try String(contentsOf: pids, encoding: .utf8)
        return (process, text.split(whereSeparator: { $0 == " " || $0 == "\n" }).compactMap { Int32($0) })
    }

    @Test func twoClonesSyncingBothWaysEndWithTheSameStoreAndListTheConflict() throws {
        let remote = try Remote()
        defer { remote.scratch.remove() }
        let trips = try GitMergeDriverTests.seed(remote)
        let (oslo, rome, lima) = (trips[0], trips[1], trips[2])
        let a = try remote.clone("a"), b = try remote.clone("b")
        let kyoto = try Self.insert(a, "Kyoto", price: 120)
        try GitMergeDriverTests.write(a) { t in
            try t.update(entity: "Trip", id: oslo, values: ["price": .double(81)])
            try t.delete(entity: "Trip", id: rome)
        }
        let quito = try Self.insert(b, "Quito", price: 70)
        try GitMergeDriverTests.write(b) { t in
            try t.update(entity: "Trip", id: oslo, values: ["price": .double(82)])
            try t.update(entity: "Trip", id: lima, values: ["name": .string("Lima, Peru")])
        }

        let first = try Self.sync(a)
        #expect(first.status == 0, "\(first)")
        #expect(first.stdout.contains("Committed Trips.folio: 2 transactions by a"), "\(first)")
        #expect(first.stdout.contains("Sent 2 transaction(s) to origin/main: 2 by a"), "\(first)")
        let second = try Self.sync(b)
        #expect(second.status == 0, "\(second)")
        #expect(second.stdout.contains("Received 2 transaction(s) from origin/main: 2 by a"), "\(second)")
        #expect(second.stdout.contains("merged Trips.folio/journal.jsonl"), "\(second)")
        #expect(second.stdout.contains("1 conflicting value(s) resolved"), "\(second)")
        #expect(second.stdout.contains("Trip \(oslo) price: kept 82.0, lost 81.0"), "\(second)")
        let third = try Self.sync(a)
        #expect(third.status == 0, "\(third)")
        #expect(third.stdout.contains("Received 2 transaction(s) from origin/main: 2 by b"), "\(third)")
        #expect(third.stdout.contains("Nothing to send"), "\(third)")

        let stateA = try Self.state(a), stateB = try Self.state(b)
        #expect(stateA == stateB)
        #expect(Set(stateA.keys) == [oslo, lima, kyoto, quito], "Rome was deleted")
        #expect(stateA[oslo]?["price"] == .double(82))
        #expect(stateA[lima]?["name"] == .string("Lima, Peru"))
        #expect(try Self.git("status", "--porcelain", in: a).isEmpty)
        let log = try Self.git("log", "--format=%s", in: b)
        #expect(log.contains("Trips.folio: 2 transactions by b"), "\(log)")
        #expect(log.contains("Merge origin/main (folio sync)"), "\(log)")
    }

    @Test func aPushRefusedBecauseAnotherClonePushedIsRetriedAfterMergingAgain() throws {
        let remote = try Remote()
        defer { remote.scratch.remove() }
        _ = try GitMergeDriverTests.seed(remote)
        let a = try remote.clone("a"), b = try remote.clone("b")
        let fromB = try Self.insert(b, "Quito", price: 70)
        _ = try Self.git("commit", "-q", "-am", "b", in: b)
        let fromA = try Self.insert(a, "Kyoto", price: 120)
        // Between a's fetch and its push, b pushes: a's first push is refused.
        let flag = remote.scratch.appending("pushed-b")
        let hook = a.appendingPathComponent(".git/hooks/pre-push")
        try Data(
            """
            #!/bin/sh
            if [ ! -f '\(flag.path)' ]; then touch '\(flag.path)'; git -C '\(b.path)' push -q origin main; fi
            exit 0

            """.utf8
        ).write(to: hook)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: hook.path)

        let result = try Self.sync(a)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("pushed at attempt 2"), "\(result)")
        #expect(result.stdout.contains("Received 1 transaction(s) from origin/main: 1 by b"), "\(result)")
        #expect(FileManager.default.fileExists(atPath: flag.path))
        let back = try Self.sync(b)
        #expect(back.status == 0, "\(back)")
        #expect(try Self.state(a) == Self.state(b))
        #expect(try Self.state(b).keys.contains(fromA) && Self.state(a).keys.contains(fromB))
    }

    @Test func aRemoteThatRefusesEveryPushIsReportedAndTheSavesStayCommitted() throws {
        let remote = try Remote()
        defer { remote.scratch.remove() }
        _ = try GitMergeDriverTests.seed(remote)
        let a = try remote.clone("a")
        let kyoto = try Self.insert(a, "Kyoto", price: 120)
        let hook = remote.origin.appendingPathComponent("hooks/pre-receive")
        try Data("#!/bin/sh\necho 'frozen for the audit' >&2\nexit 1\n".utf8).write(to: hook)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: hook.path)

        let result = try Self.sync(a)
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr.contains("[pushRejected]"), "\(result)")
        #expect(result.stderr.contains("frozen for the audit"), "\(result)")
        #expect(result.stderr.contains("Remote: origin, branch main"), "\(result)")
        #expect(try Self.git("log", "-1", "--format=%s", in: a).contains("1 transaction by a"))
        #expect(try Self.state(a).keys.contains(kyoto))

        // Once the remote accepts again, the next sync sends the commit.
        try FileManager.default.removeItem(at: hook)
        let retry = try Self.sync(a)
        #expect(retry.status == 0, "\(retry)")
        #expect(retry.stdout.contains("Sent 1 transaction(s) to origin/main"), "\(retry)")
    }

    @Test func anUnreachableRemoteIsATypedErrorAndLosesNothing() throws {
        let remote = try Remote()
        defer { remote.scratch.remove() }
        _ = try GitMergeDriverTests.seed(remote)
        let a = try remote.clone("a")
        let kyoto = try Self.insert(a, "Kyoto", price: 120)
        _ = try Self.git("remote", "set-url", "origin", remote.scratch.appending("gone.git").path, in: a)
        let result = try Self.sync(a)
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr.contains("[remoteUnreachable]"), "\(result)")
        #expect(try Self.state(a).keys.contains(kyoto))
    }

    @Test func aDetachedHeadAndABranchWithoutUpstreamAreRefusedByName() throws {
        let remote = try Remote()
        defer { remote.scratch.remove() }
        _ = try GitMergeDriverTests.seed(remote)
        let a = try remote.clone("a")
        _ = try Self.git("checkout", "-q", "--detach", in: a)
        let detached = try Self.sync(a)
        #expect(detached.status == 1 && detached.stderr.contains("[detachedHead]"), "\(detached)")

        _ = try Self.git("switch", "-q", "-c", "topic", in: a)
        let noUpstream = try Self.sync(a)
        #expect(noUpstream.status == 1 && noUpstream.stderr.contains("[noUpstream]"), "\(noUpstream)")
        #expect(noUpstream.stderr.contains("--remote origin"), "\(noUpstream)")

        // Naming the remote pushes to a branch of the current branch's name.
        _ = try Self.insert(a, "Kyoto", price: 120)
        let named = try Self.sync(a, "--remote", "origin")
        #expect(named.status == 0, "\(named)")
        #expect(try Self.git("ls-remote", "--heads", "origin", in: a).contains("refs/heads/topic"))
    }

    @Test func unrelatedFilesInTheWorkTreeAreLeftAsTheyAre() throws {
        let remote = try Remote()
        defer { remote.scratch.remove() }
        _ = try GitMergeDriverTests.seed(remote)
        let a = try remote.clone("a"), b = try remote.clone("b")
        try Data("tracked\n".utf8).write(to: a.appendingPathComponent("README"))
        _ = try Self.git("add", "README", in: a)
        _ = try Self.git("commit", "-q", "-m", "readme", in: a)
        _ = try Self.git("push", "-q", "origin", "main", in: a)
        _ = try Self.insert(b, "Quito", price: 70)
        #expect(try Self.sync(b).status == 0)

        _ = try Self.insert(a, "Kyoto", price: 120)
        try Data("edited, not committed\n".utf8).write(to: a.appendingPathComponent("README"))
        try Data("mine\n".utf8).write(to: a.appendingPathComponent("notes.txt"))
        try Data("scratch\n".utf8).write(to: a.appendingPathComponent("Trips.folio/notes.tmp"))
        let result = try Self.sync(a)
        #expect(result.status == 0, "\(result)")
        let status = try Self.git("status", "--porcelain", in: a)
        #expect(status.contains(" M README") && status.contains("?? notes.txt") && status.contains("?? Trips.folio/notes.tmp"), "\(status)")
        #expect(try String(contentsOf: a.appendingPathComponent("README"), encoding: .utf8) == "edited, not committed\n")
        #expect(try Self.git("show", "--stat", "--format=", "HEAD~1", in: a).contains("Trips.folio/journal.jsonl"))

        // A staged file outside the store stops the sync before anything is done.
        _ = try Self.git("add", "notes.txt", in: a)
        let staged = try Self.sync(a)
        #expect(staged.status == 1 && staged.stderr.contains("[stagedChanges]") && staged.stderr.contains("notes.txt"), "\(staged)")
        #expect(try Self.git("diff", "--cached", "--name-only", in: a) == "notes.txt\n")
    }

    @Test func namesWithShellCharactersAreArgumentsNeverCommands() throws {
        let remote = try Remote()
        defer { remote.scratch.remove() }
        _ = try GitMergeDriverTests.seed(remote)
        let a = try remote.clone("a")
        let marker = remote.scratch.appending("pwned")
        for name in ["origin; touch \(marker.path)", "$(touch \(marker.path))", "`touch \(marker.path)`"] {
            let result = try Self.sync(a, "--remote", name)
            #expect(result.status == 64 && result.stderr.contains("no remote named"), "\(result)")
        }
        let option = try Self.sync(a, "--remote", "--upload-pack=touch \(marker.path)")
        #expect(option.status == 64, "\(option)")
        let dash = try Self.sync(a, "--branch=-D")
        #expect(dash.status == 64 && dash.stderr.contains("starts with '-'"), "\(dash)")
        let spaced = try Self.sync(a, "--branch", "main; touch \(marker.path)")
        #expect(spaced.status == 64 && spaced.stderr.contains("not a valid branch name"), "\(spaced)")
        // A valid branch name with shell characters is just a branch.
        let odd = "x;touch${IFS}pwned|true"
        let valid = try Self.sync(a, "--branch", odd)
        #expect(valid.status == 0, "\(valid)")
        #expect(try Self.git("ls-remote", "--heads", "origin", in: a).contains("refs/heads/\(odd)"))
        #expect(!FileManager.default.fileExists(atPath: marker.path))
        #expect(!FileManager.default.fileExists(atPath: a.appendingPathComponent("pwned").path))
    }

    @Test func aStoreWhoseFilesGitWouldMergeAsTextIsRefused() throws {
        let remote = try Remote()
        defer { remote.scratch.remove() }
        _ = try GitMergeDriverTests.seed(remote)
        let a = try remote.clone("a")
        try Data().write(to: a.appendingPathComponent(".gitattributes"))
        let result = try Self.sync(a)
        #expect(result.status == 1 && result.stderr.contains("[notSetUp]") && result.stderr.contains("folio git-setup"), "\(result)")
    }

    @Test func aSyncKilledWhileCommittingItsMergeIsMendedByTheNext() throws {
        let remote = try Remote()
        defer { remote.scratch.remove() }
        let (a, b, fromA, fromB) = try Self.clonesWithAMergeToCome(remote)
        // The merge commit's pre-commit hook says where it is and waits.
        let (process, hookAndGit, flag) = try Self.syncHeldInPreCommit(a, remote: remote, onlyWhileMerging: true)
        try #require(hookAndGit.count == 2, "\(hookAndGit)")
        // Everything dies at once, as when a machine's cron kills the job: git first, so that it cannot
        // clean up after a hook that died before it.
        for pid in hookAndGit.reversed() + [process.processIdentifier] { kill(pid, SIGKILL) }
        process.waitUntilExit()
        usleep(100_000)
        #expect(FileManager.default.fileExists(atPath: a.appendingPathComponent(".git/MERGE_HEAD").path))

        // The app saves again before the next sync: undoing the killed sync's merge must keep it.
        let afterKill = try Self.insert(a, "Lima", price: 60)
        try FileManager.default.removeItem(at: flag)
        let next = try Self.sync(a)
        #expect(next.status == 0, "\(next)")
        #expect(next.stderr.contains("killed sync left unfinished"), "\(next)")
        #expect(try Self.sync(b).status == 0)
        let stateA = try Self.state(a)
        #expect(stateA == (try Self.state(b)))
        #expect(stateA.keys.contains(fromA) && stateA.keys.contains(fromB) && stateA.keys.contains(afterKill))
        #expect(!FileManager.default.fileExists(atPath: a.appendingPathComponent(".git/folio-sync-rescue").path))
    }
    /// Clones that merge one another's work in turns: b's merge places its own save before a save of
    /// a's that the next merge's base already held right after its predecessors. The merge of c, whose
    /// base is that commit, starts from the transactions both sides begin with instead of refusing.
    @Test func clonesMergingInTurnsStillMergeWhenTheBaseIsNoPrefixOfASide() throws {
        let remote = try Remote()
        defer { remote.scratch.remove() }
        _ = try GitMergeDriverTests.seed(remote)
        let a = try remote.clone("a"), b = try remote.clone("b"), c = try remote.clone("c"), d = try remote.clone("d")
        _ = try Self.insert(a, "t1", price: 1)
        #expect(try Self.sync(a).status == 0)
        for clone in [b, c, d] { #expect(try Self.sync(clone).status == 0) }
        _ = try Self.insert(b, "u", price: 2)  // saved before t2, merged after it
        _ = try Self.insert(a, "t2", price: 3)
        #expect(try Self.sync(a).status == 0)
        for clone in [c, d] {
            #expect(try Self.sync(clone).status == 0)
            _ = try Self.insert(clone, "v of \(clone.lastPathComponent)", price: 4)
            _ = try Self.git("commit", "-q", "-am", "v", in: clone)
        }
        #expect(try Self.sync(b).status == 0)

        // With git merge and the registered driver, as with a sync.
        _ = try Self.git("fetch", "-q", "origin", in: d)
        let merged = try GitMergeDriverTests.git(arguments: ["merge", "--no-edit", "origin/main"], in: d, check: false)
        #expect(merged.status == 0, "\(merged)")
        let synced = try Self.sync(c)
        #expect(synced.status == 0, "\(synced)")
        for clone in [a, b, c, d, a, b, c] { #expect(try Self.sync(clone).status == 0) }
        let state = try Self.state(a)
        #expect(state.count == 3 + 5)
        for clone in [b, c, d] { #expect(try Self.state(clone) == state, "\(clone.lastPathComponent)") }
    }
    @Test func aSyncKilledWithItsGitHoldingTheIndexLockLeavesNoLockBehind() throws {
        let remote = try Remote()
        defer { remote.scratch.remove() }
        _ = try GitMergeDriverTests.seed(remote)
        let a = try remote.clone("a")
        let kyoto = try Self.insert(a, "Kyoto", price: 120)
        // A commit of named paths holds index.lock while its pre-commit hook runs: the hook says where it
        // is and waits, and everything is killed then.
        let (process, hookAndGit, flag) = try Self.syncHeldInPreCommit(a, remote: remote, onlyWhileMerging: false)
        try #require(hookAndGit.count == 2)
        for pid in hookAndGit.reversed() + [process.processIdentifier] { kill(pid, SIGKILL) }
        process.waitUntilExit()
        usleep(100_000)
        let lock = a.appendingPathComponent(".git/index.lock")
        #expect(FileManager.default.fileExists(atPath: lock.path), "git was killed holding its lock")

        try FileManager.default.removeItem(at: flag)
        let next = try Self.sync(a)
        #expect(next.status == 0, "\(next)")
        #expect(next.stderr.contains("left by a killed sync's git"), "\(next)")
        #expect(!FileManager.default.fileExists(atPath: lock.path))
        #expect(next.stdout.contains("Sent 1 transaction(s) to origin/main"), "\(next)")
        #expect(try Self.state(a).keys.contains(kyoto))
    }

    @Test func aStoreAtTheTopOfItsWorkTreeSyncs() throws {
        let scratch = ScratchDirectory()
        defer { scratch.remove() }
        let origin = scratch.appending("origin.git")
        _ = try Self.git("init", "-q", "--bare", "-b", "main", origin.path, in: scratch.url)
        let a = scratch.appending("a")
        _ = try Self.git("clone", "-q", origin.path, "a", in: scratch.url)
        var configuration = StoreConfiguration(compactionThreshold: nil)
        configuration.clock = { WriteClock.shared.next() }
        do {
            let store = try Store.open(at: a, configuration: configuration)
            defer { store.close() }
            try store.write(author: "top") { t in try t.insert(entity: "Trip", id: t.allocateID(), values: ["name": .string("Oslo")]) }
        }
        let setup = try folio("git-setup", directory: a)
        try #require(setup.status == 0, "\(setup)")
        _ = try Self.git("add", ".gitattributes", ".gitignore", in: a)
        _ = try Self.git("commit", "-q", "-m", "setup", in: a)
        let result = try folio(arguments: ["sync", ".", "--remote", "origin"], environment: Self.environment(a), directory: a)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("Committed store: 1 transaction by top"), "\(result)")
        let committed = try Self.git("show", "--name-only", "--format=", "HEAD", in: a)
        #expect(committed.contains("journal.jsonl") && !committed.contains("lock") && !committed.contains("cache/"), "\(committed)")
    }

    @Test func aHookThatRefusesTheMergeCommitLeavesNoMergeInProgress() throws {
        let remote = try Remote()
        defer { remote.scratch.remove() }
        let (a, _, fromA, fromB) = try Self.clonesWithAMergeToCome(remote)
        let hook = a.appendingPathComponent(".git/hooks/pre-commit")
        try Data("#!/bin/sh\nif [ -f .git/MERGE_HEAD ]; then echo 'no merges here' >&2; exit 1; fi\nexit 0\n".utf8).write(to: hook)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: hook.path)

        let refused = try Self.sync(a)
        #expect(refused.status == 1 && refused.stderr.contains("no merges here"), "\(refused)")
        #expect(!FileManager.default.fileExists(atPath: a.appendingPathComponent(".git/MERGE_HEAD").path))
        #expect(try Self.state(a).keys.contains(fromA))

        try FileManager.default.removeItem(at: hook)
        let next = try Self.sync(a)
        #expect(next.status == 0, "\(next)")
        #expect(try Self.state(a).keys.contains(fromB))
    }
    /// A git merge killed while it writes the work tree leaves files it wrote from the other side, no
    /// `MERGE_HEAD` and its index lock; without the recovery, the next merge would refuse to write over
    /// those files. A smudge filter on a file the merge brings stops git there.
    @Test func aSyncWhoseGitMergeWasKilledMidWayPutsBackWhatItHadWritten() throws {
        let remote = try Remote()
        defer { remote.scratch.remove() }
        _ = try GitMergeDriverTests.seed(remote)
        let a = try remote.clone("a"), b = try remote.clone("b")
        try Data("from b\n".utf8).write(to: b.appendingPathComponent("a-notes.txt"))
        try Data("slow\n".utf8).write(to: b.appendingPathComponent("zz-slow.txt"))
        _ = try Self.git("add", "a-notes.txt", "zz-slow.txt", in: b)
        _ = try Self.git("commit", "-q", "-m", "notes", in: b)
        let fromB = try Self.insert(b, "Quito", price: 70)
        #expect(try Self.sync(b).status == 0)
        let fromA = try Self.insert(a, "Kyoto", price: 120)

        let flag = remote.scratch.appending("hold"), pids = remote.scratch.appending("pids")
        try Data().write(to: flag)
        try Data("zz-slow.txt filter=slow\n".utf8).write(to: a.appendingPathComponent(".git/info/attributes"))
        _ = try Self.git(
            "config", "filter.slow.smudge",
            "if [ -f '\(flag.path)' ]; then echo $$ $PPID > '\(pids.path).tmp'; mv '\(pids.path).tmp' '\(pids.path)'; sleep 60; fi; cat",
            in: a)
        let (process, filterAndGit) = try Self.startSync(a, heldUntil: pids)
        try #require(filterAndGit.count == 2)
        for pid in filterAndGit.reversed() + [process.processIdentifier] { kill(pid, SIGKILL) }
        process.waitUntilExit()
        usleep(100_000)
        #expect(!FileManager.default.fileExists(atPath: a.appendingPathComponent(".git/MERGE_HEAD").path))
        #expect(FileManager.default.fileExists(atPath: a.appendingPathComponent("a-notes.txt").path), "git wrote it before it was killed")

        try FileManager.default.removeItem(at: flag)
        let next = try Self.sync(a)
        #expect(next.status == 0, "\(next)")
        #expect(next.stderr.contains("a killed git merge had half written: a-notes.txt"), "\(next)")
        #expect(try String(contentsOf: a.appendingPathComponent("a-notes.txt"), encoding: .utf8) == "from b\n")
        #expect(try Self.git("status", "--porcelain", "--untracked-files=no", in: a).isEmpty)
        #expect(try Self.sync(b).status == 0)
        let state = try Self.state(a)
        #expect(state == (try Self.state(b)) && state.keys.contains(fromA) && state.keys.contains(fromB))
    }
}
