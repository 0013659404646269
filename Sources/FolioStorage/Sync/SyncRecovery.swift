import Foundation

/// Mends what a killed sync left, before a sync starts, and refuses to start over another operation.
///
/// Only what the state file proves was the killed sync's is touched: its `MERGE_HEAD` (the merge is
/// aborted, the store's files kept as they are, see ``StoreFileRescue``; the next attempt merges again), an
/// `index.lock` it held itself, or one whose git it started is no longer running. A lock or a merge
/// that is anyone else's is left for its owner.
enum SyncRecovery {
    /// Mends a killed sync's leftovers (see the type's description), returning a note for each.
    static func recover(_ git: SyncGit, state: SyncState, wait: TimeInterval) throws(GitSyncError) -> [String] {
        var notes: [String] = []
        if try StoreFileRescue.restore(git) { notes.append("put back the store's files a killed sync had kept aside") }
        if let leftover = state.previous {
            try waitForKilledSyncsGit(git, leftover: leftover, wait: wait)
            notes += try removeStaleIndexLock(git, leftover: leftover, wait: wait)
            if leftover.merging, let head = leftover.mergeHead {
                let mergeHead = git.gitDirectory.appendingPathComponent("MERGE_HEAD").path
                if FileManager.default.fileExists(atPath: mergeHead) {
                    notes += try abortMerge(git, of: head)
                } else {
                    notes += try restoreInterruptedMerge(git, leftover: leftover)
                }
            }
        }
        try refuseOperationInProgress(git)
        try waitForIndexLock(git, wait: wait)
        return notes
    }

    /// Waits for the git the killed sync started last to end (it outlives the sync, and may be
    /// finishing a merge): only then does the repository say what the killed sync left.
    private static func waitForKilledSyncsGit(_ git: SyncGit, leftover: SyncState.Record, wait: TimeInterval) throws(GitSyncError) {
        guard let pid = leftover.gitProcess else { return }
        let deadline = Date().addingTimeInterval(wait.isNaN ? 0 : min(max(wait, 0), 86_400))
        while SyncState.isRunning(pid) {
            guard Date() < deadline else {
                throw git.failure(
                    .gitLocked, "git (process \(pid)), started by a sync that was killed, still runs after \(wait) s; sync again once it has ended")
            }
            usleep(20_000)
        }
    }

    /// The path of git's index lock.
    static func indexLock(_ git: SyncGit) -> String { git.gitDirectory.appendingPathComponent("index.lock").path }

