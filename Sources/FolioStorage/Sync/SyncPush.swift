import Foundation

/// Pushes the local branch to the remote's branch and tells a push the remote refused because it
/// moved meanwhile (worth a fetch, a merge and another try) from one it refused on principle (a hook,
/// a protected branch: reported at once).
enum SyncPush {
    enum Outcome: Equatable {
        case pushed
        /// The remote's branch moved since the fetch; git's reason.
        case remoteMoved(String)
    }

    /// The reasons `git push --porcelain` gives for a remote that moved.
    static let movedReasons = ["non-fast-forward", "fetch first", "stale info", "failed to update ref", "failed to lock", "cannot lock"]

    static func push(_ git: SyncGit, _ target: SyncTarget) throws(GitSyncError) -> Outcome {
        let output = try git.run(["push", "--porcelain", "--quiet", "--", target.remote, "\(target.localBranch):refs/heads/\(target.branch)"])
        if output.status == 0 { return .pushed }
        // `!	SRC:DST	[rejected] (non-fast-forward)` for each refused ref.
        let refused = output.text.split(separator: "\n").filter { $0.hasPrefix("!") }.map(String.init)
        guard let line = refused.first else {
            throw git.failure(.remoteUnreachable, "the remote '\(target.remote)' could not be pushed to", git: output.errors)
        }
        let reason = line.split(separator: "\t").last.map(String.init) ?? line
        if movedReasons.contains(where: reason.contains) { return .remoteMoved(reason) }
        throw git.failure(
            .pushRejected,
            "the remote '\(target.remote)' refused the push to \(target.branch): \(reason); the store's saves are committed locally and go with the next sync that the remote accepts",
            git: output.errors)
    }
}
