import Foundation

extension Store {
    /// The most bytes of a store's files (its blobs aside) read from git into memory by default: 8 GiB.
    package static let defaultMaximumGitBytes = 8 << 30

    /// Opens, read-only, the store whose directory `directory` (in a git work tree) was at `revision`:
    /// its files are read from git's objects, never from the work tree or the index, and nothing is
    /// written anywhere. The directory need not exist now.
    ///
    /// The store's errors are those of a store on disk, their ``StorageError/file`` named as git names a
    /// file of a revision (`HEAD~2:Trips.folio/journal.jsonl`).
    ///
    /// - Parameters:
    ///   - revision: A branch, tag, commit or revision expression (`HEAD~2`); never an option.
    ///   - git: The `git` to run; nil for the first on the `PATH`.
    ///   - maximumBytes: The most bytes the store's files (its blobs aside) may add up to.
    ///   - configuration: How to read the store; it is opened read-only whatever ``StoreConfiguration/readOnly`` says.
    /// - Throws: ``StorageError`` with ``StorageError/Code/gitNotFound``,
    ///   ``StorageError/Code/notAGitRepository``, ``StorageError/Code/unknownRevision``,
    ///   ``StorageError/Code/noStoreAtRevision`` or ``StorageError/Code/gitFailed``; or any error opening
    ///   the store's files would throw.
    package static func open(
        gitRevision revision: String, at directory: URL, git: GitRunner? = nil, maximumBytes: Int = defaultMaximumGitBytes,
        configuration: StoreConfiguration = StoreConfiguration()
    ) throws -> Store {
        let git = try git ?? GitRunner()
        let (top, storePath) = try GitRevisionReader.locate(directory, git: git)
        let commit = try GitRevisionReader.commit(revision, in: top, ceiling: false, git: git)
        let source = GitStoreRevision(revision: revision, commit: commit, repository: top, isRepositoryNamed: false, storePath: storePath)
        return try open(source, root: directory.standardizedFileURL.path, maximumBytes: maximumBytes, git: git, configuration: configuration)
    }

    /// Opens, read-only, the store at `storePath` (relative to the repository's top) of `repository`
    /// (a bare repository or the top of a work tree) as of `revision`; see
    /// ``open(gitRevision:at:git:maximumBytes:configuration:)``. Git looks for the repository in
    /// `repository` only, not in the folders around it.
    package static func open(
        gitRevision revision: String, storePath: String, repository: URL, git: GitRunner? = nil,
        maximumBytes: Int = defaultMaximumGitBytes, configuration: StoreConfiguration = StoreConfiguration()
    ) throws -> Store {
        let git = try git ?? GitRunner()
        let repository = repository.standardizedFileURL
        let storePath = try GitStoreRevision.normalizedStorePath(storePath)
        try GitRevisionReader.checkRepository(repository, git: git)
        let commit = try GitRevisionReader.commit(revision, in: repository, ceiling: true, git: git)
        let source = GitStoreRevision(revision: revision, commit: commit, repository: repository, isRepositoryNamed: true, storePath: storePath)
        let root = storePath.isEmpty ? repository.path : repository.appendingPathComponent(storePath).path
        return try open(source, root: root, maximumBytes: maximumBytes, git: git, configuration: configuration)
    }

    /// The revision the store was read from, for a store opened by ``open(gitRevision:at:git:maximumBytes:configuration:)``.
    package var gitRevision: GitStoreRevision? {
        (configuration.fileSystem as? GitTreeFileSystem)?.revision
    }

    private static func open(
        _ source: GitStoreRevision, root: String, maximumBytes: Int, git: GitRunner, configuration: StoreConfiguration
    ) throws -> Store {
        let files = try GitRevisionReader.files(of: source, root: root, maximumBytes: maximumBytes, git: git)
        var configuration = configuration
        configuration.readOnly = true
        configuration.fileSystem = files
        // Every file is in memory already: reading the records now reports a damaged one at open.
        configuration.defersLoadingRecords = false
        configuration.cachedMembers = [:]
        do {
            return try Store.open(at: URL(fileURLWithPath: root, isDirectory: true), configuration: configuration)
        } catch var error as StorageError {
            if let file = error.file, let relative = files.relative(file) { error.file = source.gitPath(relative) }
            throw error
        }
    }
}
