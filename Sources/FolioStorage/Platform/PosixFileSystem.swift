/// The real file system, through POSIX calls.
package struct PosixFileSystem: FileSystem {
    package init() {}

    package func open(_ path: String, _ mode: OpenMode) throws -> FileDescriptor {
        let flags: Int32
        switch mode {
        case .read: flags = O_RDONLY
        case .readWriteCreate: flags = O_RDWR | O_CREAT
        case .createExclusive: flags = O_WRONLY | O_CREAT | O_EXCL
        }
        // Non-blocking, so that a FIFO in a file's place is refused below instead of blocking the open.
        var fd: Int32
        repeat { fd = Glibc_or_Darwin_open(path, flags | O_CLOEXEC | O_NONBLOCK, 0o644) } while fd < 0 && errno == EINTR
        if fd < 0 { throw StorageError.io("open", path: path, errno: errno) }
        let file = FileDescriptor(raw: fd, path: path)
        do {
            let status = try status(file)
            guard status.isRegularFile else {
                throw StorageError(
                    .notRegularFile,
                    "is \(status.isDirectory ? "a directory" : "a FIFO, device or socket"), not a regular file; a store's files must be regular files: move it away and restore the file from git or a backup",
                    file: path)
            }
            if fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) != 0 { throw StorageError.io("fcntl", path: path, errno: errno) }
        } catch {
            close(file)
            throw error
        }
        return file
    }

    package func close(_ file: FileDescriptor) {
        _ = Glibc_or_Darwin_close(file.raw)
    }

    package func read(_ file: FileDescriptor, into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws -> Int {
        while true {
            let count = pread(file.raw, buffer.baseAddress, buffer.count, off_t(offset))
            if count >= 0 { return count }
            if errno == EINTR { continue }
            throw StorageError.io("read", path: file.path, errno: errno)
        }
    }

    package func willRead(_ file: FileDescriptor, ranges: [(offset: Int64, length: Int)]) {
        for range in ranges { Platform.adviseWillRead(file.raw, offset: range.offset, length: range.length) }
    }

    package func write(_ file: FileDescriptor, _ bytes: UnsafeRawBufferPointer, at offset: Int64) throws -> Int {
        while true {
            let count = pwrite(file.raw, bytes.baseAddress, bytes.count, off_t(offset))
            if count >= 0 { return count }
            if errno == EINTR { continue }
            throw StorageError.io("write", path: file.path, errno: errno)
        }
    }

    package func sync(_ file: FileDescriptor) throws {
        if Platform.dataSync(file.raw) != 0 { throw StorageError.io("fsync", path: file.path, errno: errno) }
    }

    package func truncate(_ file: FileDescriptor, to size: Int64) throws {
        if ftruncate(file.raw, off_t(size)) != 0 { throw StorageError.io("ftruncate", path: file.path, errno: errno) }
    }

    package func status(_ file: FileDescriptor) throws -> FileStatus {
        var info = stat()
        if fstat(file.raw, &info) != 0 { throw StorageError.io("fstat", path: file.path, errno: errno) }
        return Self.makeStatus(info)
    }

    package func status(atPath path: String) throws -> FileStatus? {
        var info = stat()
        if stat(path, &info) != 0 {
            if errno == ENOENT || errno == ENOTDIR { return nil }
            throw StorageError.io("stat", path: path, errno: errno)
        }
        return Self.makeStatus(info)
    }

    private static func makeStatus(_ info: stat) -> FileStatus {
        #if canImport(Darwin)
            let modified = info.st_mtimespec
        #else
            let modified = info.st_mtim
        #endif
        return FileStatus(
            size: Int64(info.st_size), device: UInt64(info.st_dev), inode: UInt64(info.st_ino),
            isDirectory: (info.st_mode & S_IFMT) == S_IFDIR, isRegularFile: (info.st_mode & S_IFMT) == S_IFREG,
            modificationTime: Int64(modified.tv_sec) &* 1_000_000_000 &+ Int64(modified.tv_nsec))
    }

    package func rename(_ source: String, to destination: String) throws {
        if Glibc_or_Darwin_rename(source, destination) != 0 {
            throw StorageError.io("rename to \(destination)", path: source, errno: errno)
        }
    }

    package func unlink(_ path: String) throws {
        if Glibc_or_Darwin_unlink(path) != 0 && errno != ENOENT { throw StorageError.io("unlink", path: path, errno: errno) }
    }

    package func makeDirectory(_ path: String) throws {
        if mkdir(path, 0o755) != 0 && errno != EEXIST { throw StorageError.io("mkdir", path: path, errno: errno) }
    }

    package func syncDirectory(_ path: String) throws {
        let fd = Glibc_or_Darwin_open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0)
        if fd < 0 { throw StorageError.io("open directory", path: path, errno: errno) }
        defer { _ = Glibc_or_Darwin_close(fd) }
        if Platform.fullSync(fd) != 0 { throw StorageError.io("fsync directory", path: path, errno: errno) }
    }

    package func contentsOfDirectory(_ path: String) throws -> [String] {
        guard let directory = opendir(path) else {
            if errno == ENOENT { return [] }
            throw StorageError.io("opendir", path: path, errno: errno)
        }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }

    package func lock(_ file: FileDescriptor, exclusive: Bool, wait: Bool) throws -> Bool {
        let operation = (exclusive ? LOCK_EX : LOCK_SH) | (wait ? 0 : LOCK_NB)
        while true {
            if flock(file.raw, Int32(operation)) == 0 { return true }
            if errno == EINTR { continue }
            if errno == EWOULDBLOCK { return false }
            throw StorageError.io("flock", path: file.path, errno: errno)
        }
    }

    package func unlock(_ file: FileDescriptor) {
        _ = flock(file.raw, LOCK_UN)
    }
}

// The module-qualified C functions whose Swift names clash with `FileSystem`'s methods.
@inline(__always) func Glibc_or_Darwin_open(_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 {
    #if canImport(Darwin)
        return Darwin.open(path, flags, mode)
    #elseif canImport(Glibc)
        return Glibc.open(path, flags, mode)
    #else
        return Musl.open(path, flags, mode)
    #endif
}

@inline(__always) func Glibc_or_Darwin_close(_ fd: Int32) -> Int32 {
    #if canImport(Darwin)
        return Darwin.close(fd)
    #elseif canImport(Glibc)
        return Glibc.close(fd)
    #else
        return Musl.close(fd)
    #endif
}

@inline(__always) func Glibc_or_Darwin_rename(_ source: String, _ destination: String) -> Int32 {
    #if canImport(Darwin)
        return Darwin.rename(source, destination)
    #elseif canImport(Glibc)
        return Glibc.rename(source, destination)
    #else
        return Musl.rename(source, destination)
    #endif
}

@inline(__always) func Glibc_or_Darwin_unlink(_ path: String) -> Int32 {
    #if canImport(Darwin)
        return Darwin.unlink(path)
    #elseif canImport(Glibc)
        return Glibc.unlink(path)
    #else
        return Musl.unlink(path)
    #endif
}
