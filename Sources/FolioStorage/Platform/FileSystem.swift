/// An open file, with the path it was opened from (for error messages).
package struct FileDescriptor: Sendable, Hashable {
    /// The raw descriptor.
    package var raw: Int32
    /// The path it was opened from.
    package var path: String
}

/// What `stat`/`fstat` tells the engine about a file.
package struct FileStatus: Sendable, Hashable {
    /// The size in bytes.
    package var size: Int64
    /// Device and inode: a file replaced by rename (compaction, `git checkout`) gets a new identity.
    package var device: UInt64
    /// The inode number.
    package var inode: UInt64
    /// Whether it is a directory.
    package var isDirectory: Bool
    /// Whether it is a regular file (not a directory, FIFO, device or socket).
    package var isRegularFile: Bool = true
    /// The last modification time, in nanoseconds since 1970 (0 where unknown): with the size, device
    /// and inode, what tells a derived file (the snapshot cache) that its source was rewritten in place.
    package var modificationTime: Int64 = 0
}

/// How to open a file.
package enum OpenMode: Sendable {
    /// Read only; the file must exist.
    case read
    /// Read and write; created if missing.
    case readWriteCreate
    /// Write only; must not exist yet (temporary files).
    case createExclusive
}

/// The kinds of file-system operation, as counted and failed by fault injection.
package enum FileOperation: String, Sendable, CaseIterable {
    case open, read, write, fsync, truncate, rename, unlink, makeDirectory, syncDirectory, lock
}

