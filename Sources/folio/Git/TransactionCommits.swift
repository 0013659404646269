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
    /// - Throws: ``GitSetupError/gitFailed(arguments:status:message:)`` when git fails.
    func commit(bringing transactionID: String) throws(GitSetupError) -> Commit? {
        // The needle is the identifier as a journal line spells it; one that JSON would escape is not looked for.
        guard !transactionID.isEmpty, !transactionID.unicodeScalars.contains(where: { $0 == "\"" || $0 == "\\" || $0.value < 0x20 })
        else { return nil }
        // `--topo-order` puts every parent after its children, so that `--reverse` puts the commit that
        // brought the line before those that moved it, even when both have the same date. Textconv is
        // off so that the pickaxe counts the identifier in the files' own bytes.
        let arguments =
            [
                "-c", "log.showSignature=false", "log", "--reverse", "--topo-order", "--no-textconv", "--no-ext-diff", "--no-color",
                "--format=%H%x00%an%x00%aI%x00%s%x00", "-S\"id\":\"\(transactionID)\"",
            ] + (start.map { [$0] } ?? []) + ["--", storePath]
        let output = try repository.checked(arguments)
        let fields = GitRepository.fields(output.stdout)
        guard fields.count >= 4 else { return nil }
        // Each record ends in a NUL then git's newline, which starts the next record's first field.
        func field(_ index: Int) -> String { fields[index].trimmingCharacters(in: .newlines) }
        return Commit(hash: field(0), author: field(1), date: field(2), subject: field(3))
    }

    /// The commit that brought each of `transactionIDs`, by identifier; identifiers no commit holds are left out.
    func commits(bringing transactionIDs: Set<String>) throws(GitSetupError) -> [String: Commit] {
        var result: [String: Commit] = [:]
        // A repository without commits yet has nothing to search (and `git log` fails in it).
        guard try repository.checked(["rev-parse", "--verify", "--quiet", "HEAD"], statuses: [0, 1, 128]).status == 0 else { return result }
        for identifier in transactionIDs.sorted() {
            if let commit = try commit(bringing: identifier) { result[identifier] = commit }
        }
        return result
    }
}
