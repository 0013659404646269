import Foundation

/// The git work tree a store's directory is in, as far as the store needs to know it: that it is one
/// (clones then allocate identifiers in blocks of their own), and where git keeps the lock it holds
/// while it rewrites the work tree's files.
///
/// `git checkout`, `merge`, `pull`, `reset` and `rebase` hold `index.lock` in the repository's git
/// directory while they replace the store's files one by one, each by deleting it and writing a new one.
/// A store that read its files meanwhile could see some replaced and some not, or a file git is still
/// writing; a save could take git's unfinished last line for the torn tail of a crashed save and cut it
/// off. So the store waits for the lock to go before it reads replaced files or writes.
struct GitWorkTree: Sendable, Equatable {
    /// `index.lock` in the git directory: `.git/index.lock`, or a linked worktree's or submodule's own
    /// (the directory a `.git` file names); nil when a `.git` file cannot be read.
    var indexLock: String?

    /// The work tree that holds `directory` (it or a folder above it holds `.git`), or nil.
    static func containing(_ directory: String, fileSystem fs: any FileSystem) -> GitWorkTree? {
        var path = fs.resolvedPath(directory) ?? directory
        while true {
            let dotGit = "\(path)/.git"
            if let status = (try? fs.status(atPath: dotGit)) ?? nil {
                if status.isDirectory { return GitWorkTree(indexLock: "\(dotGit)/index.lock") }
                return GitWorkTree(indexLock: gitDirectory(namedIn: dotGit, fileSystem: fs).map { "\($0)/index.lock" })
            }
            let parent = PosixFileSystem.directory(of: path)
            if parent == path || parent.isEmpty { return nil }
            path = parent
        }
    }

    /// Polls the lock at `lock`, found `held`, until it goes or `seconds` pass (at most a day; NaN or a
    /// negative wait is none, and does not trap); its status if it is still there.
    static func wait(for lock: String, held: FileStatus, seconds: Double, fileSystem fs: any FileSystem) -> FileStatus? {
        let limit = seconds.isNaN ? 0 : min(max(seconds, 0), 86_400)
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(limit * 1e9)
        var current: FileStatus? = held
        while current != nil, DispatchTime.now().uptimeNanoseconds < deadline {
            usleep(5_000)
            current = (try? fs.status(atPath: lock)) ?? nil
        }
        return current
    }

    /// The git directory a `.git` file names (`gitdir: PATH`, relative to the file's folder or absolute).
    private static func gitDirectory(namedIn file: String, fileSystem fs: any FileSystem) -> String? {
        guard let bytes = try? fs.readSmallFile(file, limit: 4096) else { return nil }
        let text = String(decoding: bytes, as: UTF8.self)
        guard let line = text.split(whereSeparator: \.isNewline).first, line.hasPrefix("gitdir: ") else { return nil }
        let named = String(line.dropFirst("gitdir: ".count))
        guard !named.isEmpty else { return nil }
        return named.hasPrefix("/") ? named : "\(PosixFileSystem.directory(of: file))/\(named)"
    }
}

extension Store {
    /// Waits while git holds the index lock of the work tree that holds the store at `directory`, up
    /// to `seconds`: for a reader about to open the store, so that it does not read files git is
    /// replacing one by one (an open does not wait; a store's refresh and writes do).
    ///
    /// - Returns: whether the lock is still held after the wait (left behind by a killed git, or git is
    ///   slower than the wait); false when the store is in no work tree.
    package static func waitForGitBeforeReading(at directory: URL, seconds: Double) -> Bool {
        let fs = PosixFileSystem()
        guard let lock = GitWorkTree.containing(directory.path, fileSystem: fs)?.indexLock,
            let held = (try? fs.status(atPath: lock)) ?? nil
        else { return false }
        return GitWorkTree.wait(for: lock, held: held, seconds: seconds, fileSystem: fs) != nil
    }

    /// The git work tree the store's directory is in, looked up once.
    func gitWorkTree(_ journal: inout JournalWriter) -> GitWorkTree? {
        guard let paths else { return nil }
        if let known = journal.gitWorkTree { return known }
        let found = GitWorkTree.containing(paths.directory, fileSystem: fs)
        journal.gitWorkTree = .some(found)
        return found
    }

    /// Waits while git holds its index lock in the work tree the store is in (see ``GitWorkTree``), up
    /// to ``StoreConfiguration/gitLockWait``. A lock that outlasts the wait is not waited for again.
    ///
    /// - Returns: whether it waited, so that the caller reads the files' condition again.
    func waitWhileGitRewritesWorkTree(_ journal: inout JournalWriter) -> Bool {
        guard let lock = gitWorkTree(&journal)?.indexLock, let held = (try? fs.status(atPath: lock)) ?? nil,
            held != journal.abandonedGitLock
        else { return false }
        if let current = GitWorkTree.wait(for: lock, held: held, seconds: configuration.gitLockWait, fileSystem: fs) {
            journal.abandonedGitLock = current
            withReadState {
                $0.warnings.append(
                    "git's \(lock) was still there after waiting \(configuration.gitLockWait) s for it; went on, taking it for a lock a stopped git left behind (remove it if no git command is running)"
                )
            }
        }
        return true
    }
}
