import Foundation

/// Syncs a store in a git work tree with a remote: commits the store's own files, fetches, merges with
/// Folio's rules, pushes, and when the remote moved meanwhile, fetches and merges again, waiting a
/// little longer each time, up to ``GitSyncOptions/maximumAttempts``.
///
/// Git runs as a child process with an argument list, never through a shell. One sync at a time works
/// in a clone (a lock in its git directory); one started after a sync was killed first mends what that
/// one left (``SyncRecovery``). Files outside the store are never staged or committed: a sync refuses to
/// start when some are staged, and leaves changed and untracked ones as they are.
public enum GitSync {
    /// Syncs the store whose directory is `store` (see the type's description). Blocks while git runs.
    ///
    /// - Throws: ``GitSyncError``, naming the remote and branch.
    public static func run(store: URL, options: GitSyncOptions = GitSyncOptions()) throws(GitSyncError) -> GitSyncReport {
        var git = try SyncGit(store: store.standardizedFileURL, options: options)
        let state = SyncState(gitDirectory: git.gitDirectory)
        try state.lock(wait: options.lockWait) { git.failure(.gitLocked, $0) }
        defer { state.finish() }
        git.state = state
        // Before any git of this sync runs: the state file names the killed sync's last git.
        let recovered = try SyncRecovery.recover(git, state: state, wait: options.lockWait)
        state.update { $0 = SyncState.Record() }
        let target = try SyncTarget.resolve(git, options: options)
        git.remote = target.remote
        git.branch = target.branch
        var report = GitSyncReport(remote: target.remote, branch: target.branch)
        report.recovered = recovered
        try SyncMerge.requireFolioMerge(git)
        try StoreCommit.refuseOtherStagedFiles(git)
        let attempts = max(1, options.maximumAttempts)
        var delay = options.retryDelay.isFinite ? min(max(options.retryDelay, 0), 8) : 0.25
        for attempt in 1...attempts {
            report.attempts = attempt
            let theirs = try SyncMerge.fetch(git, target)
            try commitAndMerge(git, target, theirs: theirs, store: store, state: state, wait: options.lockWait, report: &report)
            let head = try git.commit("HEAD")
            guard let head, head != theirs else { return report }
            if let theirs, try git.run(["merge-base", "--is-ancestor", head, theirs]).status == 0 { return report }
            let remoteHad = try theirs.map { remote throws(GitSyncError) in try TransactionCensus(git, revision: remote) }
            let sent = try TransactionCensus(git, revision: head).missing(from: remoteHad ?? TransactionCensus(journal: [], history: []))
            switch try SyncPush.push(git, target) {
            case .pushed:
                report.sent = sent
                report.pushed = true
                return report
            case .remoteMoved(let reason):
                guard attempt < attempts else {
                    throw git.failure(
                        .pushRejected,
                        "the remote's \(target.branch) moved on before each of \(attempts) pushes (\(reason)); the store's saves are committed locally: sync again"
                    )
                }
                Thread.sleep(forTimeInterval: delay * Double.random(in: 1...1.5))
                delay = min(delay * 2, 8)
            }
        }
        return report
    }

    /// Commits the store's saves and merges `theirs`, holding the store's writer lock: saves wait
    /// meanwhile, so that the commit holds whole lines and the merge starts from committed files.
    private static func commitAndMerge(
        _ git: SyncGit, _ target: SyncTarget, theirs: String?, store: URL, state: SyncState, wait: TimeInterval,
        report: inout GitSyncReport
    ) throws(GitSyncError) {
        let lock = try StoreWriterLock(store: store, wait: wait) { git.failure(.gitLocked, $0) }
        defer { lock.release() }
        if let subject = try StoreCommit.commit(git) {
            report.commitMessage = report.commitMessage.map { "\($0)\n\(subject)" } ?? subject
        }
        if let theirs { try SyncMerge.merge(git, target, theirs: theirs, state: state, report: &report) }
    }
}
