import Foundation
import FolioStorage

/// `folio sync STORE [--remote NAME] [--branch B]`: commit, fetch, merge with Folio's rules, push.
enum SyncCommand: FolioSubcommand {
    static let spec = CommandSpec(
        name: "sync", abstract: "Commit the store's saves, merge the remote's and push: share a store through git.",
        discussion: """
            Commits the store's own files (manifest, journal, history, snapshots, blobs; nothing else in the work
            tree is staged) with a message counting the new transactions by author, fetches the remote's branch,
            merges it (store files by Folio's rules, in-process: see docs/git.md), and pushes. When the remote
            moved meanwhile, it fetches and merges again, waiting longer each time, up to --attempts. Prints what
            came in, what went out and the conflicting values the merge resolved ('folio conflicts STORE').
            Without --remote and --branch it syncs with the current branch's upstream. Git runs without a shell;
            a remote or branch name starting with '-' is refused. Exits 1 when the sync stopped (the error names
            why: remoteUnreachable, pushRejected, mergeFailed, detachedHead, noUpstream, …); nothing is lost then:
            the saves stay committed locally and the next sync takes up from there.
            """,
        arguments: [.init(name: "STORE", help: "The store directory, inside a git work tree.")],
        options: [
            .option("--remote", value: "NAME", help: "The remote to sync with (default: the upstream's)."),
            .option("--branch", value: "B", help: "The remote's branch to merge and push to (default: the upstream's)."),
            .option("--attempts", value: "N", help: "Pushes to try when the remote moves meanwhile (default 5)."),
        ],
        examples: ["folio sync Trips.folio", "folio sync Trips.folio --remote origin --branch main"])

    static func run(_ arguments: ParsedArguments, console: Console) throws -> Int32 {
        let path = arguments.positionals[0]
        let url = try StoreAccess.directory(path)
        var options = GitSyncOptions(remote: arguments.value("--remote"), branch: arguments.value("--branch"))
        if let attempts = try arguments.integer("--attempts", command: spec.name) {
            guard attempts >= 1 else { throw UsageError("--attempts must be at least 1.", command: spec.name) }
            options.maximumAttempts = attempts
        }
        let report: GitSyncReport
        do {
            report = try GitSync.run(store: url, options: options)
        } catch {
            throw failure(error, path: path)
        }
        print(report, path: path, console: console)
        return ExitCode.success
    }

    /// What the sync did: one line per fact, on standard output; what it mended, on standard error.
    static func print(_ report: GitSyncReport, path: String, console: Console) {
        let target = "\(report.remote)/\(report.branch)"
        for note in report.recovered { console.warning("folio sync: \(note)") }
        console.print(report.commitMessage.map { "Committed \($0)" } ?? "Nothing to commit in \(path).")
        console.print("Received \(describe(report.received, direction: "from \(target)")).")
        for line in report.mergedFiles { console.print("  merged \(line)") }
        if report.pushed {
            console.print(
                "Sent \(describe(report.sent, direction: "to \(target)"))\(report.attempts > 1 ? " (pushed at attempt \(report.attempts))" : "").")
        } else {
            console.print("Nothing to send: \(target) has every commit of this branch.")
        }
        guard report.conflictCount > 0 else { return }
        console.print("\(report.conflictCount) conflicting value(s) resolved:")
        for conflict in report.conflicts {
            let kept = conflict.kept.map(ValueFormatting.json) ?? "(record deleted)"
            console.print(
                "  \(conflict.entity) \(conflict.id) \(conflict.member): kept \(kept), lost \(ValueFormatting.json(conflict.lost)) (transaction \(conflict.lostTransaction))"
            )
        }
        console.print("'folio conflicts \(path)' lists them; '--clear' forgets them.")
    }

    /// `N transaction(s) DIRECTION`, then how many each author saved.
    static func describe(_ transactions: [GitSyncReport.Transaction], direction: String) -> String {
        guard !transactions.isEmpty else { return "no transactions \(direction)" }
        let counts = Dictionary(grouping: transactions) { $0.author ?? "no author" }.map { ($0.key, $0.value.count) }
            .sorted { $0.1 != $1.1 ? $0.1 > $1.1 : $0.0 < $1.0 }
        return "\(transactions.count) transaction(s) \(direction): " + counts.map { "\($0.1) by \($0.0)" }.joined(separator: ", ")
    }

    /// The command's error for a sync that stopped: a usage error for a refused name, else a failure.
    static func failure(_ error: any Error, path: String) -> any Error {
        guard let error = error as? GitSyncError else { return CommandFailure("The sync of \(path) failed: \(error)") }
        if error.code == .invalidName || error.code == .unknownRemote {
            return UsageError("\(error.message).", help: "Name a remote 'git remote' lists and a valid branch name.", command: spec.name)
        }
        var message = "[\(error.code)] \(error.message)."
        if let remote = error.remote { message += " Remote: \(remote)\(error.branch.map { ", branch \($0)" } ?? "")." }
        if let git = error.gitMessage { message += "\ngit: \(git)" }
        return CommandFailure(message, help: help(for: error.code, path: path))
    }

    /// What to do about a stopped sync.
    static func help(for code: GitSyncError.Code, path: String) -> String {
        switch code {
        case .remoteUnreachable: return "Check the network and the remote's URL ('git remote -v'); the saves are committed locally: sync again later."
        case .pushRejected: return "The saves are committed locally; sync again, or ask the remote's owner why it refuses."
        case .notSetUp: return "Run 'folio git-setup', commit .gitattributes and .gitignore, and sync again."
        case .mergeFailed: return "Merge by hand ('git merge'), see docs/git.md, then sync again."
        case .detachedHead: return "Switch to a branch ('git switch main'), then sync again."
        case .noUpstream: return "Name the remote: 'folio sync \(path) --remote origin', or set an upstream with 'git branch --set-upstream-to'."
        default: return "See docs/git.md, 'Sharing a store between machines'."
        }
    }
}