/// The seam between the storage engine and the operating system.
///
/// Every byte the engine reads or writes and every fsync, rename, truncate and lock goes through this
/// protocol, so that tests can inject faults (ENOSPC, short writes, EIO on fsync) at any step.
/// ``PosixFileSystem`` is the real implementation.
package protocol FileSystem: Sendable {
    func open(_ path: String, _ mode: OpenMode) throws -> FileDescriptor
    func close(_ file: FileDescriptor)
    /// Reads up to `buffer.count` bytes at `offset`; returns 0 at end of file.
    func read(_ file: FileDescriptor, into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws -> Int
    /// Writes some of `bytes` at `offset` and returns how many were written (may be fewer: a short write).
    func write(_ file: FileDescriptor, _ bytes: UnsafeRawBufferPointer, at offset: Int64) throws -> Int
    func sync(_ file: FileDescriptor) throws
    func truncate(_ file: FileDescriptor, to size: Int64) throws
    func status(_ file: FileDescriptor) throws -> FileStatus
    /// `nil` when nothing exists at `path`.
    func status(atPath path: String) throws -> FileStatus?
    func rename(_ source: String, to destination: String) throws
    /// Removing a missing file is not an error.
    func unlink(_ path: String) throws
    /// Creating an existing directory is not an error.
    func makeDirectory(_ path: String) throws
    /// Fsyncs a directory, making renames and creations in it durable.
    func syncDirectory(_ path: String) throws
    /// The target of the symbolic link at `path`, as written in the link; `nil` when `path` is not a
    /// symbolic link (or does not exist).
    func symbolicLinkTarget(atPath path: String) throws -> String?
    /// The absolute path of `path` with every symbolic link resolved; `nil` when it does not resolve
    /// (missing, or a dangling link).
    func resolvedPath(_ path: String) -> String?
    /// Names in a directory (not `.`/`..`); empty when it does not exist.
    func contentsOfDirectory(_ path: String) throws -> [String]
    /// Takes an advisory lock (`flock`), waiting for it when `wait` is true; returns false if busy.
    func lock(_ file: FileDescriptor, exclusive: Bool, wait: Bool) throws -> Bool
    func unlock(_ file: FileDescriptor)
    /// Advises that the `ranges` of `file` will be read soon (see ``Platform/adviseWillRead(_:offset:length:)``).
    func willRead(_ file: FileDescriptor, ranges: [(offset: Int64, length: Int)])
}

extension FileSystem {
    package func willRead(_ file: FileDescriptor, ranges: [(offset: Int64, length: Int)]) {}

    package func symbolicLinkTarget(atPath path: String) throws -> String? {
        try Platform.symbolicLinkTarget(path)
    }

    package func resolvedPath(_ path: String) -> String? {
        Platform.resolvedPath(path)
    }

    /// Writes all of `bytes` at `offset`, continuing after short writes.
    package func writeAll(_ file: FileDescriptor, _ bytes: [UInt8], at offset: Int64) throws {
        try bytes.withUnsafeBytes { buffer throws in
            var done = 0
            while done < buffer.count {
                let count = try write(file, UnsafeRawBufferPointer(rebasing: buffer[done...]), at: offset + Int64(done))
                if count <= 0 {
                    throw StorageError.io("write", path: file.path, errno: EIO)
                }
                done += count
            }
        }
    }

    /// Reads a whole (small) file: manifests and lock files only. Data files are streamed.
    package func readSmallFile(_ path: String, limit: Int = 16 << 20) throws -> [UInt8] {
        let file = try open(path, .read)
        defer { close(file) }
        var result: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let count = try chunk.withUnsafeMutableBytes { buffer throws in
                try read(file, into: buffer, at: Int64(result.count))
            }
            if count == 0 { return result }
            result.append(contentsOf: chunk[0..<count])
            if result.count > limit {
                throw StorageError(.malformedLine, "file is larger than \(limit) bytes; it is not a Folio file", file: path)
            }
        }
    }

    /// Reads a whole file of at most `limit` bytes into one buffer of its size (a file git hands a merge
    /// driver): no chunk is copied twice.
    package func readWholeFile(_ path: String, limit: Int) throws -> [UInt8] {
        let file = try open(path, .read)
        defer { close(file) }
        let size = try status(file).size
        guard size <= Int64(limit) else {
            throw StorageError(.malformedLine, "file is \(size) bytes, larger than the \(limit) a Folio file read whole may have", file: path)
        }
        var failure: (any Error)? = nil
        let bytes = [UInt8](unsafeUninitializedCapacity: Int(size)) { buffer, initialized in
            initialized = 0
            while initialized < buffer.count {
                do {
                    let count = try read(
                        file, into: UnsafeMutableRawBufferPointer(UnsafeMutableBufferPointer(rebasing: buffer[initialized...])),
                        at: Int64(initialized))
                    if count == 0 { break }
                    initialized += count
                } catch {
                    failure = error
                    break
                }
            }
        }
        if let failure { throw failure }
        guard bytes.count == Int(size) else { throw StorageError(.ioFailure, "the file shrank while it was read", file: path) }
        return bytes
    }

    /// Replaces the file at `path` atomically: write a uniquely named temporary file beside it, fsync it,
    /// rename it over `path`, fsync the directory. A crash at any step leaves either the old or the new
    /// file at `path`, plus perhaps a temporary file that the next compaction removes.
    package func replaceFile(at path: String, with bytes: [UInt8]) throws {
        try replaceFile(at: path) { write in try write(bytes) }
    }

    /// ``replaceFile(at:with:)`` for content produced in pieces: `produce` calls `write` with
    /// consecutive chunks, so that a large file never has to be in memory at once. If `produce`
    /// throws, the temporary file is removed and `path` is left as it was.
    package func replaceFile(at path: String, producing produce: (_ write: ([UInt8]) throws -> Void) throws -> Void) throws {
        let temporary = try writeTemporaryFile(beside: path, producing: produce)
        try installTemporaryFile(temporary, at: path)
    }

    /// The first half of ``replaceFile(at:producing:)``: writes the content to a new temporary file
    /// beside `path`, fsyncs it and returns its path, leaving `path` untouched. If `produce` throws, the
    /// temporary file is removed. Compaction writes every new file this way before it replaces any.
    package func writeTemporaryFile(beside path: String, producing produce: (_ write: ([UInt8]) throws -> Void) throws -> Void) throws -> String {
        let temporary = Self.temporaryPath(for: path)
        let file = try open(temporary, .createExclusive)
        do {
            var offset: Int64 = 0
            try produce { chunk in
                try writeAll(file, chunk, at: offset)
                offset += Int64(chunk.count)
            }
            try sync(file)
            close(file)
        } catch {
            close(file)
            try? unlink(temporary)
            throw error
        }
        return temporary
    }

    /// The second half of ``replaceFile(at:producing:)``: renames a synced temporary file over `path`
    /// and, unless `syncingDirectory` is false (the caller syncs it once for several renames), fsyncs
    /// the directory.
    package func installTemporaryFile(_ temporary: String, at path: String, syncingDirectory: Bool = true) throws {
        do {
            try rename(temporary, to: path)
        } catch {
            try? unlink(temporary)
            throw error
        }
        if syncingDirectory { try syncDirectory(Self.directory(of: path)) }
    }

    /// A temporary name beside `path`, unique per process and call (`<name>.tmp-<pid>-<random>`).
    package static func temporaryPath(for path: String) -> String {
        "\(path).tmp-\(Platform.processID)-\(String(UInt64.random(in: 0...UInt64.max), radix: 36))"
    }

    /// Whether `name` is a temporary file left by ``replaceFile(at:with:)``.
    package static func isTemporaryName(_ name: String) -> Bool { name.contains(".tmp-") }

    /// The directory part of a path.
    package static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}
