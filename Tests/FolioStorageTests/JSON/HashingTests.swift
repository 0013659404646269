import Testing
@testable import FolioStorage

@Suite("Checksums and hashes")
struct HashingTests {
    @Test func crc32MatchesZlib() {
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(CRC32.checksum([]) == 0)
        let long = [UInt8](repeating: 0x61, count: 1000)
        let split = long.withUnsafeBufferPointer { buffer in
            CRC32.checksum(UnsafeBufferPointer(rebasing: buffer[500...]), continuing: CRC32.checksum(UnsafeBufferPointer(rebasing: buffer[..<500])))
        }
        #expect(split == CRC32.checksum(long))
    }

    @Test func crc32AgreesWithTheBitwiseDefinitionAtEveryLengthAndOffset() {
        // The definition, one bit at a time: what the table-driven version must equal, whichever of its
        // sixteen-byte, eight-byte and single-byte loops a length and an offset send a byte through.
        func bitwise(_ bytes: ArraySlice<UInt8>, continuing crc: UInt32 = 0) -> UInt32 {
            var c = ~crc
            for byte in bytes {
                c ^= UInt32(byte)
                for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
            }
            return ~c
        }
        var random = SystemRandomNumberGenerator()
        let bytes = (0..<300).map { _ in UInt8.random(in: 0...255, using: &random) }
        bytes.withUnsafeBufferPointer { buffer in
            for start in 0..<9 {
                for end in start...bytes.count where end - start <= 70 || end == bytes.count {
                    let slice = UnsafeBufferPointer(rebasing: buffer[start..<end])
                    #expect(CRC32.checksum(slice) == bitwise(bytes[start..<end]), "bytes \(start)..<\(end)")
                    #expect(CRC32.checksum(slice, continuing: 0x1234_5678) == bitwise(bytes[start..<end], continuing: 0x1234_5678))
                }
            }
        }
        // The checksum of a line's content after its opening brace is the checksum of `{` and it.
        let body = Array(#""id":7,"values":{"name":"Tokyo"}}"#.utf8)
        #expect(body.withUnsafeBufferPointer { CRC32.checksum(afterOpeningBrace: $0) } == CRC32.checksum([UInt8(ascii: "{")] + body))
    }

    /// The checksum of two parts made from the checksum of each equals the checksum of both, at every
    /// length of the second part up to a few hundred bytes and at larger ones (where the operator is
    /// squared many times).
    @Test func twoPartsChecksumsCombineIntoTheChecksumOfBoth() {
        var random = SeededGenerator(seed: 0xC4C)
        let bytes = (0..<70_000).map { _ in UInt8.random(in: 0...255, using: &random) }
        bytes.withUnsafeBufferPointer { buffer in
            var splits = (0...300).map { ($0, min(300, 700 - $0)) }
            splits += [(0, 65_536), (1, 65_537), (12_345, 54_321), (40_000, 30_000), (69_999, 1)]
            for (firstLength, secondLength) in splits {
                let first = UnsafeBufferPointer(rebasing: buffer[..<firstLength])
                let second = UnsafeBufferPointer(rebasing: buffer[firstLength..<(firstLength + secondLength)])
                let both = UnsafeBufferPointer(rebasing: buffer[..<(firstLength + secondLength)])
                let combined = CRC32.combine(CRC32.checksum(first), CRC32.checksum(second), secondLength: secondLength)
                #expect(combined == CRC32.checksum(both), "\(firstLength) + \(secondLength) bytes")
            }
        }
        #expect(CRC32.combine(0xDEAD_BEEF, 0, secondLength: 0) == 0xDEAD_BEEF)
    }

    @Test func sha256MatchesFIPSVectors() {
        #expect(SHA256.hexDigest([UInt8]()) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256.hexDigest(Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(
            SHA256.hexDigest(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(SHA256.hexDigest([UInt8](repeating: 0x61, count: 1_000_000)) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }
}
