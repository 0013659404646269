import Foundation
@_spi(FolioEngine) import FolioStorage

/// A container over a store as of a git revision (``ModelConfiguration/gitRevision``): the store is
/// read from git's objects, read-only, and neither migrated nor given the container's schema.
extension ModelContainer {
    /// Opens the store of `source`, read-only, with the rest of `configuration`.
    static func openStore(at source: GitRevisionSource, url: URL, configuration: StoreConfiguration) throws -> Store {
        let git = try GitRunner(executable: source.gitExecutable)
        if let repository = source.repository {
            return try Store.open(
                gitRevision: source.revision, storePath: source.path ?? "", repository: repository, git: git,
                configuration: configuration)
        }
        return try Store.open(gitRevision: source.revision, at: url, git: git, configuration: configuration)
    }

    /// ``migrateStoreIfNeeded(to:)``, except for a store as of a git revision, which is never migrated:
    /// one written with another schema than `description` throws ``FolioError/Code/schemaMismatch``.
    func migrateStoreUnlessReadFromGit(to description: JSONValue) throws {
        guard let source = configuration.gitSource else { return try migrateStoreIfNeeded(to: description) }
        do {
            try migrateStoreIfNeeded(to: description)
        } catch let error as FolioError where error.code == .migrationRequired {
            throw FolioError(
                .schemaMismatch,
                """
                The store at \(configuration.url.path) as of git revision \(source.revision) was written with other \
                models than this container's, and a store read from git is never migrated: open it with the models \
                of that revision
                """, underlying: error)
        }
    }
}
