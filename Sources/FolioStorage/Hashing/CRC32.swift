/// CRC-32 (IEEE 802.3, the polynomial of zlib, gzip and PNG; Python's `zlib.crc32`).
///
/// Journal, snapshot and manifest lines carry the CRC-32 of their own content, which catches every
/// single flipped byte and every burst up to 32 bits.
package enum CRC32 {
    /// Slicing-by-16 tables: table `k` holds the CRC of each byte followed by `k` zero bytes.
    private static let tables: [[UInt32]] = {
        var tables = [[UInt32]](repeating: [UInt32](repeating: 0, count: 256), count: 16)
        for n in 0..<256 {
            var c = UInt32(n)
            for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
            tables[0][n] = c
        }
        for n in 0..<256 {
            var c = tables[0][n]
            for k in 1..<16 {
                c = tables[0][Int(c & 0xFF)] ^ (c >> 8)
                tables[k][n] = c
            }
        }
        return tables
    }()

    private static let flat: [UInt32] = tables.flatMap { $0 }

    /// The CRC-32 of `bytes`, continuing from `crc` (0 to start).
    package static func checksum(_ bytes: UnsafeBufferPointer<UInt8>, continuing crc: UInt32 = 0) -> UInt32 {
        var c = ~crc
        guard let base = bytes.baseAddress else { return crc }
        flat.withUnsafeBufferPointer { t in
            let raw = UnsafeRawPointer(base)
            var i = 0
            let n = bytes.count
            // Sixteen bytes at a time, read as two little-endian words.
            while n - i >= 16 {
                let low = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: i, as: UInt64.self))
                let high = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: i + 8, as: UInt64.self))
                let one = c ^ UInt32(truncatingIfNeeded: low)
                let two = UInt32(truncatingIfNeeded: low >> 32)
                let three = UInt32(truncatingIfNeeded: high)
                let four = UInt32(truncatingIfNeeded: high >> 32)
                c = t[15 * 256 + Int(one & 0xFF)] ^ t[14 * 256 + Int((one >> 8) & 0xFF)]
                    ^ t[13 * 256 + Int((one >> 16) & 0xFF)] ^ t[12 * 256 + Int(one >> 24)]
                    ^ t[11 * 256 + Int(two & 0xFF)] ^ t[10 * 256 + Int((two >> 8) & 0xFF)]
                    ^ t[9 * 256 + Int((two >> 16) & 0xFF)] ^ t[8 * 256 + Int(two >> 24)]
                    ^ t[7 * 256 + Int(three & 0xFF)] ^ t[6 * 256 + Int((three >> 8) & 0xFF)]
                    ^ t[5 * 256 + Int((three >> 16) & 0xFF)] ^ t[4 * 256 + Int(three >> 24)]
                    ^ t[3 * 256 + Int(four & 0xFF)] ^ t[2 * 256 + Int((four >> 8) & 0xFF)]
                    ^ t[1 * 256 + Int((four >> 16) & 0xFF)] ^ t[Int(four >> 24)]
                i += 16
            }
            // Then eight at a time.
            while n - i >= 8 {
                let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: i, as: UInt64.self))
                let one = c ^ UInt32(truncatingIfNeeded: word)
                let two = UInt32(truncatingIfNeeded: word >> 32)
                c = t[7 * 256 + Int(one & 0xFF)] ^ t[6 * 256 + Int((one >> 8) & 0xFF)]
                    ^ t[5 * 256 + Int((one >> 16) & 0xFF)] ^ t[4 * 256 + Int(one >> 24)]
                    ^ t[3 * 256 + Int(two & 0xFF)] ^ t[2 * 256 + Int((two >> 8) & 0xFF)]
                    ^ t[1 * 256 + Int((two >> 16) & 0xFF)] ^ t[Int(two >> 24)]
                i += 8
            }
            while i < n {
                c = t[Int((c ^ UInt32(base[i])) & 0xFF)] ^ (c >> 8)
                i += 1
            }
        }
        return ~c
    }

    /// The CRC-32 of `{` followed by `bytes`: the checksum of a line whose content after its opening
    /// brace is `bytes`.
    package static func checksum(afterOpeningBrace bytes: UnsafeBufferPointer<UInt8>) -> UInt32 {
        // The CRC-32 of the single byte `{`, inverted back into a running register value.
        checksum(bytes, continuing: openingBraceChecksum)
    }

    private static let openingBraceChecksum: UInt32 = [UInt8(ascii: "{")].withUnsafeBufferPointer { checksum($0) }

    /// Writes the eight lowercase hexadecimal digits of `value` into `bytes` from `start`.
    package static func writeHex(_ value: UInt32, into bytes: inout [UInt8], at start: Int) {
        bytes.withUnsafeMutableBufferPointer { output in
            for k in 0..<8 {
                output[start + k] = _hexDigits[Int((value >> (28 - 4 * UInt32(k))) & 0xF)]
            }
        }
    }

    /// The CRC-32 of `bytes`.
    package static func checksum(_ bytes: [UInt8]) -> UInt32 {
        bytes.withUnsafeBufferPointer { checksum($0) }
    }
}
