import Foundation

/// Which commit of which repository a configuration's store is read as of.
package struct GitRevisionSource: Hashable, Sendable {
    /// The revision as given: a branch, tag, commit or expression such as `HEAD~2`.
    package var revision: String
    /// The repository named (bare, or the top of a work tree); nil when the store's URL is in a work
    /// tree, whose repository git finds.
    package var repository: URL?
    /// The store's folder relative to the top of ``repository``; nil with it.
    package var path: String?
    /// Tests only: the `git` to run; nil for the first on the `PATH`.
    package var gitExecutable: URL? = nil
}

extension ModelConfiguration {
    /// A configuration whose store is read, read-only, as it was at a git revision: the store's
    /// directory `url` is in a git work tree, and its files are read from the commit `gitRevision`
    /// names, not from the work tree or the index. Nothing is written to the repository or the store.
    ///
    /// ```swift
    /// let lastRelease = ModelConfiguration(url: storeDirectory, gitRevision: "v1.2")
    /// let container = try ModelContainer(for: Trip.self, configurations: lastRelease)
    /// ```
    ///
    /// The container's contexts cannot save (``allowsSave`` is `false`). The store is never migrated:
    /// one written with other models than the container's makes the container's initializer throw
    /// ``FolioError/Code/schemaMismatch``; open it with the models of that revision. A store that cannot
    /// be read throws ``FolioError/Code/storage`` whose underlying `StorageError` says why: no `git`
    /// (`gitNotFound`), no repository (`notAGitRepository`), no such commit (`unknownRevision`), no store
    /// there at that commit (`noStoreAtRevision`), git failing (`gitFailed`), or any problem of the
    /// store's files, named as git names them (`v1.2:Trips.folio/journal.jsonl`).
    ///
    /// - Parameters:
    ///   - name: The configuration's name; the directory's name without its extension if nil.
    ///   - schema: The models this store holds; nil for the container's whole schema.
    ///   - url: The store's directory in a git work tree; it need not exist now.
    ///   - gitRevision: A branch, tag, commit or revision expression (`HEAD~2`, `main@{yesterday}`). It
    ///     is only ever an argument of `git`, never seen by a shell; one starting with `-` is refused.
    ///   - cloudKitDatabase: Accepted for SwiftData's sake; Folio does not sync with CloudKit.
    public init(
        _ name: String? = nil, schema: Schema? = nil, url: URL, gitRevision: String,
        cloudKitDatabase: CloudKitDatabase = .automatic
    ) {
        self.init(name, schema: schema, url: url, allowsSave: false, cloudKitDatabase: cloudKitDatabase)
        self.gitSource = GitRevisionSource(revision: gitRevision)
    }

    /// A configuration whose store is read, read-only, as it was at a git revision of a repository,
    /// which may be bare: the store's folder is `path`, relative to the repository's top. See
    /// ``init(_:schema:url:gitRevision:cloudKitDatabase:)``.
    ///
    /// - Parameters:
    ///   - name: The configuration's name; the store folder's name without its extension if nil.
    ///   - schema: The models this store holds; nil for the container's whole schema.
    ///   - gitRepository: A bare repository, or the top of a work tree.
    ///   - path: The store's folder in the repository (`Trips.folio`, `data/Trips.folio`); `""` for the top.
    ///   - gitRevision: A branch, tag, commit or revision expression.
    ///   - cloudKitDatabase: Accepted for SwiftData's sake; Folio does not sync with CloudKit.
    public init(
        _ name: String? = nil, schema: Schema? = nil, gitRepository: URL, path: String, gitRevision: String,
        cloudKitDatabase: CloudKitDatabase = .automatic
    ) {
        let url = path.isEmpty ? gitRepository : gitRepository.appendingPathComponent(path, isDirectory: true)
        self.init(name, schema: schema, url: url, allowsSave: false, cloudKitDatabase: cloudKitDatabase)
        self.gitSource = GitRevisionSource(revision: gitRevision, repository: gitRepository, path: path)
    }

    /// The git revision the store is read as of, or nil for the store's files as they are.
    public var gitRevision: String? { gitSource?.revision }

    /// The repository named with ``gitRevision`` (``init(_:schema:gitRepository:path:gitRevision:cloudKitDatabase:)``),
    /// or nil.
    public var gitRepository: URL? { gitSource?.repository }
}
