/// Tests on eight bytes at once, for the JSON writer's and reader's string loops: most text needs no
/// escape, and is skipped a word at a time instead of a byte at a time.
///
/// A test gives a mask with the high bit of each byte it finds. `bytes(below:in:)` is the classic "has
/// less" test: subtracting `limit` from every byte sets the high bit of each byte that was below it, and
/// `& ~word` keeps the bytes that had no high bit before. A borrow can carry into the next byte and mark
/// it too, but a borrow starts only at a byte that is really below the limit: the lowest marked byte is
/// always a real one, which is all the loops use (``firstMarkedByte(_:)``).
enum ByteWord {
    static let ones: UInt64 = 0x0101_0101_0101_0101
    static let highBits: UInt64 = 0x8080_8080_8080_8080

    /// The eight bytes at `offset` of `bytes`, which must have them, the first in the lowest bits.
    @inline(__always)
    static func load(_ bytes: UnsafeBufferPointer<UInt8>, at offset: Int) -> UInt64 {
        UInt64(littleEndian: UnsafeRawPointer(bytes.baseAddress.unsafelyUnwrapped + offset).loadUnaligned(as: UInt64.self))
    }

    /// Marks the bytes of `word` below `limit` (1...128).
    @inline(__always)
    static func bytes(below limit: UInt64, in word: UInt64) -> UInt64 {
        (word &- ones &* limit) & ~word & highBits
    }

    /// Marks the bytes of `word` equal to `byte`.
    @inline(__always)
    static func bytes(equalTo byte: UInt8, in word: UInt64) -> UInt64 {
        bytes(below: 1, in: word ^ (ones &* UInt64(byte)))
    }

    /// Marks the bytes of `word` from 0x80 up (parts of multi-byte UTF-8 characters); exact.
    @inline(__always)
    static func nonASCIIBytes(_ word: UInt64) -> UInt64 {
        word & highBits
    }

    /// Marks the bytes a JSON string cannot hold as they are: control characters, `"` and `\`.
    @inline(__always)
    static func stringSpecialBytes(_ word: UInt64) -> UInt64 {
        bytes(below: 0x20, in: word) | bytes(equalTo: 0x22, in: word) | bytes(equalTo: 0x5C, in: word)
    }

    /// The position (0...7) of the first marked byte of a mask, or 8 when none is.
    @inline(__always)
    static func firstMarkedByte(_ mask: UInt64) -> Int {
        mask.trailingZeroBitCount / 8
    }

    /// The first `count` bytes of `word` (0...8), the others zero.
    @inline(__always)
    static func prefix(_ word: UInt64, _ count: Int) -> UInt64 {
        count >= 8 ? word : word & ((1 &<< UInt64(8 * count)) &- 1)
    }
}
