import Foundation

/// Commits the store's own files, and nothing else: its manifest, journal, history, snapshots and
/// blobs, named one by one (not its lock, its `cache/`, temporary files of writes or what recovery and
/// `folio repair` leave), whatever `.gitignore` says.
enum StoreCommit {
    /// Whether `name` (relative to the store's directory) is one of a store's own files.
    static func isOwnFile(_ name: String) -> Bool {
        let parts = name.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        switch parts.count {
        case 1: return ["manifest.json", "journal.jsonl", "history.jsonl"].contains(parts[0])
        case 2: return parts[0] == "snapshots" && parts[1].hasSuffix(".jsonl") && EntityName.isValid(String(parts[1].dropLast(6)))
        case 3:
            return parts[0] == "blobs" && parts[1].count == 2 && parts[2].count == 64 && parts[2].hasPrefix(parts[1])
                && parts[2].utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }
        default: return false
        }
    }

    /// The store's own files, relative to the top: those in the work tree and those git tracks (a
    /// tracked file that is gone is committed as deleted).
    static func ownFiles(_ git: SyncGit) throws(GitSyncError) -> [String] {
        let directory = git.top.appendingPathComponent(git.storePath).path
        var names = Set<String>()
        for name in ["manifest.json", "journal.jsonl", "history.jsonl"]
        where FileManager.default.fileExists(atPath: "\(directory)/\(name)") {
            names.insert(name)
        }
        for folder in ["snapshots", "blobs"] {
            let root = URL(fileURLWithPath: "\(directory)/\(folder)")
            guard let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey]) else { continue }
            for case let url as URL in walker where (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true {
                let relative = folder + url.standardizedFileURL.path.dropFirst(root.standardizedFileURL.path.count)
                if isOwnFile(relative) { names.insert(relative) }
            }
        }
        let prefix = git.storePath.isEmpty ? "" : git.storePath + "/"
        var arguments = ["ls-files", "-z", "--"]
        if !git.storePath.isEmpty { arguments.append(git.storePath) }
        for path in SyncGit.fields(try git.checked(arguments).output) where path.hasPrefix(prefix) {
            let relative = String(path.dropFirst(prefix.count))
            if isOwnFile(relative) { names.insert(relative) }
        }
        return names.sorted().map(git.storeFile)
    }

    /// Stages the store's own files and commits them when they changed, with a message counting the
    /// new transactions by author; returns the message, or nil when there was nothing to commit.
    static func commit(_ git: SyncGit) throws(GitSyncError) -> String? {
        let files = try ownFiles(git)
        guard !files.isEmpty else { return nil }
        try git.checked(["add", "-A", "--"] + files)
        let staged = try git.checked(["diff", "--cached", "--quiet", "--"] + files, statuses: [0, 1])
        guard staged.status == 1 else { return nil }
        let hasHead = try git.commit("HEAD") != nil
        let before = try TransactionCensus(git, revision: hasHead ? "HEAD" : nil)
        let now = try TransactionCensus(git, revision: nil)
        let new = hasHead ? now.missing(from: before) : now.missing(from: TransactionCensus(journal: [], history: []))
        let name = git.storePath.isEmpty ? "store" : git.storePath
        let subject = TransactionCensus.commitSubject(store: name, transactions: new)
        let message = "\(subject)\n\nCommitted by folio sync: the store's own files only."
        try git.checked(["commit", "-q", "-m", message, "--"] + files)
        return subject
    }

    /// Throws when files outside the store's own are staged: a sync would commit or merge over them.
    static func refuseOtherStagedFiles(_ git: SyncGit) throws(GitSyncError) {
        guard try git.commit("HEAD") != nil else { return }
        let own = Set(try ownFiles(git))
        let staged = SyncGit.fields(try git.checked(["diff", "--cached", "--name-only", "-z"]).output).filter { !own.contains($0) }
        guard staged.isEmpty else {
            let shown = staged.prefix(5).joined(separator: ", ") + (staged.count > 5 ? ", …" : "")
            throw git.failure(
                .stagedChanges,
                "files outside the store are staged (\(shown)): commit them or unstage them ('git restore --staged'); a sync commits only the store's files"
            )
        }
    }
}
