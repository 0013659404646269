import Foundation

/// A read-only file system holding the files of one folder of a git commit: what a store read as of a
/// revision goes through instead of the disk, so that the work tree, the index and the store's files
/// there are never touched.
///
/// Its only directory tree is the one under ``root`` (a path that need not exist on disk); every other
/// path is missing. The files' bytes were read from git before the store opens, except those under
/// `blobs/`, read from git when first opened. Every operation that would change a file fails with
/// `EROFS`; locks are granted at once, since nothing can change the files.
///
/// A tree entry that is no regular file is what a checkout makes of it: a symbolic link (its target is
/// not followed, so a store's file check reports it as a link leading out of the store), a submodule (an
/// empty directory).
package final class GitTreeFileSystem: FileSystem {
    /// The directory the store is opened at; every path of the tree is below it.
    package let root: String
    /// The revision and folder the files are of.
    package let revision: GitStoreRevision
    private let entries: [String: Entry]
    private let directories: [String: [String]]
    private let batch: GitObjectBatch
    /// Files under `blobs/`, read on first use.
    private let fetched = LockedState([String: [UInt8]]())
    private let git: GitRunner

    private struct Entry {
        var tree: GitTreeEntry
        var inode: UInt64
    }

    init(root: String, revision: GitStoreRevision, entries: [GitTreeEntry], batch: GitObjectBatch, git: GitRunner) {
        self.root = root
        self.revision = revision
        self.batch = batch
        self.git = git
        var byPath: [String: Entry] = [:]
        var directories: [String: Set<String>] = ["": []]
        for (number, entry) in entries.enumerated() {
            byPath[entry.path] = Entry(tree: entry, inode: UInt64(number) + 1)
            var child = entry.path
            if entry.kind == .submodule { directories[child, default: []].formUnion([]) }
            while let slash = child.lastIndex(of: "/") {
                let parent = String(child[..<slash])
                directories[parent, default: []].insert(String(child[child.index(after: slash)...]))
                child = parent
            }
            directories[""]?.insert(child)
        }
        self.entries = byPath
        self.directories = directories.mapValues { $0.sorted() }
    }

    /// Whether the tree holds a file or folder at `relativePath` (below ``root``).
    func contains(_ relativePath: String) -> Bool {
        entries[relativePath] != nil || directories[relativePath] != nil
    }

    /// `path` below ``root``, or nil for a path outside it ("" for the root itself).
    func relative(_ path: String) -> String? {
        if path == root { return "" }
        let prefix = root.hasSuffix("/") ? root : root + "/"
        guard path.hasPrefix(prefix) else { return nil }
        return String(path.dropFirst(prefix.count))
    }

    private static func readOnlyFailure(_ operation: String, _ path: String) -> StorageError {
        StorageError(.readOnly, "\(operation) refused: a store read from a git revision is read-only", file: path, errno: EROFS)
    }

    package func open(_ path: String, _ mode: OpenMode) throws -> FileDescriptor {
        guard mode == .read else { throw Self.readOnlyFailure("open for writing", path) }
        guard let status = try status(atPath: path) else { throw StorageError.io("open", path: path, errno: ENOENT) }
        guard status.isRegularFile else {
            throw StorageError(.notRegularFile, "is a directory or submodule at \(revision.description), not a regular file", file: path)
        }
        return FileDescriptor(raw: Int32(truncatingIfNeeded: status.inode), path: path)
    }

    package func close(_ file: FileDescriptor) {}

    package func read(_ file: FileDescriptor, into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws -> Int {
        guard let relative = relative(file.path), let entry = entries[relative], entry.tree.kind == .regularFile else {
            throw StorageError.io("read", path: file.path, errno: EBADF)
        }
        guard offset >= 0, offset < Int64(entry.tree.size) else { return 0 }
        let start = Int(offset), count = min(buffer.count, entry.tree.size - start)
        if let range = batch.ranges[entry.tree.object] {
            batch.buffer.withUnsafeBytes { bytes in
                buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[(range.lowerBound + start)..<(range.lowerBound + start + count)]))
            }
        } else {
            let bytes = try fetch(entry.tree, path: file.path)
            bytes.withUnsafeBytes { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[start..<(start + count)])) }
        }
        return count
    }

    /// The bytes of a blob that was not read with the others (a file under `blobs/`), read once.
    private func fetch(_ entry: GitTreeEntry, path: String) throws -> [UInt8] {
        if let known = fetched.withLock({ $0[entry.object] }) { return known }
        let result = try git.run(
            ["cat-file", "blob", entry.object], in: revision.repository, outputLimit: entry.size,
            ceiling: revision.isRepositoryNamed)
        guard result.status == 0, result.output.count == entry.size else {
            throw StorageError(.gitFailed, "git cat-file could not read blob \(entry.object): \(result.errors)", file: path)
        }
        fetched.withLock { $0[entry.object] = result.output }
        return result.output
    }

    package func write(_ file: FileDescriptor, _ bytes: UnsafeRawBufferPointer, at offset: Int64) throws -> Int {
        throw Self.readOnlyFailure("write", file.path)
    }

    package func sync(_ file: FileDescriptor) throws {}

    package func truncate(_ file: FileDescriptor, to size: Int64) throws {
        throw Self.readOnlyFailure("truncate", file.path)
    }

    package func status(_ file: FileDescriptor) throws -> FileStatus {
        guard let status = try status(atPath: file.path) else { throw StorageError.io("fstat", path: file.path, errno: EBADF) }
        return status
    }

    package func status(atPath path: String) throws -> FileStatus? {
        guard let relative = relative(path) else { return nil }
        if let entry = entries[relative] {
            switch entry.tree.kind {
            case .regularFile: return FileStatus(size: Int64(entry.tree.size), device: 0, inode: entry.inode, isDirectory: false)
            // A link is not followed: as if it led nowhere.
            case .symbolicLink: return nil
            case .submodule: return FileStatus(size: 0, device: 0, inode: entry.inode, isDirectory: true, isRegularFile: false)
            }
        }
        guard directories[relative] != nil else { return nil }
        return FileStatus(size: 0, device: 0, inode: 0, isDirectory: true, isRegularFile: false)
    }

    package func rename(_ source: String, to destination: String) throws {
        throw Self.readOnlyFailure("rename to \(destination)", source)
    }

    package func unlink(_ path: String) throws {
        throw Self.readOnlyFailure("unlink", path)
    }

    package func makeDirectory(_ path: String) throws {
        throw Self.readOnlyFailure("mkdir", path)
    }

    package func syncDirectory(_ path: String) throws {}

    package func symbolicLinkTarget(atPath path: String) throws -> String? {
        guard let relative = relative(path), let entry = entries[relative], entry.tree.kind == .symbolicLink else { return nil }
        guard entry.tree.size <= 4096 else { return "(a link target of \(entry.tree.size) bytes)" }
        guard let range = batch.ranges[entry.tree.object] else { return "" }
        return String(decoding: batch.buffer[range], as: UTF8.self)
    }

    package func resolvedPath(_ path: String) -> String? {
        guard let relative = relative(path) else { return nil }
        if relative.isEmpty { return root }
        guard let status = try? status(atPath: path) else { return nil }
        return status.isRegularFile || status.isDirectory ? path : nil
    }

    package func contentsOfDirectory(_ path: String) throws -> [String] {
        guard let relative = relative(path) else { return [] }
        return directories[relative] ?? []
    }

    package func lock(_ file: FileDescriptor, exclusive: Bool, wait: Bool) throws -> Bool { true }

    package func unlock(_ file: FileDescriptor) {}
}
