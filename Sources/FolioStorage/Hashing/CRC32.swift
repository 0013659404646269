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
                c =
                    t[15 * 256 + Int(one & 0xFF)] ^ t[14 * 256 + Int((one >> 8) & 0xFF)]
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
                c =
                    t[7 * 256 + Int(one & 0xFF)] ^ t[6 * 256 + Int((one >> 8) & 0xFF)]
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

    /// The CRC-32 of the single byte `{`, where every line's checksummed content starts.
    static let openingBraceChecksum: UInt32 = [UInt8(ascii: "{")].withUnsafeBufferPointer { checksum($0) }

    /// The CRC-32 of some bytes followed by others, from the CRC-32 of each (`first`, `second`) and the
    /// number of the others (`secondLength`), in O(log `secondLength`) steps instead of a pass over them:
    /// separate threads can each check a part of a line, and the parts' checksums make the line's.
    ///
    /// Appending a byte multiplies the CRC register by x⁸ modulo the polynomial (a linear map over
    /// GF(2)); so the first part's register is carried past the second part's bytes by applying that
    /// map `secondLength` times, the map squared repeatedly, and the second part's checksum added.
    package static func combine(_ first: UInt32, _ second: UInt32, secondLength: Int) -> UInt32 {
        guard secondLength > 0 else { return first }
        // `odd` applies one zero bit: the reflected polynomial, then a shift.
        var odd = [UInt32](repeating: 0, count: 32)
        odd[0] = 0xEDB8_8320
        for bit in 1..<32 { odd[bit] = 1 << UInt32(bit - 1) }
        var even = [UInt32](repeating: 0, count: 32)
        square(odd, into: &even)  // two zero bits
        square(even, into: &odd)  // four zero bits
        var register = first
        var remaining = secondLength
        // Each step squares the operator (8, 16, 32 … zero bits per byte count bit) and applies it
        // where the length has a one.
        while remaining > 0 {
            square(odd, into: &even)
            if remaining & 1 != 0 { register = times(even, register) }
            remaining >>= 1
            if remaining == 0 { break }
            square(even, into: &odd)
            if remaining & 1 != 0 { register = times(odd, register) }
            remaining >>= 1
        }
        return register ^ second
    }

    /// The 32×32 bit matrix `matrix` (one column a word) applied to `vector`.
    private static func times(_ matrix: [UInt32], _ vector: UInt32) -> UInt32 {
        var sum: UInt32 = 0
        var vector = vector
        var column = 0
        while vector != 0 {
            if vector & 1 != 0 { sum ^= matrix[column] }
            vector >>= 1
            column += 1
        }
        return sum
    }

    /// `matrix` times itself, into `square`.
    private static func square(_ matrix: [UInt32], into square: inout [UInt32]) {
        for column in 0..<32 { square[column] = times(matrix, matrix[column]) }
    }

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
