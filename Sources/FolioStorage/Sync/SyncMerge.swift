import Foundation

/// Fetches the remote branch and merges it with Folio's rules, in-process: no `folio` executable is
/// needed, so an app syncs as the command line does.
///
/// Git merges with the driver of `merge=folio` files replaced by `false`, so it leaves every store file
/// both sides changed unmerged (our version in the work tree, the three versions in the index); each is
/// then merged by ``StoreFileMerge``, as `folio merge-driver` would, written, added and committed. A
/// file git cannot leave to Folio (a conflict outside the stores, a store file one side deleted) stops
/// the merge, which is undone.
enum SyncMerge {
    /// Fetches the remote's branch into its tracking ref; returns its commit, or nil when the remote
    /// has no such branch yet (the first push makes it).
    ///
    /// - Throws: ``GitSyncError/Code/remoteUnreachable`` when the remote cannot be read.
    static func fetch(_ git: SyncGit, _ target: SyncTarget) throws(GitSyncError) -> String? {
        let output = try git.run(
            ["fetch", "--no-tags", "--quiet", "--no-write-fetch-head", "--", target.remote, "+refs/heads/\(target.branch):\(target.trackingRef)"])
        guard output.status == 0 else {
            if output.errors.contains("couldn't find remote ref") { return nil }
            throw git.failure(.remoteUnreachable, "the remote '\(target.remote)' could not be fetched from", git: output.errors)
        }
        return try git.commit(target.trackingRef)
    }

    /// Throws ``GitSyncError/Code/notSetUp`` unless git merges the store's files with `merge=folio`:
    /// without it git would merge them as text, and could do so without a conflict.
    static func requireFolioMerge(_ git: SyncGit) throws(GitSyncError) {
        let files = ["journal.jsonl", "history.jsonl", "manifest.json", "snapshots/Entity.jsonl"].map(git.storeFile)
        let values = try mergeAttributes(git, files)
        let missing = files.filter { values[$0] != "folio" }
        guard missing.isEmpty else {
            throw git.failure(
                .notSetUp,
                "git would not merge \(missing.joined(separator: ", ")) with Folio's rules (no 'merge=folio' in .gitattributes): run 'folio git-setup' and commit .gitattributes and .gitignore"
            )
        }
    }

    /// The `merge` attribute of each path.
    static func mergeAttributes(_ git: SyncGit, _ paths: [String]) throws(GitSyncError) -> [String: String] {
        let fields = SyncGit.fields(try git.checked(["check-attr", "-z", "merge", "--"] + paths).output)
        var values: [String: String] = [:]
        var index = 0
        while index + 2 < fields.count {
            values[fields[index]] = fields[index + 2]
            index += 3
        }
        return values
    }

    /// Merges `theirs` into the current branch; adds what it did to `report`.
    static func merge(_ git: SyncGit, _ target: SyncTarget, theirs: String, state: SyncState, report: inout GitSyncReport) throws(GitSyncError) {
        let ancestor = try git.run(["merge-base", "--is-ancestor", theirs, "HEAD"])
        if ancestor.status == 0 { return }
        let head = try git.commit("HEAD")
        let before = try TransactionCensus(git, revision: head == nil ? nil : "HEAD")
        state.update {
            $0.mergeHead = theirs
            $0.headBefore = head
            $0.merging = true
        }
        let message = "Merge \(target.remote)/\(target.branch) (folio sync)"
        let merge = try git.run([
            "-c", "merge.folio.driver=false", "-c", "rerere.enabled=false", "merge", "--no-edit", "--no-stat", "-q", "-m", message, theirs,
        ])
        if merge.status != 0 {
            do {
                try resolve(git, target, mergeErrors: merge.errors, state: state, report: &report)
            } catch {
                // A merge left in progress (a hook refused its commit, git failed) would stop every later sync.
                if FileManager.default.fileExists(atPath: git.gitDirectory.appendingPathComponent("MERGE_HEAD").path) { try? abort(git) }
                throw error
            }
        }
        state.update {
            $0.merging = false
            $0.mergeHead = nil
            $0.headBefore = nil
        }
        let after = try TransactionCensus(git, revision: "HEAD")
        report.received += after.missing(from: before)
    }

    /// One file git left unmerged: its path and the blobs of its stages (1 base, 2 ours, 3 theirs).
    struct Unmerged {
        var path: String
        var stages: [Int: String] = [:]
    }

