import Foundation

/// Blobs read from one `git cat-file --batch`: all the requested objects' contents in one buffer, each
/// blob a range of it, so that no file's bytes are copied after git wrote them.
struct GitObjectBatch: Sendable {
    /// Every blob's bytes, one after the other (with git's headers between them).
    let buffer: [UInt8]
    /// Where each object's content is in ``buffer``.
    let ranges: [String: Range<Int>]

    /// Reads the blobs named `objects` (with the sizes the tree listing gave them) in `repository`.
    ///
    /// - Throws: ``StorageError/Code/gitFailed`` when git fails, or answers with another object, type
    ///   or size than the listing gave: what it writes is never read past the expected length.
    static func read(_ objects: [(object: String, size: Int)], in repository: URL, ceiling: Bool, git: GitRunner) throws -> GitObjectBatch {
        guard !objects.isEmpty else { return GitObjectBatch(buffer: [], ranges: [:]) }
        var request: [UInt8] = []
        // Each answer: `<object> blob <size>\n<content>\n`; the header is at most this long.
        var expected = 0
        for (object, size) in objects {
            request += Array(object.utf8) + [UInt8(ascii: "\n")]
            let (sum, overflow) = expected.addingReportingOverflow(size + object.utf8.count + 32)
            guard !overflow else { throw StorageError(.gitFailed, "the store's files add up to more bytes than can be read") }
            expected = sum
        }
        let result = try git.run(["cat-file", "--batch"], in: repository, input: request, outputLimit: expected, ceiling: ceiling)
        guard result.status == 0 else {
            throw StorageError(.gitFailed, "git cat-file --batch failed in \(repository.path): \(result.errors)")
        }
        return try parse(result.output, objects: objects)
    }

    static func parse(_ buffer: [UInt8], objects: [(object: String, size: Int)]) throws -> GitObjectBatch {
        var ranges: [String: Range<Int>] = [:]
        var position = 0
        for (object, size) in objects {
            let header = "\(object) blob \(size)\n"
            let headerBytes = Array(header.utf8)
            guard buffer.count - position >= headerBytes.count, buffer[position..<(position + headerBytes.count)].elementsEqual(headerBytes) else {
                let end = buffer[position...].firstIndex(of: UInt8(ascii: "\n")) ?? buffer.endIndex
                let answer = String(decoding: buffer[position..<min(end, position + 200)], as: UTF8.self)
                throw StorageError(.gitFailed, "git cat-file answered \"\(answer)\" where blob \(object) of \(size) bytes was expected")
            }
            let start = position + headerBytes.count
            guard buffer.count - start > size, buffer[start + size] == UInt8(ascii: "\n") else {
                throw StorageError(.gitFailed, "git cat-file's answer for blob \(object) is shorter than its \(size) bytes")
            }
            ranges[object] = start..<(start + size)
            position = start + size + 1
        }
        return GitObjectBatch(buffer: buffer, ranges: ranges)
    }
}
