/// The rule that a store's files are regular files inside its directory, checked before any of them is
/// opened: a store may come from git, another machine or a download, and a symbolic link leading out
/// of it (to `/dev/zero`, to a user's file) or a FIFO in a file's place must never be read, blocked on,
/// written or truncated.
enum StoreFileSafety {
    /// Checks every store file that exists (manifest, journal, history, lock, torn-tail side file,
    /// snapshot files, and the `snapshots` and `blobs` folders) and returns the paths that break the
    /// rule, each reported to `report` as `notRegularFile` or `outsideStore`.
    ///
    /// A symbolic link is allowed only when it resolves to a path inside the store directory (the
    /// directory itself may be reached through links).
    static func unsafePaths(_ paths: StorePaths, fileSystem fs: any FileSystem, report: (StorageError) throws -> Void) throws -> Set<String> {
        guard let root = fs.resolvedPath(paths.directory) else { return [] }
        var unsafe = Set<String>()
        func check(_ path: String, directory: Bool) throws {
            if let problem = try problem(at: path, directory: directory, insideResolved: root, fileSystem: fs) {
                unsafe.insert(path)
                try report(problem)
            }
        }

        for path in [paths.manifest, paths.journal, paths.history, paths.lock, paths.corruptTail] {
            try check(path, directory: false)
        }
        for folder in [paths.snapshots, paths.blobs] {
            try check(folder, directory: true)
        }
        if !unsafe.contains(paths.snapshots) {
            for name in try fs.contentsOfDirectory(paths.snapshots) where name.hasSuffix(".jsonl") {
                try check("\(paths.snapshots)/\(name)", directory: false)
            }
        }
        return unsafe
    }

    /// The problem with the file (or folder, when `directory`) at `path`, if any: a symbolic link that
    /// does not resolve inside `root` (a resolved path), or something else than a regular file (or a
    /// folder). A missing file is no problem.
    static func problem(at path: String, directory: Bool, insideResolved root: String, fileSystem fs: any FileSystem) throws -> StorageError? {
        let inside = root.hasSuffix("/") ? root : root + "/"
        if let target = try fs.symbolicLinkTarget(atPath: path) {
            guard let resolved = fs.resolvedPath(path), resolved.hasPrefix(inside) else {
                return StorageError(
                    .outsideStore,
                    "is a symbolic link to \(target), which is outside the store directory or missing; Folio reads and writes only files inside the store: replace the link by the file itself",
                    file: path)
            }
        }
        guard let status = try fs.status(atPath: path) else { return nil }
        if directory ? status.isDirectory : status.isRegularFile { return nil }
        let kind = status.isDirectory ? "a directory" : status.isRegularFile ? "a regular file" : "a FIFO, device or socket"
        return StorageError(
            .notRegularFile,
            "is \(kind), not \(directory ? "a directory" : "a regular file"); move it away and restore it from git or a backup",
            file: path)
    }

    /// Throws the first problem ``unsafePaths(_:fileSystem:report:)`` finds, if any.
    static func check(_ paths: StorePaths, fileSystem fs: any FileSystem) throws {
        _ = try unsafePaths(paths, fileSystem: fs) { throw $0 }
    }
}
