import Foundation
import FolioStorage

/// A ``FileSystem`` that passes calls to the real one and fails a chosen call: the test VFS.
///
/// Arm it with the operations to watch and the 1-based count at which to fail, e.g. "the 3rd write or
/// fsync". A fault is an `errno` (EIO, ENOSPC...) or a short write (half the bytes reach the file,
/// then ENOSPC). A persistent fault also fails every later watched call. Every call is logged, so tests
/// can also check the order of steps (write temp → fsync → rename → fsync directory).
package final class FaultInjectingFileSystem: FileSystem {
    /// What an armed fault does.
    package enum Fault: Sendable, Hashable {
        /// The call fails with this errno and does nothing.
        case error(Int32)
        /// For writes: half the bytes are written, then the call fails with ENOSPC.
        case shortWrite
    }

    /// The armed fault, the counts and the log, changed together.
    private struct State: Sendable {
        var watched: Set<FileOperation> = []
        var failAt = 0
        var fault: Fault = .error(EIO)
        var persistent = false
        var seen = 0
        var fired = false
        var entries: [(FileOperation, String)] = []
        /// Only calls on paths ending with this count towards the armed fault, when set.
        var pathSuffix: String?
        var closedDescriptors: [FileDescriptor] = []
    }

    private let base = PosixFileSystem()
    private let state = LockedState(State())

    package init() {}

    /// Fails the `count`-th call (1-based) among `operations` (on paths ending with `pathSuffix`, if given).
    package func arm(
        _ operations: Set<FileOperation>, at count: Int, fault: Fault, persistent: Bool = false,
        pathSuffix: String? = nil
    ) {
        state.withLock { state in
            state.watched = operations
            state.pathSuffix = pathSuffix
            state.failAt = count
            state.fault = fault
            state.persistent = persistent
            state.seen = 0
            state.fired = false
        }
    }

    /// Stops injecting faults.
    package func disarm() {
        state.withLock { $0.watched = [] }
    }

    /// Whether the armed fault has fired.
    package var didFire: Bool {
        state.withLock { $0.fired }
    }

    /// How many watched calls happened since arming.
    package var watchedCalls: Int {
        state.withLock { $0.seen }
    }

    /// Every call since creation or ``clearLog()``: operation and path.
    package var log: [(FileOperation, String)] {
        state.withLock { $0.entries }
    }

    /// Every descriptor closed since creation, in order: a descriptor in it twice was closed twice.
    package var closed: [FileDescriptor] {
        state.withLock { $0.closedDescriptors }
    }

    /// Empties the log.
    package func clearLog() {
        state.withLock { $0.entries = [] }
    }

    /// Logs the call and returns the fault to inject, if any.
    private func check(_ operation: FileOperation, _ path: String) -> Fault? {
        state.withLock { state in
            state.entries.append((operation, path))
            guard state.watched.contains(operation), state.pathSuffix.map(path.hasSuffix) ?? true else { return nil }
            state.seen += 1
            if state.seen == state.failAt || (state.persistent && state.seen > state.failAt) {
                state.fired = true
                return state.fault
            }
            return nil
        }
    }

    private func inject(_ operation: FileOperation, _ path: String) throws {
        if let fault = check(operation, path) {
            let code: Int32
            switch fault {
            case .error(let errno): code = errno
            case .shortWrite: code = ENOSPC
            }
            throw StorageError.io("\(operation.rawValue) (injected)", path: path, errno: code)
        }
    }

    package func open(_ path: String, _ mode: OpenMode) throws -> FileDescriptor {
        try inject(.open, path)
        return try base.open(path, mode)
    }

    package func close(_ file: FileDescriptor) {
        state.withLock { $0.closedDescriptors.append(file) }
        base.close(file)
    }

    package func read(_ file: FileDescriptor, into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws -> Int {
        try inject(.read, file.path)
        return try base.read(file, into: buffer, at: offset)
    }

    package func willRead(_ file: FileDescriptor, ranges: [(offset: Int64, length: Int)]) {
        base.willRead(file, ranges: ranges)
    }

    package func write(_ file: FileDescriptor, _ bytes: UnsafeRawBufferPointer, at offset: Int64) throws -> Int {
        if let fault = check(.write, file.path) {
            if case .shortWrite = fault, bytes.count > 1 {
                _ = try base.write(file, UnsafeRawBufferPointer(rebasing: bytes[0..<(bytes.count / 2)]), at: offset)
            }
            let code: Int32
            if case .error(let errno) = fault { code = errno } else { code = ENOSPC }
            throw StorageError.io("write (injected)", path: file.path, errno: code)
        }
        return try base.write(file, bytes, at: offset)
    }

    package func sync(_ file: FileDescriptor) throws {
        try inject(.fsync, file.path)
        try base.sync(file)
    }

    package func truncate(_ file: FileDescriptor, to size: Int64) throws {
        try inject(.truncate, file.path)
        try base.truncate(file, to: size)
    }

    package func status(_ file: FileDescriptor) throws -> FileStatus { try base.status(file) }

    package func status(atPath path: String) throws -> FileStatus? { try base.status(atPath: path) }

    package func rename(_ source: String, to destination: String) throws {
        try inject(.rename, destination)
        try base.rename(source, to: destination)
    }

    package func unlink(_ path: String) throws {
        try inject(.unlink, path)
        try base.unlink(path)
    }

    package func makeDirectory(_ path: String) throws {
        try inject(.makeDirectory, path)
        try base.makeDirectory(path)
    }

    package func syncDirectory(_ path: String) throws {
        try inject(.syncDirectory, path)
        try base.syncDirectory(path)
    }

    package func contentsOfDirectory(_ path: String) throws -> [String] { try base.contentsOfDirectory(path) }

    package func lock(_ file: FileDescriptor, exclusive: Bool, wait: Bool) throws -> Bool {
        try inject(.lock, file.path)
        return try base.lock(file, exclusive: exclusive, wait: wait)
    }

    package func unlock(_ file: FileDescriptor) { base.unlock(file) }
}
