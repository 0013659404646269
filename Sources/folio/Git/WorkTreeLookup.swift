import Foundation

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
