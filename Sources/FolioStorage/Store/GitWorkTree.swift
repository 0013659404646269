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
        // Bounded to a day; a caller's NaN or negative wait is none, and must not trap.
        let asked = configuration.gitLockWait
        let limit = asked.isNaN ? 0 : min(max(asked, 0), 86_400)
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(limit * 1e9)
        var current: FileStatus? = held
        while current != nil, DispatchTime.now().uptimeNanoseconds < deadline {
            usleep(5_000)
            current = (try? fs.status(atPath: lock)) ?? nil
        }
        if let current {
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
