@testable import FolioStorage

/// A test ``FileSystem`` that passes every call to a real one, except those it implements itself.
protocol ForwardingFileSystem: FileSystem {
    var base: PosixFileSystem { get }
}

extension ForwardingFileSystem {
    func open(_ path: String, _ mode: OpenMode) throws -> FileDescriptor { try base.open(path, mode) }
    func close(_ file: FileDescriptor) { base.close(file) }
    func read(_ file: FileDescriptor, into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws -> Int {
        try base.read(file, into: buffer, at: offset)
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
