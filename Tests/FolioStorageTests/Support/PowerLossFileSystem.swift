import Foundation
@testable import FolioStorage

/// A file system that remembers what would survive a power cut.
///
/// File contents become durable only when fsynced; names (creations, renames, unlinks) only when their
/// directory is fsynced. ``materialize(into:using:)`` builds the directory a machine would find after
/// losing power now: durable names pointing at durable contents, plus (randomly) a prefix of unsynced
/// appended bytes, or garbage, in files that had unsynced data. From ``crash(after:)`` on, every
/// mutating call fails, as if the process had died at that step.
final class PowerLossFileSystem: FileSystem, @unchecked Sendable {
    private let base = PosixFileSystem()
    private let lock = NSLock()
    private var nextFileID = 0
    /// Current names → file identity.
    private var volatileNames: [String: Int] = [:]
    /// Names that would survive a power cut → file identity.
    private var durableNames: [String: Int] = [:]
    /// Synced content of each file.
    private var durableContent: [Int: [UInt8]] = [:]
    /// Open descriptors → file identity.
    private var open: [Int32: Int] = [:]
    private var mutatingCalls = 0
    private var crashAt = Int.max

    /// Starts tracking `directory`, whose existing files count as durable.
    init(tracking directory: URL) throws {
        if let enumerator = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil) {
            for case let url as URL in enumerator where !url.hasDirectoryPath {
                var isDirectory: ObjCBool = false
                guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory.boolValue else { continue }
                let id = newID()
                volatileNames[url.path] = id
                durableNames[url.path] = id
                durableContent[id] = [UInt8](try Data(contentsOf: url))
            }
        }
    }

    private func newID() -> Int {
        nextFileID += 1
        return nextFileID
    }

    /// Every mutating call after the `count`-th fails (the process "dies").
    func crash(after count: Int) {
        lock.lock()
        defer { lock.unlock() }
        crashAt = mutatingCalls + count
    }

    private func mutate(_ path: String) throws {
        lock.lock()
        defer { lock.unlock() }
        mutatingCalls += 1
        if mutatingCalls > crashAt { throw StorageError.io("power cut", path: path, errno: EIO) }
    }

    private func currentContent(_ path: String) -> [UInt8] {
        (try? [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))) ?? []
    }

    /// Writes the post-power-cut directory into `destination`.
    func materialize(into destination: URL, from source: URL, using random: inout SeededGenerator) throws {
        lock.lock()
        defer { lock.unlock() }
        try? FileManager.default.removeItem(at: destination)
        try FileManager.default.createDirectory(at: destination, withIntermediateDirectories: true)
        // Current content per identity (for unsynced tails).
        var current: [Int: [UInt8]] = [:]
        for (path, id) in volatileNames { current[id] = currentContent(path) }
        for (path, id) in durableNames {
            guard path.hasPrefix(source.path + "/") else { continue }
            let relative = String(path.dropFirst(source.path.count + 1))
            let target = destination.appendingPathComponent(relative)
            try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
            var bytes = durableContent[id] ?? []
            if let now = current[id], now.count > bytes.count, now.starts(with: bytes) {
                switch Int.random(in: 0..<3, using: &random) {
                case 0: break  // the unsynced tail is lost
                case 1: bytes = Array(now.prefix(Int.random(in: bytes.count...now.count, using: &random)))  // part of it made it
                default: bytes += [UInt8](repeating: 0, count: Int.random(in: 1...64, using: &random))  // the size grew, the data did not
                }
            }
            try Data(bytes).write(to: target)
        }
    }

    // MARK: FileSystem

    func open(_ path: String, _ mode: OpenMode) throws -> FileDescriptor {
        if mode != .read { try mutate(path) }
        let existed = try base.status(atPath: path) != nil
        let file = try base.open(path, mode)
        lock.lock()
        defer { lock.unlock() }
        if !existed || volatileNames[path] == nil {
            let id = newID()
            volatileNames[path] = id
            durableContent[id] = []
        }
        open[file.raw] = volatileNames[path]
        return file
    }

    func close(_ file: FileDescriptor) {
        lock.lock()
        open[file.raw] = nil
        lock.unlock()
        base.close(file)
    }

    func read(_ file: FileDescriptor, into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws -> Int {
        try base.read(file, into: buffer, at: offset)
    }

    func write(_ file: FileDescriptor, _ bytes: UnsafeRawBufferPointer, at offset: Int64) throws -> Int {
        try mutate(file.path)
        return try base.write(file, bytes, at: offset)
    }

    func sync(_ file: FileDescriptor) throws {
        try mutate(file.path)
        try base.sync(file)
        // Read what was synced through the path (the descriptor may be write-only); the engine never
        // renames a file between writing and syncing it.
        let bytes = currentContent(file.path)
        lock.lock()
        defer { lock.unlock() }
        if let id = open[file.raw] { durableContent[id] = bytes }
    }

    func truncate(_ file: FileDescriptor, to size: Int64) throws {
        try mutate(file.path)
        try base.truncate(file, to: size)
    }

    func status(_ file: FileDescriptor) throws -> FileStatus { try base.status(file) }
    func status(atPath path: String) throws -> FileStatus? { try base.status(atPath: path) }

    func rename(_ source: String, to destination: String) throws {
        try mutate(destination)
        try base.rename(source, to: destination)
        lock.lock()
        defer { lock.unlock() }
        volatileNames[destination] = volatileNames[source]
        volatileNames[source] = nil
    }

    func unlink(_ path: String) throws {
        try mutate(path)
        try base.unlink(path)
        lock.lock()
        defer { lock.unlock() }
        volatileNames[path] = nil
    }

    func makeDirectory(_ path: String) throws {
        try mutate(path)
        try base.makeDirectory(path)
    }

    func syncDirectory(_ path: String) throws {
        try mutate(path)
        try base.syncDirectory(path)
        lock.lock()
        defer { lock.unlock() }
        let prefix = path + "/"
        let isDirectChild: (String) -> Bool = { $0.hasPrefix(prefix) && !$0.dropFirst(prefix.count).contains("/") }
        for name in durableNames.keys where isDirectChild(name) && volatileNames[name] == nil { durableNames[name] = nil }
        for (name, id) in volatileNames where isDirectChild(name) { durableNames[name] = id }
    }

    func contentsOfDirectory(_ path: String) throws -> [String] { try base.contentsOfDirectory(path) }
    func lock(_ file: FileDescriptor, exclusive: Bool, wait: Bool) throws -> Bool { try base.lock(file, exclusive: exclusive, wait: wait) }
    func unlock(_ file: FileDescriptor) { base.unlock(file) }
}