    /// Removes an `index.lock` the killed sync held, or its git left when it was killed too.
    private static func removeStaleIndexLock(_ git: SyncGit, leftover: SyncState.Record, wait: TimeInterval) throws(GitSyncError) -> [String] {
        let path = indexLock(git)
        let fs = PosixFileSystem()
        guard let status = (try? fs.status(atPath: path)) ?? nil else { return [] }
        let ownLock = leftover.heldIndexLock == status.inode
        // A lock made after the killed sync started its last git, which no longer runs, is that git's.
        let madeByDeadGit =
            leftover.gitProcess.map { !SyncState.isRunning($0) } == true
            && leftover.gitStarted.map { Double(status.modificationTime) / 1e9 >= $0 - 1 } == true
        guard ownLock || madeByDeadGit else { return [] }
        do { try fs.unlink(path) } catch {
            throw git.failure(.gitLocked, "the index lock \(path) a killed sync left cannot be removed: \(error)")
        }
        return ["removed \(path), left by a killed sync\(ownLock ? "" : "'s git")"]
    }

    /// Aborts the merge of `head` a killed sync started, when it is still in progress.
    private static func abortMerge(_ git: SyncGit, of head: String) throws(GitSyncError) -> [String] {
        let mergeHead = git.gitDirectory.appendingPathComponent("MERGE_HEAD").path
        guard let bytes = try? PosixFileSystem().readSmallFile(mergeHead, limit: 4096) else { return [] }
        let inProgress = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard inProgress == head else { return [] }
        // The abort puts back every file the merge touched, the store's too: what was saved since is kept aside.
        try StoreFileRescue.save(git)
        // git refuses to abort over a resolved file changed since; the rescue holds those changes.
        let resolved = try StoreFileRescue.resolvedStoreFiles(git)
        if !resolved.isEmpty { try git.checked(["checkout", "-q", "--"] + resolved) }
        try git.checked(["merge", "--abort"], code: .operationInProgress)
        try StoreFileRescue.restore(git)
        return ["undid the merge of \(head) a killed sync left unfinished, keeping the store's files as they were"]
    }

    /// Puts back the files a `git merge` killed while it wrote the work tree (before it wrote
    /// `MERGE_HEAD` or a commit) had replaced: each file the merged commit changes, other than a store's
    /// own, back as `HEAD` has it (one it added, removed). Store files stay as they are: a save may have
    /// gone into one since, and what git wrote there is the other side's whole file, which the next
    /// merge holds anyway.
    private static func restoreInterruptedMerge(_ git: SyncGit, leftover: SyncState.Record) throws(GitSyncError) -> [String] {
        guard let theirs = leftover.mergeHead, let before = leftover.headBefore, try git.commit("HEAD") == before,
            !FileManager.default.fileExists(atPath: git.gitDirectory.appendingPathComponent("MERGE_HEAD").path)
        else { return [] }
        let changed = SyncGit.fields(try git.checked(["diff", "--name-only", "-z", "--no-renames", before, theirs]).output)
        let modified = Set(SyncGit.fields(try git.checked(["ls-files", "-m", "-o", "--exclude-standard", "-z", "--"] + changed).output))
        var restored: [String] = []
        for path in changed where modified.contains(path) {
            // Any store's files, not only this one's: a journal, a history, a manifest, a snapshot, a blob.
            let parts = path.split(separator: "/").map(String.init)
            if StoreFileMerge.kind(ofPath: path) != nil || (parts.count >= 3 && StoreCommit.isOwnFile(parts.suffix(3).joined(separator: "/"))) {
                continue
            }
            let inHead = try git.run(["cat-file", "-e", "\(before):\(path)"]).status == 0
            if inHead {
                try git.checked(["checkout", "-q", before, "--", path])
            } else {
                try? FileManager.default.removeItem(at: git.top.appendingPathComponent(path))
            }
            restored.append(path)
        }
        return restored.isEmpty ? [] : ["put back \(restored.count) file(s) a killed git merge had half written: \(restored.joined(separator: ", "))"]
    }

    /// Throws when a merge, rebase, cherry-pick or revert is in progress: a sync never commits into one.
    static func refuseOperationInProgress(_ git: SyncGit) throws(GitSyncError) {
        let markers = [
            ("MERGE_HEAD", "a merge"), ("rebase-merge", "a rebase"), ("rebase-apply", "a rebase or 'git am'"),
            ("CHERRY_PICK_HEAD", "a cherry-pick"), ("REVERT_HEAD", "a revert"),
        ]
        for (name, what) in markers where FileManager.default.fileExists(atPath: git.gitDirectory.appendingPathComponent(name).path) {
            throw git.failure(
                .operationInProgress,
                "\(what) is in progress in \(git.top.path) (\(name)): finish it or abort it, then sync again")
        }
    }

    /// Waits up to `wait` seconds for another git's `index.lock` to go.
    static func waitForIndexLock(_ git: SyncGit, wait: TimeInterval) throws(GitSyncError) {
        let path = indexLock(git)
        let deadline = Date().addingTimeInterval(wait.isNaN ? 0 : min(max(wait, 0), 86_400))
        while FileManager.default.fileExists(atPath: path) {
            guard Date() < deadline else {
                throw git.failure(
                    .gitLocked, "git's \(path) was still there after \(wait) s: another git command runs, or one was killed (then remove the file)")
            }
            usleep(20_000)
        }
    }
}
