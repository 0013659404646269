import Foundation
import FolioStorage

extension TransactionCommits {
    /// The work tree holding the store at `directory`, as ``find(storeDirectory:)`` finds it, but without
    /// running git when no folder from the store's up to `/` holds a `.git` (and `GIT_DIR` is not set):
    /// such a store is in no work tree, and pages that look for commits on every load run no process.
    static func findInWorkTree(
        storeDirectory directory: URL,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> TransactionCommits? {
        guard environment["GIT_DIR"] != nil || hasGitFolderAbove(directory) else { return nil }
        return find(storeDirectory: directory)
    }

    /// Whether `directory` or a folder above it holds a `.git` file or folder.
    static func hasGitFolderAbove(_ directory: URL) -> Bool {
        guard var path = FilePaths.real(directory.path) else { return false }
        while true {
            if FileManager.default.fileExists(atPath: path + (path.hasSuffix("/") ? "" : "/") + ".git") { return true }
            guard path != "/", let slash = path.lastIndex(of: "/") else { return false }
            path = slash == path.startIndex ? "/" : String(path[..<slash])
        }
    }
}

/// The work tree holding a store and ``TransactionCommits/prepare()``'s answer, found on another thread
/// while the caller reads the store: the git processes they run overlap the reading.
final class WorkTreeSearch: Sendable {
    /// What was found: nil outside a work tree.
    typealias Found = (repository: TransactionCommits, prepared: Result<TransactionCommits.Preparation, GitSetupError>)

    private let done = DispatchGroup()
    private let found = LockedState<Found?>(nil)

    private init() {}

    /// Starts looking for the work tree holding the store at `directory`.
    static func start(storeDirectory directory: URL) -> WorkTreeSearch {
        let search = WorkTreeSearch()
        search.done.enter()
        DispatchQueue.global().async {
            defer { search.done.leave() }
            guard let repository = TransactionCommits.findInWorkTree(storeDirectory: directory) else { return }
            let prepared = Result { () throws(GitSetupError) in try repository.prepare() }
            search.found.withLock { $0 = (repository, prepared) }
        }
        return search
    }

    /// Waits for the search; nil when the store is in no work tree.
    func wait() -> Found? {
        done.wait()
        return found.withLock { $0 }
    }
}
