// The Folio compiler plugin: a framed JSON conversation with the compiler on stdin/stdout.
//
// Each message is an 8-byte little-endian length followed by that many bytes of UTF-8 JSON. A
// zero-length frame or the end of input ends the conversation. Standard output carries frames only:
// it is duplicated for messaging and then pointed at standard error, so that a stray `print` can
// never corrupt the stream. All macro logic lives in FolioMacroKit.

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#else
    #error("Unsupported C library")
#endif
import FolioMacroKit

let inputDescriptor = dup(0)
let outputDescriptor = dup(1)
close(0)
dup2(2, 1)

/// Reads exactly `count` bytes; nil at end of input.
func readExactly(_ count: Int) -> [UInt8]? {
    var buffer = [UInt8](repeating: 0, count: count)
    var filled = 0
    while filled < count {
        let result = buffer.withUnsafeMutableBytes { raw in
            read(inputDescriptor, raw.baseAddress! + filled, count - filled)
        }
        if result < 0 && errno == EINTR { continue }
        if result <= 0 { return nil }
        filled += result
    }
    return buffer
}

func writeFrame(_ payload: [UInt8]) {
    var header = [UInt8](repeating: 0, count: 8)
    var length = UInt64(payload.count)
    for index in 0..<8 {
        header[index] = UInt8(truncatingIfNeeded: length)
        length >>= 8
    }
    let frame = header + payload
    var written = 0
    while written < frame.count {
        let result = frame.withUnsafeBytes { raw in
            write(outputDescriptor, raw.baseAddress! + written, frame.count - written)
        }
        if result < 0 && errno == EINTR { continue }
        if result <= 0 { exit(0) }
        written += result
    }
}

let expander = MacroExpander()
while let header = readExactly(8) {
    var length: UInt64 = 0
    for index in (0..<8).reversed() {
        length = (length << 8) | UInt64(header[index])
    }
    if length == 0 { break }
    guard length < 1 << 31, let payload = readExactly(Int(length)) else { break }
    writeFrame(expander.handle(message: payload))
}
exit(0)
