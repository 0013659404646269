import Foundation
import Testing
@testable import FolioStorage

/// The line splitter, fed in every chunk size (as NIO's ByteToMessageDecoderVerifier does).
@Suite("Line scanner")
struct LineScannerTests {
    func scan(_ bytes: [UInt8], chunkSize: Int) throws -> (lines: [[UInt8]], result: ScanResult) {
        try withTemporaryDirectory { url in
            let path = url.appending("file").path
            try writeBytes(bytes, to: URL(fileURLWithPath: path))
            let fs = PosixFileSystem()
            let file = try fs.open(path, .read)
            defer { fs.close(file) }
            var lines: [[UInt8]] = []
            let result = try LineScanner.scan(fs, file, chunkSize: chunkSize) { lines.append(Array($0.bytes)) }
            return (lines, result)
        }
    }

    @Test func splitsOnlyOnLineFeedInEveryChunkSize() throws {
        let text = "a\u{2028}b\u{85}c\r\nsecond\rline\n\nlast-without-newline"
        let bytes = Array(text.utf8)
        for chunkSize in 1...24 {
            let (lines, result) = try scan(bytes, chunkSize: chunkSize)
            #expect(lines == [Array("a\u{2028}b\u{85}c".utf8), Array("second\rline".utf8), []], "chunk size \(chunkSize)")
            #expect(result.lineCount == 3)
            #expect(result.tailLength == Int64("last-without-newline".utf8.count))
            #expect(result.validEnd == Int64(bytes.count) - result.tailLength)
        }
    }

    @Test func handlesLinesLongerThanTheBuffer() throws {
        let long = [UInt8](repeating: 0x61, count: 3 << 20)
        let (lines, result) = try scan(long + [0x0A] + Array("b\r\n".utf8), chunkSize: LineScanner.chunkSize)
        #expect(lines.map(\.count) == [long.count, 1])
        #expect(result.tailLength == 0)
    }
}
