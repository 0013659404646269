import Foundation

/// Reads the files of a store's folder at a git revision into a ``GitTreeFileSystem``: `git rev-parse`
/// names the commit, `git ls-tree` lists the folder, one `git cat-file --batch` reads the files. Git
/// reads objects only: nothing is written to the repository, its index or its work tree.
enum GitRevisionReader {
    /// The most bytes `git ls-tree` may answer with.
    static let listingLimit = 1 << 30

    /// The top of the work tree and the store's folder relative to it, for a store's directory in a
    /// work tree (which need not exist now: git is asked in its nearest existing folder).
    static func locate(_ directory: URL, git: GitRunner) throws -> (top: URL, storePath: String) {
        var existing = directory.standardizedFileURL
        var remainder: [String] = []
        var isDirectory: ObjCBool = false
        while !(FileManager.default.fileExists(atPath: existing.path, isDirectory: &isDirectory) && isDirectory.boolValue) {
            let parent = existing.deletingLastPathComponent()
            guard parent.path != existing.path else { break }
            remainder.insert(existing.lastPathComponent, at: 0)
            existing = parent
        }
        let result = try git.run(["rev-parse", "--show-prefix"], in: existing, outputLimit: 1 << 20)
        guard result.status == 0 else { throw failure(result, repository: existing) }
        let prefix = try GitStoreRevision.normalizedStorePath(result.text)
        // The top of the work tree: as many folders up as the prefix has.
        var top = existing.resolvingSymlinksInPath()
        for _ in prefix.split(separator: "/") { top = top.deletingLastPathComponent() }
        let storePath = try GitStoreRevision.normalizedStorePath(([prefix] + remainder).filter { !$0.isEmpty }.joined(separator: "/"))
        return (top, storePath)
    }

    /// Checks that `repository` is a repository itself (bare, or the top of a work tree).
    static func checkRepository(_ repository: URL, git: GitRunner) throws {
        let result = try git.run(["rev-parse", "--git-dir"], in: repository, outputLimit: 1 << 20, ceiling: true)
        guard result.status == 0 else { throw failure(result, repository: repository) }
    }

    /// The full name of the commit `revision` names.
    static func commit(_ revision: String, in repository: URL, ceiling: Bool, git: GitRunner) throws -> String {
        try GitStoreRevision.checkRevision(revision)
        let result = try git.run(
            ["rev-parse", "--verify", "--quiet", "--end-of-options", "\(revision)^{commit}"],
            in: repository, outputLimit: 1 << 10, ceiling: ceiling)
        if result.status == 0, GitTreeListing.isHex(result.text.utf8) { return result.text }
        // `--verify --quiet` exits with 1 for a name that is no commit; a fatal error exits with 128.
        if result.status == 1 {
            let detail = result.errors.isEmpty ? "" : " (git: \(result.errors))"
            throw StorageError(
                .unknownRevision,
                "the repository at \(repository.path) has no commit named \"\(revision.prefix(200))\"\(detail): name a branch, tag or commit it has (git log, git tag)"
            )
        }
        throw failure(result, repository: repository)
    }

    /// The store's files at `source`, read into memory (those under `blobs/` when first read).
    ///
    /// - Throws: ``StorageError/Code/noStoreAtRevision`` when the commit has no such folder or it holds
    ///   no store's file; ``StorageError/Code/gitFailed`` when they add up to more than `maximumBytes`
    ///   or git fails.
    static func files(of source: GitStoreRevision, root: String, maximumBytes: Int, git: GitRunner) throws -> GitTreeFileSystem {
        let tree = source.storePath.isEmpty ? "\(source.commit)^{tree}" : "\(source.commit):\(source.storePath)"
        let result = try git.run(
            ["ls-tree", "--full-tree", "-r", "-z", "-l", tree], in: source.repository, outputLimit: listingLimit,
            ceiling: source.isRepositoryNamed)
        guard result.status == 0 else {
            if result.errors.contains("Not a valid object name") || result.errors.contains("not a tree object") {
                throw noStore(source, "it has no folder \(source.storePath)")
            }
            throw failure(result, repository: source.repository)
        }
        // The snapshot caches are derived files that a read-only store neither needs nor trusts.
        let entries = try GitTreeListing.parse(result.output, tree: source.gitPath(""))
            .filter { !$0.path.hasPrefix("cache/") }
        guard entries.contains(where: { ["manifest.json", "journal.jsonl", "history.jsonl"].contains($0.path) || $0.path.hasPrefix("snapshots/") })
        else {
            throw noStore(source, "its folder holds no manifest.json, journal.jsonl or snapshots")
        }
        let batch = try GitObjectBatch.read(
            try eagerObjects(entries, source: source, maximumBytes: maximumBytes),
            in: source.repository, ceiling: source.isRepositoryNamed, git: git)
        return GitTreeFileSystem(root: root, revision: source, entries: entries, batch: batch, git: git)
    }

    /// The blobs read before the store opens: every file but the store's blobs, and links' targets.
    private static func eagerObjects(_ entries: [GitTreeEntry], source: GitStoreRevision, maximumBytes: Int) throws -> [(object: String, size: Int)] {
        var seen = Set<String>(), objects: [(object: String, size: Int)] = [], total = 0
        for entry in entries where !seen.contains(entry.object) {
            let wanted = entry.kind == .regularFile ? !entry.path.hasPrefix("blobs/") : entry.kind == .symbolicLink && entry.size <= 4096
            guard wanted else { continue }
            seen.insert(entry.object)
            total += entry.size
            guard total <= maximumBytes else {
                throw StorageError(
                    .gitFailed,
                    "the store's files at \(source) add up to more than the \(maximumBytes) bytes a store read from git may have in memory")
            }
            objects.append((entry.object, entry.size))
        }
        return objects
    }

    private static func noStore(_ source: GitStoreRevision, _ reason: String) -> StorageError {
        StorageError(
            .noStoreAtRevision,
            "there is no store at \(source.storePath.isEmpty ? "the top" : source.storePath) of \(source.repository.path) as of \(source.revision) (commit \(source.commit)): \(reason)"
        )
    }

    /// The error a failed git command means.
    static func failure(_ result: GitRunner.Output, repository: URL) -> StorageError {
        if result.errors.contains("not a git repository") {
            return StorageError(.notAGitRepository, "\(repository.path) is not in a git repository (git: \(result.errors))")
        }
        return StorageError(.gitFailed, "git failed in \(repository.path) with status \(result.status): \(result.errors)")
    }
}
