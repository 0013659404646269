// The single place where the C library is chosen. Everything else in FolioStorage imports this module's
// `Platform` namespace or the `FileSystem` seam, never Glibc or Darwin directly, except through here.

#if canImport(Darwin)
    @_exported import Darwin
#elseif canImport(Glibc)
    @_exported import Glibc
#elseif canImport(Musl)
    @_exported import Musl
#else
    #error("Unsupported C library: FolioStorage needs Darwin, Glibc or Musl.")
#endif

/// Operating-system facts the storage engine needs.
package enum Platform {
    /// The current process identifier.
    package static var processID: Int32 { getpid() }

    /// The current `errno`.
    package static var lastError: Int32 { errno }

    /// Tells the kernel that `length` bytes at `offset` of `descriptor` will be read soon, so that it
    /// starts reading them now, alongside the other ranges announced: a few thousand scattered lines
    /// then cost about one disk round trip, not one each. Only advice: failures are ignored.
    package static func adviseWillRead(_ descriptor: Int32, offset: Int64, length: Int) {
        #if canImport(Darwin)
            var advice = radvisory(ra_offset: off_t(offset), ra_count: Int32(clamping: length))
            _ = fcntl(descriptor, F_RDADVISE, &advice)
        #else
            _ = posix_fadvise(descriptor, off_t(offset), off_t(length), Int32(POSIX_FADV_WILLNEED))
        #endif
    }

    /// The target of a symbolic link as written in it, `nil` when `path` is not one (or is missing).
    package static func symbolicLinkTarget(_ path: String) throws -> String? {
        var info = stat()
        if lstat(path, &info) != 0 {
            if errno == ENOENT || errno == ENOTDIR { return nil }
            throw StorageError.io("lstat", path: path, errno: errno)
        }
        guard (info.st_mode & S_IFMT) == S_IFLNK else { return nil }
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink(path, &buffer, buffer.count - 1)
        guard count >= 0 else { throw StorageError.io("readlink", path: path, errno: errno) }
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// `realpath`: the absolute path with every link resolved, `nil` when it does not resolve.
    package static func resolvedPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// The host name, for lock diagnostics.
    package static var hostName: String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "unknown" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Whether a process with this identifier exists (on this host).
    package static func processExists(_ pid: Int32) -> Bool {
        if pid <= 0 { return false }
        return kill(pid, 0) == 0 || errno == EPERM
    }

    /// Flushes a file's data to stable storage: `F_FULLFSYNC` on Darwin (plain `fsync` there only reaches
    /// the drive's cache), `fsync` elsewhere.
    package static func fullSync(_ fd: Int32) -> Int32 {
        #if canImport(Darwin)
            if fcntl(fd, F_FULLFSYNC) == 0 { return 0 }
            // Some file systems (network, FAT) do not support F_FULLFSYNC: fall back to fsync.
            return fsync(fd)
        #else
            return fsync(fd)
        #endif
    }

    /// Flushes a regular file's data, and the metadata needed to read it back (its size), to stable
    /// storage: `fdatasync` on Linux, which skips timestamps, as SQLite and PostgreSQL do for their
    /// logs; ``fullSync(_:)`` elsewhere. Directories are synced with ``fullSync(_:)``.
    package static func dataSync(_ fd: Int32) -> Int32 {
        #if os(Linux)
            return fdatasync(fd)
        #else
            return fullSync(fd)
        #endif
    }

    /// What the process has used so far, all threads together (`getrusage(RUSAGE_SELF)`): for the
    /// benchmark and the test workers, which report it per step.
    package static func resourceUsage() -> ResourceUsage {
        var usage = rusage()
        #if canImport(Glibc)
            getrusage(RUSAGE_SELF.rawValue, &usage)
        #else
            getrusage(RUSAGE_SELF, &usage)
        #endif
        func seconds(_ value: timeval) -> Double { Double(value.tv_sec) + Double(value.tv_usec) * 1e-6 }
        return ResourceUsage(
            userSeconds: seconds(usage.ru_utime), systemSeconds: seconds(usage.ru_stime),
            minorFaults: Int(usage.ru_minflt))
    }
}

/// CPU time and page faults of a process (``Platform/resourceUsage()``).
package struct ResourceUsage {
    /// CPU time in user space.
    package var userSeconds: Double
    /// CPU time in the kernel: system calls, and zeroing the pages the process touches for the first time.
    package var systemSeconds: Double
    /// Pages the process touched for the first time (or again after giving them back).
    package var minorFaults: Int
}
