/// Finds the first occurrence of either of two short byte strings in a large buffer, in one pass: blame's
/// search of `history.jsonl` for one record's identifier and for migrations.
///
/// Each step compares 32 bytes at once with each needle's second byte and, as many bytes further on,
/// with its last byte; only where both agree is the whole needle compared. In JSON text a pair of
/// bytes that far apart is rare, so the search runs at several bytes per cycle, and one pass for both
/// needles reads the buffer once.
struct ByteSearch {
    /// The two needles, each at least 2 bytes long (a search for one gives it twice).
    let needles: (first: [UInt8], second: [UInt8])

    /// A search for `first` and `second`; nil when either is shorter than 2 bytes.
    init?(_ first: [UInt8], _ second: [UInt8]) {
        guard first.count >= 2, second.count >= 2 else { return nil }
        needles = (first, second)
    }

    /// The offset of the first occurrence of either needle in `bytes` at or after `start`, and whether
    /// it is the first needle (the first needle wins where both start); nil when neither occurs.
    ///
    /// - Complexity: O(*n*) for *n* bytes after `start`, times a needle's length where its two bytes
    ///   agree and the rest does not.
    func firstMatch(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> (offset: Int, isFirst: Bool)? {
        guard start >= 0, let base = bytes.baseAddress else { return nil }
        let n = bytes.count
        let raw = UnsafeRawPointer(base)
        let (a, b) = needles
        let (aLast, bLast) = (a.count - 1, b.count - 1)
        let reach = max(aLast, bLast)
        let (aSecond, aFinal) = (SIMD32<UInt8>(repeating: a[1]), SIMD32<UInt8>(repeating: a[aLast]))
        let (bSecond, bFinal) = (SIMD32<UInt8>(repeating: b[1]), SIMD32<UInt8>(repeating: b[bLast]))
        var position = start
        while position + reach + 32 <= n {
            let second = raw.loadUnaligned(fromByteOffset: position + 1, as: SIMD32<UInt8>.self)
            let aEnds = raw.loadUnaligned(fromByteOffset: position + aLast, as: SIMD32<UInt8>.self)
            let bEnds = raw.loadUnaligned(fromByteOffset: position + bLast, as: SIMD32<UInt8>.self)
            let candidates = ((second .== aSecond) .& (aEnds .== aFinal)) .| ((second .== bSecond) .& (bEnds .== bFinal))
            if any(candidates), let match = firstMatch(in: bytes, at: position..<(position + 32)) { return match }
            position += 32
        }
        return firstMatch(in: bytes, at: position..<n)
    }

    /// The first needle starting at an offset in `offsets`, compared byte by byte.
    private func firstMatch(in bytes: UnsafeBufferPointer<UInt8>, at offsets: Range<Int>) -> (offset: Int, isFirst: Bool)? {
        for offset in offsets {
            if Self.matches(needles.first, bytes, at: offset) { return (offset, true) }
            if Self.matches(needles.second, bytes, at: offset) { return (offset, false) }
        }
        return nil
    }

    private static func matches(_ needle: [UInt8], _ bytes: UnsafeBufferPointer<UInt8>, at offset: Int) -> Bool {
        guard offset >= 0, offset <= bytes.count - needle.count else { return false }
        for index in needle.indices where bytes[offset + index] != needle[index] { return false }
        return true
    }
}
