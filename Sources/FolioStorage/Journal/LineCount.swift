#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Line positions in a file read in chunks: where the line after an offset starts, and how many lines
/// end before one. For a file read in parts on several threads.
enum LineCount {
    /// The bytes read at a time.
    static let chunkSize = 64 << 10

    /// The offset of the first line that starts at or after `offset`: `offset` itself when it is 0 or
    /// follows a `\n`, else just after the next `\n`, or the file's end when there is none.
    ///
    /// - Complexity: O(bytes up to the next `\n`).
    static func lineStart(atOrAfter offset: Int64, in file: FileDescriptor, fileSystem: any FileSystem) throws -> Int64 {
        guard offset > 0 else { return 0 }
        var position = offset - 1
        var found: Int64?
        try chunks(of: file, from: position, fileSystem: fileSystem) { chunk in
            if let newline = chunk.firstIndex(of: 0x0A) {
                found = position + Int64(newline) + 1
                return false
            }
            position += Int64(chunk.count)
            return true
        }
        return found ?? position
    }

    /// How many `\n` the file holds before `offset`.
    ///
    /// - Complexity: O(`offset`) bytes read.
    static func lines(before offset: Int64, in file: FileDescriptor, fileSystem: any FileSystem) throws -> Int {
        var count = 0
        var position: Int64 = 0
        try chunks(of: file, from: 0, fileSystem: fileSystem) { chunk in
            let wanted = Int(min(Int64(chunk.count), offset - position))
            count += chunk.prefix(wanted).reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
            position += Int64(wanted)
            return position < offset
        }
        return count
    }

    /// Calls `body` with each chunk read from `start` until the file ends or `body` returns false.
    private static func chunks(
        of file: FileDescriptor, from start: Int64, fileSystem: any FileSystem, _ body: (UnsafeBufferPointer<UInt8>) throws -> Bool
    ) throws {
        var buffer = [UInt8](repeating: 0, count: chunkSize)
        var position = start
        while true {
            let count = try buffer.withUnsafeMutableBytes { try fileSystem.read(file, into: $0, at: position) }
            guard count > 0 else { return }
            let goOn = try buffer.withUnsafeBufferPointer { try body(UnsafeBufferPointer(rebasing: $0[..<count])) }
            guard goOn else { return }
            position += Int64(count)
        }
    }
}
