/// One line of a file, as the scanner hands it out.
package struct ScannedLine {
    /// The line's bytes, without `\n` and without a `\r` just before it.
    package var bytes: UnsafeBufferPointer<UInt8>
    /// The 1-based line number.
    package var number: Int
    /// The byte offset where the line starts.
    package var offset: Int64
    /// The offset just after the line's `\n`.
    package var end: Int64
}

/// What remains after the last `\n` of a file: a torn or junk tail, or nothing.
package struct ScanResult {
    /// The offset just after the last complete line (where the next append goes).
    package var validEnd: Int64
    /// How many complete lines were seen (the last line number).
    package var lineCount: Int
    /// The number of bytes after ``validEnd`` (0 when the file ends with `\n`).
    package var tailLength: Int64
    /// The first bytes of the tail (at most 256), for messages and side files.
    package var tailPrefix: [UInt8]
}

/// Streams the lines of a file through a bounded buffer (1 MiB, grown only for longer lines, up to the
/// line limit).
///
/// Lines are split on byte 0x0A only: never on U+2028, U+0085 or a lone `\r`. A final segment without
/// `\n` is not handed out; it is reported as the tail.
///
/// Memory: the buffer holds at most `max(chunkSize, maximumLineBytes + 2)` bytes, whatever the file
/// holds; a line (or tail) longer than `maximumLineBytes` is refused with `lineTooLong` once that many
/// bytes of it have been read, before any more.
package enum LineScanner {
    /// The buffer size used to stream files.
    package static let chunkSize = 1 << 20

    /// Calls `body` for each complete line from `start` (with `firstLineNumber` for it).
    ///
    /// - Throws: ``StorageError`` `lineTooLong` naming the file, line and offset when a line (without
    ///   its `\n`) is longer than `maximumLineBytes`; errors of `body` and of reading.
    package static func scan(
        _ fileSystem: any FileSystem, _ file: FileDescriptor, from start: Int64 = 0, firstLineNumber: Int = 1,
        chunkSize: Int = LineScanner.chunkSize, maximumLineBytes: Int = StoreConfiguration.defaultMaximumLineBytes,
        _ body: (ScannedLine) throws -> Void
    ) throws -> ScanResult {
        let chunkSize = max(1, chunkSize)
        // Clamped so that the `+ 2` below cannot overflow: a caller's limit that large means none short of memory.
        let maximumLineBytes = min(max(1, maximumLineBytes), Int.max - 2)
        // A line of the maximum length and its `\r\n` fit in the largest buffer.
        let bufferLimit = max(chunkSize, maximumLineBytes + 2)
        // Grown with realloc, which moves a large block's pages instead of copying them: the buffer
        // costs its own size, not the old and the new size at once.
        var capacity = chunkSize
        guard var buffer = malloc(capacity)?.assumingMemoryBound(to: UInt8.self) else {
            throw StorageError.io("allocate a read buffer", path: file.path, errno: ENOMEM)
        }
        defer { free(buffer) }
        var filled = 0  // bytes in buffer
        var bufferOffset = start  // file offset of buffer[0]
        var lineNumber = firstLineNumber - 1
        var atEOF = false
        while !atEOF {
            if filled == capacity {
                guard capacity < bufferLimit else {
                    throw StorageError(
                        .lineTooLong,
                        "line is longer than \(maximumLineBytes) bytes (the configured maximum line length) and has no end within that; the file is damaged or not a Folio file",
                        file: file.path, line: lineNumber + 1, offset: bufferOffset)
                }
                let grown = capacity > bufferLimit / 2 ? bufferLimit : 2 * capacity
                guard let moved = realloc(buffer, grown) else {
                    throw StorageError.io("grow a read buffer to \(grown) bytes", path: file.path, errno: ENOMEM)
                }
                buffer = moved.assumingMemoryBound(to: UInt8.self)
                capacity = grown
            }
            let count = try fileSystem.read(
                file, into: UnsafeMutableRawBufferPointer(start: buffer + filled, count: capacity - filled),
                at: bufferOffset + Int64(filled))
            if count == 0 { atEOF = true }
            var position = filled
            filled += count
            var consumed = 0
            let all = UnsafeBufferPointer(start: buffer, count: filled)
            while position < filled, let hit = memchr(buffer + position, 0x0A, filled - position) {
                let newline = buffer.distance(to: hit.assumingMemoryBound(to: UInt8.self))
                var lineEnd = newline
                if lineEnd > consumed && all[lineEnd - 1] == 0x0D { lineEnd -= 1 }
                lineNumber += 1
                if lineEnd - consumed > maximumLineBytes {
                    throw StorageError(
                        .lineTooLong,
                        "line is \(lineEnd - consumed) bytes long, more than the configured maximum of \(maximumLineBytes); the file is damaged or not a Folio file",
                        file: file.path, line: lineNumber, offset: bufferOffset + Int64(consumed))
                }
                try body(
                    ScannedLine(
                        bytes: UnsafeBufferPointer(rebasing: all[consumed..<lineEnd]), number: lineNumber,
                        offset: bufferOffset + Int64(consumed), end: bufferOffset + Int64(newline + 1)))
                consumed = newline + 1
                position = consumed
            }
            if consumed > 0 {
                if filled > consumed { memmove(buffer, buffer + consumed, filled - consumed) }
                filled -= consumed
                bufferOffset += Int64(consumed)
            }
            // Keep the buffer bounded: give back growth once the long line is gone.
            if filled < chunkSize && capacity > chunkSize, let shrunk = realloc(buffer, chunkSize) {
                buffer = shrunk.assumingMemoryBound(to: UInt8.self)
                capacity = chunkSize
            }
        }
        return ScanResult(
            validEnd: bufferOffset, lineCount: lineNumber, tailLength: Int64(filled),
            tailPrefix: Array(UnsafeBufferPointer(start: buffer, count: min(filled, 256))))
    }
}
