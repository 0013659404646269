extension CanonicalDate {
    /// The digits after the point of a date's fraction of a second: the fewest with which `parse` reads
    /// back the identical seconds.
    enum FractionDigits {
        /// At most 19 digits: `significand` written with `count` digits, zeros first.
        case short(significand: UInt64, count: Int)
        /// Any number of ASCII digits.
        case long([UInt8])

        /// The fewest digits with which `readBack(whole:fraction:)` gives exactly `reference`, whose whole
        /// seconds are `whole` and whose fraction (`reference - whole`, perhaps rounded) is `fraction`, in
        /// (0, 1); nil when no digits do.
        ///
        /// The texts that read back as `reference` are an interval of decimals around the exact fraction,
        /// since both roundings in reading are monotonic; so if any text of `count` digits does, one of
        /// the two nearest the fraction does, and these are the only ones tried.
        static func fewest(reading reference: Double, whole: Int64, fraction: Double) -> FractionDigits? {
            func readsBack(_ significand: UInt64, _ count: Int) -> Bool {
                guard let value = CanonicalDate.fractionValue(significand: significand, count: count) else { return false }
                return CanonicalDate.readBack(whole: whole, fraction: value).bitPattern == reference.bitPattern
            }
            // The fraction as an exact binary fraction `remainder / 2⁶⁰`, when it is one (always for
            // seconds of magnitude one or more): its decimal digits then come out exactly, one at a time.
            let scaled = fraction * 0x1p60
            if scaled == scaled.rounded(.towardZero) {
                let half: UInt64 = 1 << 59, mask: UInt64 = (1 << 60) - 1
                var remainder = UInt64(scaled)
                var below: UInt64 = 0  // the fraction's first `count` digits
                var limit: UInt64 = 1  // 10^count
                for count in 1...19 {
                    remainder *= 10  // below 2⁶⁰ · 10 < 2⁶⁴
                    below = below * 10 + remainder >> 60
                    remainder &= mask
                    limit *= 10
                    let above = remainder == 0 || below + 1 == limit ? nil : below + 1
                    // The nearer first; no array of the two, which would allocate for each count.
                    let (first, second) = above != nil && remainder > half ? (above, below) : (below, above)
                    if let first, first > 0, readsBack(first, count) { return .short(significand: first, count: count) }
                    if let second, second > 0, readsBack(second, count) { return .short(significand: second, count: count) }
                }
            }
            return shortestForm(reading: reference, whole: whole, fraction: fraction)
        }

        /// The digits of the fraction's shortest round-trip form (its `description`), which are the
        /// fewest when `whole` is zero: "0.25" gives `25`, and "1.5e-07" gives `00000015` (zeros for the
        /// exponent, then the mantissa without its point). Nil unless they read back as `reference`.
        private static func shortestForm(reading reference: Double, whole: Int64, fraction: Double) -> FractionDigits? {
            var digits: [UInt8] = []
            var shortest = fraction.description
            shortest.withUTF8 { text in
                var mantissa = text[...]
                if let exponentIndex = text.firstIndex(where: { $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }) {
                    let exponent = Int(String(decoding: text[(exponentIndex + 1)...], as: UTF8.self)) ?? 0
                    digits = Array(repeating: UInt8(ascii: "0"), count: max(0, -exponent - 1))
                    mantissa = text[..<exponentIndex]
                } else if let dot = text.firstIndex(of: UInt8(ascii: ".")) {
                    mantissa = text[(dot + 1)...]
                }
                digits += mantissa.filter { $0 != UInt8(ascii: ".") }
            }
            let value = digits.withUnsafeBufferPointer { CanonicalDate.fractionValue($0[...]) }
            guard let value, CanonicalDate.readBack(whole: whole, fraction: value).bitPattern == reference.bitPattern else {
                return nil
            }
            return .long(digits)
        }

        /// How many digits there are.
        var count: Int {
            switch self {
            case .short(_, let count): return count
            case .long(let digits): return digits.count
            }
        }

        /// Writes the digits into `text` from `start`.
        func write(into text: UnsafeMutableBufferPointer<UInt8>, at start: Int) {
            switch self {
            case .short(let significand, let count):
                var rest = significand
                for index in (start..<start + count).reversed() {
                    text[index] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: rest % 10)
                    rest /= 10
                }
            case .long(let digits):
                _ = UnsafeMutableBufferPointer(rebasing: text[start..<start + digits.count]).initialize(from: digits)
            }
        }
    }
}
