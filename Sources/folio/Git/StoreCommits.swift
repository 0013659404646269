import Foundation

/// The git commits that touched a store's directory, newest first, as `git log -- STORE` lists them.
///
/// Git runs with explicit arguments (never a shell), the store's path read as a literal path (no
/// pathspec magic) and an explicit output format, so that no configuration changes what is parsed.
struct StoreCommits {
    typealias Commit = GitCommit

    let repository: GitRepository
    /// The store directory, relative to the work tree's top (`.` for the top itself).
    let storePath: String

    init(_ commits: TransactionCommits) {
        repository = commits.repository
        storePath = commits.storePath
    }

    /// Whether the repository has a commit yet (`git log` fails in one that has none).
    func hasCommits() throws(GitSetupError) -> Bool {
        try repository.checked(["rev-parse", "--verify", "--quiet", "HEAD"], statuses: [0, 1, 128]).status == 0
    }

    /// How many commits reachable from `HEAD` touched the store; `HEAD` must name a commit (``hasCommits()``).
    func count() throws(GitSetupError) -> Int {
        let output = try repository.checked(["--literal-pathspecs", "rev-list", "--count", "HEAD", "--", storePath])
        return Int(String(decoding: output.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    }

    /// At most `limit` commits that touched the store, after skipping the `skip` newest; `HEAD` must
    /// name a commit (``hasCommits()``).
    func commits(skip: Int, limit: Int) throws(GitSetupError) -> [Commit] {
        guard limit > 0 else { return [] }
        let arguments = [
            "-c", "log.showSignature=false", "--literal-pathspecs", "log", "-z", "--no-color", "--no-decorate",
            "--format=%H%x00%P%x00%an%x00%aI%x00%s", "--skip=\(max(0, skip))", "--max-count=\(limit)", "HEAD", "--", storePath,
        ]
        let fields = GitRepository.fields(try repository.checked(arguments).stdout)
        // Five fields a commit; `-z` ends each commit with a NUL, so the fields follow one another.
        var result: [Commit] = []
        var index = 0
        while index + 4 < fields.count {
            let parents = fields[index + 1].split(separator: " ").map(String.init)
            result.append(
                Commit(hash: fields[index], parents: parents, author: fields[index + 2], date: fields[index + 3], subject: fields[index + 4]))
            index += 5
        }
        return result
    }
}
