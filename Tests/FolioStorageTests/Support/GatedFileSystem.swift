import Dispatch
import Foundation
@testable import FolioStorage

/// A ``FileSystem`` that holds the first write to a temporary snapshot file until the test lets it go,
/// so that a test can act while a background compaction is half way through preparing its files.
final class GatedFileSystem: ForwardingFileSystem, @unchecked Sendable {
    let base = PosixFileSystem()
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

    func write(_ file: FileDescriptor, _ bytes: UnsafeRawBufferPointer, at offset: Int64) throws -> Int {
        if shouldHold(file.path) {
            reached.signal()
            released.wait()
        }
        return try base.write(file, bytes, at: offset)
    }
}
