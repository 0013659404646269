import Dispatch
import Foundation
@testable import FolioStorage

/// A ``FileSystem`` that holds the first write to a temporary snapshot file until the test lets it go,
/// so that a test can act while a background compaction is half way through preparing its files.
final class GatedFileSystem: FileSystem, @unchecked Sendable {
    private let base = PosixFileSystem()
    private let lock = NSLock()
    private var armed = false
    private let reached = DispatchSemaphore(value: 0)
    private let released = DispatchSemaphore(value: 0)

    /// Holds the next write to a temporary snapshot file.
    func arm() {
        lock.lock()
        armed = true
        lock.unlock()
    }

    /// Waits until a write is being held; false if none came within `seconds`.
    func waitUntilHeld(seconds: Double = 120) -> Bool {
        reached.wait(timeout: .now() + seconds) == .success
    }

    /// Lets the held write go on.
    func release() { released.signal() }

    private func shouldHold(_ path: String) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard armed, path.contains("/snapshots/"), FileSystemNames.isTemporary(path) else { return false }
        armed = false
        return true
    }

    func open(_ path: String, _ mode: OpenMode) throws -> FileDescriptor { try base.open(path, mode) }
    func close(_ file: FileDescriptor) { base.close(file) }
    func read(_ file: FileDescriptor, into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws -> Int {
        try base.read(file, into: buffer, at: offset)
    }
    func write(_ file: FileDescriptor, _ bytes: UnsafeRawBufferPointer, at offset: Int64) throws -> Int {
        if shouldHold(file.path) {
            reached.signal()
            released.wait()
        }
        return try base.write(file, bytes, at: offset)
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
