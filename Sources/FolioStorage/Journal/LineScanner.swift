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

/// Streams the lines of a file through a bounded buffer (1 MiB, grown only for longer lines).
///
/// Lines are split on byte 0x0A only: never on U+2028, U+0085 or a lone `\r`. A final segment without
/// `\n` is not handed out; it is reported as the tail.
package enum LineScanner {
    /// The buffer size used to stream files.
    package static let chunkSize = 1 << 20

    /// Calls `body` for each complete line from `start` (with `firstLineNumber` for it).
    package static func scan(
        _ fileSystem: any FileSystem, _ file: FileDescriptor, from start: Int64 = 0, firstLineNumber: Int = 1,
        chunkSize: Int = LineScanner.chunkSize, _ body: (ScannedLine) throws -> Void
    ) throws -> ScanResult {
        let chunkSize = max(1, chunkSize)
        var buffer = [UInt8](repeating: 0, count: chunkSize)
        var filled = 0  // bytes in buffer
        var bufferOffset = start  // file offset of buffer[0]
        var lineNumber = firstLineNumber - 1
        var atEOF = false
        while !atEOF {
            if filled == buffer.count { buffer.append(contentsOf: [UInt8](repeating: 0, count: buffer.count)) }
            let count = try buffer.withUnsafeMutableBytes { raw in
                try fileSystem.read(
                    file, into: UnsafeMutableRawBufferPointer(rebasing: raw[filled...]), at: bufferOffset + Int64(filled))
            }
            if count == 0 { atEOF = true }
            let searchFrom = filled
            filled += count
            var consumed = 0
            try buffer.withUnsafeBufferPointer { all in
                var position = searchFrom
                while position < filled {
                    guard let base = all.baseAddress,
                        let hit = memchr(base + position, 0x0A, filled - position)
                    else { break }
                    let newline = base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
                    var lineEnd = newline
                    if lineEnd > consumed && all[lineEnd - 1] == 0x0D { lineEnd -= 1 }
                    lineNumber += 1
                    try body(
                        ScannedLine(
                            bytes: UnsafeBufferPointer(rebasing: all[consumed..<lineEnd]), number: lineNumber,
                            offset: bufferOffset + Int64(consumed), end: bufferOffset + Int64(newline + 1)))
                    consumed = newline + 1
                    position = consumed
                }
            }
            if consumed > 0 {
                buffer.withUnsafeMutableBufferPointer { all in
                    if let base = all.baseAddress, filled > consumed {
                        memmove(base, base + consumed, filled - consumed)
                    }
                }
                filled -= consumed
                bufferOffset += Int64(consumed)
            }
            // Keep the buffer bounded: give back growth once the long line is gone.
            if filled < chunkSize && buffer.count > chunkSize { buffer.removeLast(buffer.count - chunkSize) }
        }
        return ScanResult(
            validEnd: bufferOffset, lineCount: lineNumber, tailLength: Int64(filled),
            tailPrefix: Array(buffer[0..<min(filled, 256)]))
    }
}
