import Dispatch
import Foundation
@_spi(FolioEngine) import FolioStorage

/// What ``ModelContainer/sync(remote:branch:)`` did: the transactions sent and received, the
/// conflicting values the merge resolved, the attempts it took.
public typealias SyncReport = GitSyncReport
/// Why ``ModelContainer/sync(remote:branch:)`` stopped; its `code` says why, and it names the remote
/// and branch.
public typealias SyncError = GitSyncError
/// How ``ModelContainer/sync(options:)`` runs: the remote and branch, the attempts, the delay between
/// them, the `git` to run.
public typealias SyncOptions = GitSyncOptions

extension ModelContainer {
    /// Shares the container's store through git: commits the store's own files, fetches `branch` of
    /// `remote`, merges it with Folio's rules, and pushes, fetching and merging again when the remote
    /// moved meanwhile (see `docs/git.md`, "Sharing a store between machines").
    ///
    /// The store's directory must be inside a git work tree whose `.gitattributes` gives its files
    /// `merge=folio` (`folio git-setup` writes it); no `folio` executable is needed. Git runs as a child
    /// process, never through a shell, on a thread of its own: the caller's actor is free meanwhile.
    /// When the merge brought transactions, the container reads them before this returns, and its
    /// observers (``ResultsObserver``, ``HistoryObserver``, the history stream) report them.
    ///
    /// ```swift
    /// let report = try await container.sync(remote: "origin")
    /// print("\(report.received.count) new, \(report.conflictCount) conflicting value(s)")
    /// ```
    ///
    /// - Parameters:
    ///   - remote: the remote; nil for the current branch's upstream remote.
    ///   - branch: the remote's branch; nil for the upstream's, or, with only `remote`, the current
    ///     branch's name.
    /// - Throws: ``SyncError``: the remote cannot be reached or refused the push, `HEAD` is detached,
    ///   there is no upstream, a name is refused, a merge is in progress, files outside the store are
    ///   staged, or the merge stopped (and was undone). Nothing is lost: the saves stay committed
    ///   locally. A container over a git revision or in memory throws `notInWorkTree`.
    public func sync(remote: String? = nil, branch: String? = nil) async throws -> SyncReport {
        try await sync(options: GitSyncOptions(remote: remote, branch: branch))
    }

    /// ``sync(remote:branch:)`` with every option of ``SyncOptions``: attempts, delays, the `git`.
    public func sync(options: SyncOptions) async throws -> SyncReport {
        guard configuration.gitSource == nil, !configuration.isStoredInMemoryOnly else {
            throw SyncError(.notInWorkTree, "only a store on disk is synced, not one read from a git revision or kept in memory")
        }
        let directory = configuration.url
        let report = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<SyncReport, any Error>) in
            // Git blocks while it runs: on a thread of its own, not the caller's actor or the shared pool.
            DispatchQueue.global(qos: .utility).async {
                continuation.resume(with: Result { try GitSync.run(store: directory, options: options) })
            }
        }
        // Read what the merge brought now, so that the next fetch sees it and observers hear of it.
        try? syncIndex(fromDisk: true)
        changeHubStorage.withLock { $0 }?.publish(readingDisk: true)
        return report
    }
}
