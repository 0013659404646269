/// Finds one record of an entity's snapshot file by its identifier without reading the file: its record
/// lines follow the header in increasing identifier order, so a binary search over byte offsets reads
/// O(log *n*) lines. Every line it decodes is checked (checksum, shape) as loading checks it.
struct SnapshotRecordSearch {
    let path: String
    let fileSystem: any FileSystem
    /// The longest line read; a longer one is damage, reported as loading reports it.
    let maximumLineBytes: Int

    /// The values of record `id`, or nil when the snapshot has no such record.
    ///
    /// - Complexity: O(log *n*) line reads for a file of *n* records.
    /// - Throws: ``StorageError`` for a line that does not decode, lines out of order, or a failed read.
    func values(of id: Int64) throws -> RecordValues? {
        let file = try fileSystem.open(path, .read)
        defer { fileSystem.close(file) }
        let size = try fileSystem.status(file).size
        let header = try line(startingAt: 0, in: file, size: size)
        // Invariant: the line of `id`, if any, starts in `low..<high`, and `low` starts a line.
        var low = header.end
        var high = size
        while low < high {
            let middle = low + (high - low) / 2
            let start = middle == low ? low : try lineStart(after: middle - 1, in: file, size: size)
            guard start < high else {
                high = middle
                continue
            }
            let found = try line(startingAt: start, in: file, size: size)
            let record = try found.bytes.withUnsafeBufferPointer { buffer in
                try SnapshotFile.fastRecord(buffer) ?? SnapshotFile.decodeRecord(try LineFraming.decode(buffer))
            }
            if record.0 == id { return record.1 }
            if record.0 < id { low = found.end } else { high = start }
        }
        return nil
    }

    /// The offset just after the first `\n` at or after `offset`, or `size` when there is none.
    private func lineStart(after offset: Int64, in file: FileDescriptor, size: Int64) throws -> Int64 {
        var position = offset
        var chunk = [UInt8](repeating: 0, count: 4096)
        while position < size {
            let count = try chunk.withUnsafeMutableBytes { try fileSystem.read(file, into: $0, at: position) }
            guard count > 0 else { break }
            if let newline = chunk[0..<count].firstIndex(of: 0x0A) { return position + Int64(newline) + 1 }
            position += Int64(count)
            guard position - offset <= Int64(maximumLineBytes) else { throw tooLong(offset) }
        }
        return size
    }

    /// The line starting at `start` (without its `\n` or `\r\n`) and the offset of the next line.
    private func line(startingAt start: Int64, in file: FileDescriptor, size: Int64) throws -> (bytes: [UInt8], end: Int64) {
        var bytes: [UInt8] = []
        var position = start
        var chunk = [UInt8](repeating: 0, count: 4096)
        while position < size {
            let count = try chunk.withUnsafeMutableBytes { try fileSystem.read(file, into: $0, at: position) }
            guard count > 0 else { break }
            if let newline = chunk[0..<count].firstIndex(of: 0x0A) {
                bytes += chunk[0..<newline]
                if bytes.last == 0x0D { bytes.removeLast() }
                return (bytes, position + Int64(newline) + 1)
            }
            bytes += chunk[0..<count]
            position += Int64(count)
            guard bytes.count <= maximumLineBytes else { throw tooLong(start) }
        }
        return (bytes, size)
    }

    private func tooLong(_ offset: Int64) -> StorageError {
        StorageError(.lineTooLong, "a line longer than \(maximumLineBytes) bytes", file: path, offset: offset)
    }
}
