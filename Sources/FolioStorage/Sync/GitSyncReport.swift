import Foundation

/// What a sync of a store with a git remote did (see ``GitSync``).
public struct GitSyncReport: Sendable, Hashable {
    /// One transaction that went out or came in.
    public struct Transaction: Sendable, Hashable {
        /// The transaction's identifier (the `id` `folio log` prints).
        public var id: String
        /// Who saved it (``JournalTransaction/author``).
        public var author: String?
        /// When it was saved.
        public var timestamp: Date
    }

    /// The remote synced with.
    public var remote: String
    /// The remote's branch synced with.
    public var branch: String
    /// The message of the commit that recorded the store's saves, nil when there was nothing to commit.
    public var commitMessage: String?
    /// The transactions the remote did not have before the push.
    public var sent: [Transaction] = []
    /// The transactions the merges brought that this clone did not have.
    public var received: [Transaction] = []
    /// The values the merges did not keep, as the journal merges recorded them (also listed by
    /// `Store.conflicts()` and `folio conflicts` until cleared).
    public var conflicts: [MergeConflict] = []
    /// How many conflicting values the merges resolved, those of snapshot merges included.
    public var conflictCount = 0
    /// One line per store file the sync merged: its path and what its merge did.
    public var mergedFiles: [String] = []
    /// How many times it pushed (more than one when the remote moved in between).
    public var attempts = 0
    /// Whether the remote's branch holds this clone's commit now (false when there was nothing to push).
    public var pushed = false
    /// What the sync found and mended first: a merge a killed sync left, a lock its git left.
    public var recovered: [String] = []

    package init(remote: String, branch: String) {
        self.remote = remote
        self.branch = branch
    }
}

/// How a sync runs.
public struct GitSyncOptions: Sendable, Hashable {
    /// The remote to sync with; nil for the current branch's upstream remote.
    public var remote: String?
    /// The remote's branch to merge and push to; nil for the upstream's branch, or, when only
    /// ``remote`` is given, a branch of the current branch's name.
    public var branch: String?
    /// How many times a push is tried when the remote moved meanwhile (fetching and merging again
    /// before each retry); at least 1.
    public var maximumAttempts = 5
    /// The wait before the second attempt, doubled before each later one (with up to half again at
    /// random, so that clones that collided do not collide again), at most 8 seconds.
    public var retryDelay: TimeInterval = 0.25
    /// How long to wait for git's index lock, or for another sync of the same clone, to go.
    public var lockWait: TimeInterval = 30
    /// The `git` to run; nil for the first on the `PATH`.
    public var gitExecutable: URL?

    /// Options for syncing with `remote` and `branch` (nil: the upstream's).
    public init(remote: String? = nil, branch: String? = nil) {
        self.remote = remote
        self.branch = branch
    }
}
