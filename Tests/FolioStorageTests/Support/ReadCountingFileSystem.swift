import Foundation
@testable import FolioStorage

/// A ``FileSystem`` that counts the bytes read from each file and the largest single read asked for
/// (the size of the reader's buffer), so that a test can check a reader's memory bound on real files.
final class ReadCountingFileSystem: FileSystem, @unchecked Sendable {
    private let base = PosixFileSystem()
    private let lock = NSLock()
    private var bytesRead: [String: Int64] = [:]
    private var largest = 0

    /// Bytes read from `path` so far.
    func bytesRead(from path: String) -> Int64 {
        lock.lock()
        defer { lock.unlock() }
        return bytesRead[path] ?? 0
    }

    /// The largest buffer a single read was given.
    var largestRead: Int {
        lock.lock()
        defer { lock.unlock() }
        return largest
    }

    func open(_ path: String, _ mode: OpenMode) throws -> FileDescriptor { try base.open(path, mode) }
    func close(_ file: FileDescriptor) { base.close(file) }
    func read(_ file: FileDescriptor, into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws -> Int {
        let count = try base.read(file, into: buffer, at: offset)
        lock.lock()
        bytesRead[file.path, default: 0] += Int64(count)
        largest = max(largest, buffer.count)
        lock.unlock()
        return count
    }
    func write(_ file: FileDescriptor, _ bytes: UnsafeRawBufferPointer, at offset: Int64) throws -> Int {
        try base.write(file, bytes, at: offset)
    }
    func sync(_ file: FileDescriptor) throws { try base.sync(file) }
    func truncate(_ file: FileDescriptor, to size: Int64) throws { try base.truncate(file, to: size) }
    func status(_ file: FileDescriptor) throws -> FileStatus { try base.status(file) }
    func status(atPath path: String) throws -> FileStatus? { try base.status(atPath: path) }
    func rename(_ source: String, to destination: String) throws { try base.rename(source, to: destination) }
    func unlink(_ path: String) throws { try base.unlink(path) }
    func makeDirectory(_ path: String) throws { try base.makeDirectory(path) }
    func syncDirectory(_ path: String) throws { try base.syncDirectory(path) }
    func contentsOfDirectory(_ path: String) throws -> [String] { try base.contentsOfDirectory(path) }
    func lock(_ file: FileDescriptor, exclusive: Bool, wait: Bool) throws -> Bool { try base.lock(file, exclusive: exclusive, wait: wait) }
    func unlock(_ file: FileDescriptor) { base.unlock(file) }
}