    /// Merges each store file git left unmerged, then commits the merge; undoes it when one cannot be.
    private static func resolve(
        _ git: SyncGit, _ target: SyncTarget, mergeErrors: String, state: SyncState, report: inout GitSyncReport
    ) throws(GitSyncError) {
        let files = try unmergedFiles(git)
        let inProgress = FileManager.default.fileExists(atPath: git.gitDirectory.appendingPathComponent("MERGE_HEAD").path)
        guard inProgress, !files.isEmpty else {
            if inProgress { try abort(git) }
            throw git.failure(.mergeFailed, "git could not merge \(target.remote)/\(target.branch); nothing was changed", git: mergeErrors)
        }
        let attributes = try mergeAttributes(git, files.map(\.path))
        let refused = files.filter {
            attributes[$0.path] != "folio" || StoreFileMerge.kind(ofPath: $0.path) == nil || $0.stages[2] == nil || $0.stages[3] == nil
        }
        guard refused.isEmpty else {
            try abort(git)
            throw git.failure(
                .mergeFailed,
                "the merge of \(target.remote)/\(target.branch) conflicts in \(refused.map(\.path).joined(separator: ", ")), which Folio does not merge (a file outside the stores, or a store file one side deleted); the merge was undone: merge by hand ('git merge \(target.trackingRef)')",
                git: mergeErrors)
        }
        // Manifests last: the other files' merges read the schema of our manifest in the work tree.
        let ordered = files.sorted {
            (StoreFileMerge.kind(ofPath: $0.path) == .manifest ? 1 : 0, $0.path) < (
                StoreFileMerge.kind(ofPath: $1.path) == .manifest ? 1 : 0, $1.path
            )
        }
        var versions: [(Unmerged, [[UInt8]])] = []
        for file in ordered {
            versions.append((file, try [1, 2, 3].map { stage throws(GitSyncError) in try blob(git, file.stages[stage]) }))
        }
        try withIndexLock(git, state: state) { () throws(GitSyncError) in
            for (file, blobs) in versions {
                let path = git.top.appendingPathComponent(file.path).path
                do {
                    let outcome = try StoreFileMerge.merge(path: path, base: blobs[0], ours: blobs[1], theirs: blobs[2])
                    report.mergedFiles.append("\(file.path): \(outcome.summary)")
                    report.conflicts += outcome.conflicts
                    report.conflictCount += outcome.conflictCount
                } catch let refusal as JournalThreeWayMerge.Refusal {
                    let location = [refusal.file, refusal.line.map { "line \($0)" }].compactMap { $0 }.joined(separator: " ")
                    throw git.failure(
                        .mergeFailed,
                        "\(file.path) cannot be merged (\(location.isEmpty ? "" : "\(location): ")\(refusal.message)); the merge was undone: see 'What the driver refuses' in docs/git.md"
                    )
                } catch {
                    throw git.failure(.mergeFailed, "the merged \(file.path) cannot be written: \(error); the merge was undone")
                }
            }
        }
        try git.checked(["add", "--"] + ordered.map(\.path))
        try git.checked(["commit", "-q", "--no-edit"])
    }

    /// The files the index holds unmerged, from `git ls-files -u -z` (`MODE BLOB STAGE\tPATH`).
    static func unmergedFiles(_ git: SyncGit) throws(GitSyncError) -> [Unmerged] {
        var files: [String: Unmerged] = [:]
        for entry in SyncGit.fields(try git.checked(["ls-files", "-u", "-z"]).output) {
            let parts = entry.split(separator: "\t", maxSplits: 1).map(String.init)
            let fields = parts.first?.split(separator: " ").map(String.init) ?? []
            guard parts.count == 2, fields.count == 3, let stage = Int(fields[2]) else { continue }
            files[parts[1], default: Unmerged(path: parts[1])].stages[stage] = fields[1]
        }
        return files.values.sorted { $0.path < $1.path }
    }

    /// The bytes of a blob; empty for a stage git did not have (a file both sides added).
    private static func blob(_ git: SyncGit, _ name: String?) throws(GitSyncError) -> [UInt8] {
        guard let name else { return [] }
        return try git.checked(["cat-file", "blob", name], outputLimit: StoreFileMerge.maximumFileBytes).output
    }

    /// Undoes the merge in progress.
    static func abort(_ git: SyncGit) throws(GitSyncError) {
        try git.checked(["merge", "--abort"])
    }

    /// Runs `body` holding git's `index.lock`, as git does while it rewrites the work tree: a store open
    /// meanwhile waits for it before it reads the files, so it never sees some merged and some not.
    private static func withIndexLock(_ git: SyncGit, state: SyncState, _ body: () throws(GitSyncError) -> Void) throws(GitSyncError) {
        let path = SyncRecovery.indexLock(git)
        let fs = PosixFileSystem()
        let file: FileDescriptor
        do { file = try fs.open(path, .createExclusive) } catch {
            throw git.failure(.gitLocked, "git's \(path) could not be taken while merging the store's files: \(error); the merge was undone")
        }
        let inode = (try? fs.status(file))?.inode
        state.update { $0.heldIndexLock = inode }
        fs.close(file)
        defer {
            try? fs.unlink(path)
            state.update { $0.heldIndexLock = nil }
        }
        try body()
    }
}
