import Foundation

/// The work tree a sync works in and the `git` it runs there: always with an argument list, never a
/// shell, in the work tree's top directory.
///
/// Each git run is written into the sync's state file first (``SyncState``), so that the next sync
/// knows which git a killed one left running, and whose `index.lock` it may have left behind.
struct SyncGit {
    /// `GIT_*` variables passed on to git: how to reach a remote and who commits. The others (which
    /// could make git work on another repository) are dropped, as ``GitRunner`` does.
    static let keptVariables: Set<String> = [
        "GIT_SSH", "GIT_SSH_COMMAND", "GIT_SSH_VARIANT", "GIT_ASKPASS", "GIT_PROXY_COMMAND", "GIT_HTTP_USER_AGENT",
        "GIT_SSL_NO_VERIFY", "GIT_SSL_CAINFO", "GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL",
        "GIT_CONFIG_GLOBAL", "GIT_CONFIG_NOSYSTEM",
    ]
    /// The most output kept from a git command that is not reading a store file.
    static let outputLimit = 64 << 20

    let runner: GitRunner
    /// The work tree's top directory, as git prints it.
    let top: URL
    /// The git directory of the work tree (a linked worktree's own).
    let gitDirectory: URL
    /// The store's directory relative to ``top``, without a trailing `/` (empty for the top itself).
    let storePath: String
    /// What errors name.
    var remote: String?
    var branch: String?
    /// Where each git run is noted before it starts.
    var state: SyncState?

    /// The work tree holding the store in `store`.
    ///
    /// - Throws: ``GitSyncError/Code/gitNotFound``, ``GitSyncError/Code/notInWorkTree``.
    init(store: URL, options: GitSyncOptions) throws(GitSyncError) {
        do {
            runner = try GitRunner(executable: options.gitExecutable, keeping: Self.keptVariables)
        } catch {
            throw GitSyncError(
                .gitNotFound, "no git to run: \((error as? StorageError)?.message ?? "\(error)")", remote: options.remote, branch: options.branch)
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: store.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw GitSyncError(.notInWorkTree, "\(store.path) is not a directory: give the store's directory")
        }
        let output: GitRunner.Output
        do {
            output = try runner.run(
                ["rev-parse", "--show-toplevel", "--absolute-git-dir", "--show-prefix"], in: store, outputLimit: Self.outputLimit)
        } catch {
            throw GitSyncError(.gitNotFound, "git could not run in \(store.path): \(error)")
        }
        let lines = output.text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard output.status == 0, lines.count >= 2, !lines[0].isEmpty else {
            throw GitSyncError(
                .notInWorkTree, "\(store.path) is not inside a git work tree: clone the repository that holds the store, or 'git init' one",
                gitMessage: output.errors)
        }
        top = URL(fileURLWithPath: lines[0], isDirectory: true)
        gitDirectory = URL(fileURLWithPath: lines[1], isDirectory: true)
        var prefix = lines.count > 2 ? lines[2] : ""
        while prefix.hasSuffix("/") { prefix.removeLast() }
        storePath = prefix
        remote = options.remote
        branch = options.branch
    }

    /// A path of the store's, relative to the top: `name` inside the store's directory.
    func storeFile(_ name: String) -> String { storePath.isEmpty ? name : "\(storePath)/\(name)" }

    /// Runs `git arguments` in the top directory and returns what it did, whatever its status.
    func run(_ arguments: [String], input: [UInt8]? = nil, outputLimit: Int = SyncGit.outputLimit) throws(GitSyncError) -> GitRunner.Output {
        do {
            return try runner.run(arguments, in: top, input: input, outputLimit: outputLimit) { pid in state?.noteGit(pid: pid, arguments: arguments)
            }
        } catch {
            throw failure(.gitFailed, "git \(arguments.first ?? "") could not run: \(error)")
        }
    }

    /// Runs git and requires one of `statuses`; otherwise throws `code` with git's message.
    @discardableResult
    func checked(
        _ arguments: [String], statuses: Set<Int32> = [0], code: GitSyncError.Code = .gitFailed, input: [UInt8]? = nil,
        outputLimit: Int = SyncGit.outputLimit
    ) throws(GitSyncError) -> GitRunner.Output {
        let output = try run(arguments, input: input, outputLimit: outputLimit)
        guard statuses.contains(output.status) else {
            throw failure(code, "'git \(arguments.joined(separator: " "))' failed with exit \(output.status)", git: output.errors)
        }
        return output
    }

    /// An error naming this sync's remote and branch.
    func failure(_ code: GitSyncError.Code, _ message: String, git: String? = nil) -> GitSyncError {
        GitSyncError(code, message, remote: remote, branch: branch, gitMessage: git)
    }

    /// The NUL-terminated fields of git's `-z` output.
    static func fields(_ bytes: [UInt8]) -> [String] {
        var fields = bytes.split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        if fields.last == "" { fields.removeLast() }
        return fields
    }

    /// The commit `revision` names, or nil when there is none.
    func commit(_ revision: String) throws(GitSyncError) -> String? {
        let output = try run(["rev-parse", "-q", "--verify", "--end-of-options", "\(revision)^{commit}"])
        return output.status == 0 && !output.text.isEmpty ? output.text : nil
    }
}
