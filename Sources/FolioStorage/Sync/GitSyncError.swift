import Foundation

/// Why a sync of a store with a git remote stopped (see ``GitSync``).
///
/// Every error names the remote and branch the sync was for when they were known. A sync that throws
/// has lost nothing: the store's saves are in the work tree or in a local commit, a merge it started is
/// undone, and the next sync takes up from there.
///
/// ```swift
/// do { _ = try await container.sync(remote: "origin") }
/// catch let error as SyncError where error.code == .remoteUnreachable { scheduleRetry() }
/// ```
public struct GitSyncError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The kind of problem. New codes may be added; switch with a `default`.
    public var code: Code
    /// What is wrong, and what to do about it.
    public var message: String
    /// The remote the sync was for, when known.
    public var remote: String?
    /// The remote's branch the sync was for, when known.
    public var branch: String?
    /// What git said, when the error comes from a git command.
    public var gitMessage: String?

    package init(_ code: Code, _ message: String, remote: String? = nil, branch: String? = nil, gitMessage: String? = nil) {
        self.code = code
        self.message = message
        self.remote = remote
        self.branch = branch
        self.gitMessage = gitMessage.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// `[code] message (remote R, branch B)`, then git's message.
    public var description: String {
        var text = "[\(code.rawValue)] \(message)"
        let target = [remote.map { "remote \($0)" }, branch.map { "branch \($0)" }].compactMap { $0 }
        if !target.isEmpty { text += " (\(target.joined(separator: ", ")))" }
        if let gitMessage { text += "\ngit: \(gitMessage)" }
        return text
    }
}

extension GitSyncError {
    /// A stable identifier for a kind of sync problem.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The code's stable name, as printed in descriptions.
        public var rawValue: String
        /// Creates a code from its name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The code's name.
        public var description: String { rawValue }

        /// No `git` executable was found on the `PATH`.
        public static let gitNotFound = Code(rawValue: "gitNotFound")
        /// The store's directory is not inside a git work tree, or is no store.
        public static let notInWorkTree = Code(rawValue: "notInWorkTree")
        /// A remote or branch name was refused before git ran: it starts with `-`, holds a control
        /// character, or is no valid branch name.
        public static let invalidName = Code(rawValue: "invalidName")
        /// The repository has no remote of that name.
        public static let unknownRemote = Code(rawValue: "unknownRemote")
        /// `HEAD` names a commit, not a branch: there is no branch to commit to and push.
        public static let detachedHead = Code(rawValue: "detachedHead")
        /// No remote or branch was named and the current branch has no upstream.
        public static let noUpstream = Code(rawValue: "noUpstream")
        /// The store's files are not merged by Folio's rules: `.gitattributes` lacks `merge=folio` for
        /// them (run `folio git-setup` and commit what it writes).
        public static let notSetUp = Code(rawValue: "notSetUp")
        /// A merge, rebase, cherry-pick or revert not started by a sync is in progress.
        public static let operationInProgress = Code(rawValue: "operationInProgress")
        /// Files outside the store are staged: a sync commits and merges only the store's files.
        public static let stagedChanges = Code(rawValue: "stagedChanges")
        /// Git holds its index lock and did not release it.
        public static let gitLocked = Code(rawValue: "gitLocked")
        /// The remote could not be reached or read (no such repository, no network, no access).
        public static let remoteUnreachable = Code(rawValue: "remoteUnreachable")
        /// The remote refused the push (a hook or a rule), or it kept moving for every attempt.
        public static let pushRejected = Code(rawValue: "pushRejected")
        /// The merge stopped: a file outside the stores conflicts, local changes would be overwritten, or
        /// a store file cannot be merged (see `docs/git.md`). The merge was undone.
        public static let mergeFailed = Code(rawValue: "mergeFailed")
        /// Git failed otherwise (its message is in ``GitSyncError/gitMessage``).
        public static let gitFailed = Code(rawValue: "gitFailed")
    }
}
