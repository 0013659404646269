import Foundation
import FolioStorage

/// The git commits that brought a store's transactions: for a transaction, the oldest commit whose
/// diff of the store's files changes how many lines carry its journal identifier (`"id":"UUID"`).
///
/// A transaction's line first appears in the commit that brought it; later commits move it (a
/// compaction copies it to `history.jsonl`) or rewrite its sequence (a merge), but only after. Git does
/// not diff merge commits by default, so a transaction a merge brought from the other side is found in
/// that side's commit. Git runs with explicit arguments (never a shell).
struct TransactionCommits {
    typealias Commit = GitCommit

    let repository: GitRepository
    /// The store directory, relative to the work tree's top (`.` for the top itself).
    let storePath: String
    /// The commit whose history is searched; nil for `HEAD`.
    var start: String? = nil

    /// The repository and commit a store was read from (`--at REVISION`), a bare one included.
    static func find(revision: GitStoreRevision, environment: [String: String] = ProcessInfo.processInfo.environment) -> TransactionCommits? {
        guard let git = GitRepository.executable(named: "git", path: environment["PATH"] ?? "/usr/bin:/bin") else { return nil }
        return TransactionCommits(
            repository: GitRepository(git: git, top: revision.repository.path),
            storePath: revision.storePath.isEmpty ? "." : revision.storePath, start: revision.commit)
    }

    /// The work tree holding the store at `directory`; nil when git is missing or the store is not in a
    /// work tree (a bare clone has no store directory to point at).
    static func find(storeDirectory directory: URL) -> TransactionCommits? {
        guard let real = FilePaths.real(directory.path), let repository = try? GitRepository.find(from: real),
            let top = FilePaths.real(repository.top)
        else { return nil }
        let relative: String
        if real == top {
            relative = "."
        } else if real.hasPrefix(top + "/") {
            relative = String(real.dropFirst(top.count + 1))
        } else {
            return nil
        }
        return TransactionCommits(repository: repository, storePath: relative)
    }

    /// The commit that brought the transaction with journal identifier `transactionID`; nil when no
    /// commit holds it (written since the last commit).
    ///
    /// A transaction's line is committed first in `journal.jsonl`, unless the store compacted before the
    /// commit, and moves only later (to `history.jsonl`): the journal's versions, small, are searched
    /// first. A transaction found only in `history.jsonl` came by the one commit that changed that file,
    /// when only one did and the store's journal and history are those of the starting commit; otherwise
    /// every version of the store's files is searched.
    ///
    /// - Throws: ``GitSetupError/gitFailed(arguments:status:message:)`` when git fails.
    func commit(bringing transactionID: String, prepared: Preparation) throws(GitSetupError) -> Commit? {
        // The needle is the identifier as a journal line spells it; one that JSON would escape is not looked for.
        guard prepared.hasCommits, !transactionID.isEmpty,
            !transactionID.unicodeScalars.contains(where: { $0 == "\"" || $0 == "\\" || $0.value < 0x20 })
        else { return nil }
        if let commit = try oldestCommit(changingCountOf: transactionID, in: file("journal.jsonl")) { return commit }
        if let commit = prepared.historyCommit { return commit }
        return try oldestCommit(changingCountOf: transactionID, in: storePath)
    }

    /// What the search of every transaction needs, found once, and so (by blame) while the store is read:
    /// whether there is a commit to search from, and the one commit that changed `history.jsonl`.
    struct Preparation: Sendable {
        /// Whether the starting commit exists (a repository without commits has nothing to search).
        var hasCommits: Bool
        /// ``onlyCommitChangingHistory()``'s commit, when there is one.
        var historyCommit: Commit?
    }

    /// Finds what ``Preparation`` holds.
    ///
    /// - Throws: ``GitSetupError/gitFailed(arguments:status:message:)`` when git fails.
    func prepare() throws(GitSetupError) -> Preparation {
        // A starting revision was resolved to a commit already; `git log` fails in a repository without one.
        if start == nil, try repository.checked(["rev-parse", "--verify", "--quiet", "HEAD"], statuses: [0, 1, 128]).status != 0 {
            return Preparation(hasCommits: false)
        }
        return Preparation(hasCommits: true, historyCommit: try onlyCommitChangingHistory())
    }

    /// The oldest commit whose diff of `path` changes how many lines carry the identifier; nil for none.
    private func oldestCommit(changingCountOf transactionID: String, in path: String) throws(GitSetupError) -> Commit? {
        // `--topo-order` puts every parent after its children, so that `--reverse` puts the commit that
        // brought the line before those that moved it, even when both have the same date. Textconv is
        // off so that the pickaxe counts the identifier in the files' own bytes.
        let arguments =
            [
                "-c", "log.showSignature=false", "log", "--reverse", "--topo-order", "--no-textconv", "--no-ext-diff", "--no-color",
                "--format=\(Self.format)", "-S\"id\":\"\(transactionID)\"",
            ] + (start.map { [$0] } ?? []) + ["--", path]
        return Self.firstCommit(in: try repository.checked(arguments).stdout)
    }

    /// The commit that changed `history.jsonl`, when exactly one in the starting commit's past did and
    /// the work tree's journal and history (for a store read from the work tree) are the starting
    /// commit's: then a transaction no committed journal held came with that commit.
    private func onlyCommitChangingHistory() throws(GitSetupError) -> Commit? {
        let listed = try repository.checked(
            ["-c", "log.showSignature=false", "log", "--format=\(Self.format)", "-n", "2", start ?? "HEAD", "--", file("history.jsonl")])
        guard GitRepository.fields(listed.stdout).count / 4 == 1, let commit = Self.firstCommit(in: listed.stdout) else { return nil }
        guard start == nil else { return commit }
        let unchanged = try repository.checked(
            ["diff", "--quiet", "--no-ext-diff", "--no-textconv", "HEAD", "--", file("journal.jsonl"), file("history.jsonl")], statuses: [0, 1])
        return unchanged.status == 0 ? commit : nil
    }

    /// The path of a store file relative to the work tree's top.
    private func file(_ name: String) -> String { storePath == "." ? name : "\(storePath)/\(name)" }

    /// Four fields per commit, each ended by a NUL.
    private static let format = "%H%x00%an%x00%aI%x00%s%x00"

    /// The first commit of `git log` output in ``format``.
    private static func firstCommit(in output: Data) -> Commit? {
        let fields = GitRepository.fields(output)
        guard fields.count >= 4 else { return nil }
        // Each record ends in a NUL then git's newline, which starts the next record's first field.
        func field(_ index: Int) -> String { fields[index].trimmingCharacters(in: .newlines) }
        return Commit(hash: field(0), author: field(1), date: field(2), subject: field(3))
    }

    /// The commit that brought each of `transactionIDs`, by identifier; identifiers no commit holds are
    /// left out. `prepared` is what ``prepare()`` found, when it ran already.
    func commits(bringing transactionIDs: Set<String>, prepared: Preparation? = nil) throws(GitSetupError) -> [String: Commit] {
        var result: [String: Commit] = [:]
        guard !transactionIDs.isEmpty else { return result }
        let ready: Preparation
        if let prepared { ready = prepared } else { ready = try prepare() }
        for identifier in transactionIDs.sorted() {
            if let commit = try commit(bringing: identifier, prepared: ready) { result[identifier] = commit }
        }
        return result
    }
}
