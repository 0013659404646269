import Foundation

/// Where a store read from git comes from: a commit of a repository, and the store's folder in it.
package struct GitStoreRevision: Sendable, Hashable, CustomStringConvertible {
    /// The revision as the caller named it (`HEAD~2`, `v1.2`, a commit's name).
    package let revision: String
    /// The full name of the commit it names.
    package let commit: String
    /// The directory git runs in: the repository the caller named, or the top of the work tree the
    /// store's directory is in.
    package let repository: URL
    /// Whether ``repository`` was named as the repository itself (git then looks for it there only).
    package let isRepositoryNamed: Bool
    /// The store's folder, relative to the top of the repository (`""` for the top itself).
    package let storePath: String

    /// A store file's name as git spells a file of a revision: `v1.2:Trips.folio/journal.jsonl`.
    package func gitPath(_ relativePath: String) -> String {
        let path = [storePath, relativePath].filter { !$0.isEmpty }.joined(separator: "/")
        return "\(revision):\(path)"
    }

    /// `REVISION:STORE-PATH (commit COMMIT)`.
    package var description: String { "\(gitPath("")) (commit \(commit))" }

    /// Checks a revision before it is given to git: not empty, not an option (`-h`, `--output=x`), no
    /// control characters. Anything else is a revision for git to look up, never for a shell.
    package static func checkRevision(_ revision: String) throws {
        let usable =
            !revision.isEmpty && revision.utf8.count <= 4096 && !revision.hasPrefix("-")
            && !revision.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }
        guard usable else {
            throw StorageError(
                .unknownRevision,
                "\"\(revision.prefix(200))\" is not a revision: name a branch, tag or commit (a revision cannot start with '-' or hold control characters)"
            )
        }
    }

    /// A store's folder relative to the top of a repository, normalized (`a/./b/` is `a/b`; `.` and
    /// `""` are the top).
    ///
    /// - Throws: ``StorageError/Code/noStoreAtRevision`` for an absolute path, one that leaves the
    ///   repository (`..`) or one with control characters.
    static func normalizedStorePath(_ path: String) throws -> String {
        let components = path.split(separator: "/", omittingEmptySubsequences: true).filter { $0 != "." }
        guard !path.hasPrefix("/"), !components.contains(".."), !path.unicodeScalars.contains(where: { $0.value < 0x20 }) else {
            throw StorageError(
                .noStoreAtRevision,
                "\"\(path.prefix(200))\" is not a folder inside the repository: name it relative to the repository's top, without '..'")
        }
        return components.joined(separator: "/")
    }
}
