/// The exact decimal digits of an integral double, for the reader's check that an integer too large
/// for `Int64` is kept exactly (`9223372036854775808` is 2^63, a double) or refused, never rounded
/// (`123456789012345678901234567890` has no double of that value).
enum ExactIntegerDigits {
    /// The ASCII decimal digits of `value`, which must be finite, non-negative and integral.
    static func digits(of value: Double) -> [UInt8] {
        guard value >= 1 else { return [UInt8(ascii: "0")] }
        // value = significand * 2^shift, the significand an integer below 2^53.
        let shift = Int(value.exponent) - Double.significandBitCount
        var significand = (UInt64(1) << UInt64(Double.significandBitCount)) | value.significandBitPattern
        var doublings = shift
        if shift < 0 {
            significand >>= UInt64(-shift)
            doublings = 0
        }
        // Little-endian limbs of nine decimal digits each.
        let base: UInt64 = 1_000_000_000
        var limbs: [UInt64] = []
        while significand > 0 {
            limbs.append(significand % base)
            significand /= base
        }
        for _ in 0..<doublings {
            var carry: UInt64 = 0
            for k in limbs.indices {
                let doubled = limbs[k] * 2 + carry
                limbs[k] = doubled % base
                carry = doubled / base
            }
            if carry > 0 { limbs.append(carry) }
        }
        var text = String(limbs.last ?? 0)
        for limb in limbs.dropLast().reversed() {
            let part = String(limb)
            text += String(repeating: "0", count: 9 - part.count) + part
        }
        return Array(text.utf8)
    }
}
