import Foundation

/// The branch a sync commits to and the remote branch it merges and pushes to.
///
/// Names a caller gives are checked before any git command sees them: one that starts with `-` (git
/// could read it as an option), holds a control character, is no remote of the repository or no valid
/// branch name is refused. Git is only ever given them as arguments, never through a shell.
struct SyncTarget: Equatable {
    /// The remote, as the repository names it.
    var remote: String
    /// The remote's branch, without `refs/heads/`.
    var branch: String
    /// The local branch `HEAD` is on, in full (`refs/heads/main`).
    var localBranch: String

    /// The remote branch's tracking ref this sync fetches into.
    var trackingRef: String { "refs/remotes/\(remote)/\(branch)" }

    /// Works out the target from `options` and the current branch's upstream.
    ///
    /// - Throws: ``GitSyncError/Code/invalidName``, ``GitSyncError/Code/detachedHead``,
    ///   ``GitSyncError/Code/noUpstream``, ``GitSyncError/Code/unknownRemote``.
    static func resolve(_ git: SyncGit, options: GitSyncOptions) throws(GitSyncError) -> SyncTarget {
        if let remote = options.remote { try checkName(remote, kind: "remote", git) }
        if let branch = options.branch { try checkName(branch, kind: "branch", git) }
        let head = try git.run(["symbolic-ref", "-q", "HEAD"])
        guard head.status == 0, head.text.hasPrefix("refs/heads/") else {
            throw git.failure(
                .detachedHead,
                "HEAD in \(git.top.path) is detached (it names a commit, not a branch): 'git switch BRANCH' first, since a sync commits to the current branch"
            )
        }
        let local = head.text
        let localName = String(local.dropFirst("refs/heads/".count))
        let upstreamRemote = try configValue("branch.\(localName).remote", git)
        let upstreamMerge = try configValue("branch.\(localName).merge", git)
        guard let remote = options.remote ?? upstreamRemote else {
            throw git.failure(
                .noUpstream,
                "the branch \(localName) has no upstream, and no remote was named: name one (folio sync STORE --remote origin), or set it with 'git branch --set-upstream-to'"
            )
        }
        let upstreamBranch = upstreamRemote == remote ? upstreamMerge.map { $0.hasPrefix("refs/heads/") ? String($0.dropFirst(11)) : $0 } : nil
        let branch = options.branch ?? upstreamBranch ?? localName
        var named = git
        named.remote = remote
        named.branch = branch
        let remotes = try named.checked(["remote"]).text.split(separator: "\n").map(String.init)
        guard remotes.contains(remote) else {
            throw named.failure(
                .unknownRemote,
                "the repository at \(git.top.path) has no remote named '\(remote)' (it has: \(remotes.isEmpty ? "none" : remotes.joined(separator: ", "))); add it with 'git remote add'"
            )
        }
        try checkName(branch, kind: "branch", named)
        guard try named.run(["check-ref-format", "refs/heads/\(branch)"]).status == 0 else {
            throw named.failure(.invalidName, "'\(branch)' is not a valid branch name (see 'git check-ref-format')")
        }
        return SyncTarget(remote: remote, branch: branch, localBranch: local)
    }

    /// Refuses a name that git could read as an option or that holds a control character.
    static func checkName(_ name: String, kind: String, _ git: SyncGit) throws(GitSyncError) {
        if name.isEmpty { throw git.failure(.invalidName, "the \(kind) name is empty") }
        if name.hasPrefix("-") { throw git.failure(.invalidName, "the \(kind) name '\(name)' starts with '-', which git would read as an option") }
        if name.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            throw git.failure(.invalidName, "the \(kind) name \(name.debugDescription) holds a control character")
        }
    }

    /// The value of a configuration key, or nil when it is not set.
    private static func configValue(_ key: String, _ git: SyncGit) throws(GitSyncError) -> String? {
        let output = try git.checked(["config", "--get", key], statuses: [0, 1])
        return output.status == 0 && !output.text.isEmpty ? output.text : nil
    }
}
