import Foundation
@testable import FolioStorage

/// A ``FileSystem`` that counts the bytes read from each file and the largest single read asked for
/// (the size of the reader's buffer), so that a test can check a reader's memory bound on real files.
final class ReadCountingFileSystem: ForwardingFileSystem, @unchecked Sendable {
    let base = PosixFileSystem()
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

    func read(_ file: FileDescriptor, into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws -> Int {
        let count = try base.read(file, into: buffer, at: offset)
        lock.lock()
        bytesRead[file.path, default: 0] += Int64(count)
        largest = max(largest, buffer.count)
        lock.unlock()
        return count
    }
}
