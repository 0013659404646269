import FolioStorage

/// The one text form Folio stores a `Date` in: ISO 8601 in UTC, `2026-03-01T09:30:00Z`, with a
/// fraction of a second only when there is one, written with the fewest digits that `parse` reads back
/// as the identical `Date` (`2026-03-01T09:30:00.25Z`, `2022-07-20T05:19:19.323Z`).
///
/// Dates that no such text reads back exactly (years outside 0001–9999, and some instants in the second
/// before 2001-01-01) are stored as a number: seconds since 2001-01-01T00:00:00Z
/// (`Date.timeIntervalSinceReferenceDate`). `parse` reads fractions of any length, so texts written
/// with longer fractions read back as before.
///
/// Both directions work on UTF-8 bytes: `encode` writes the text straight into the new string's
/// storage, and `parse` reads the string's own bytes without copying them.
package enum CanonicalDate {
    private static let referenceOffset: Int64 = 978_307_200  // 1970 → 2001 in seconds

    /// The stored form of `date`.
    package static func encode(_ date: Date) -> JSONValue {
        let reference = date.timeIntervalSinceReferenceDate
        guard reference.isFinite, abs(reference) < 4e11 else { return .double(reference) }
        let whole = reference.rounded(.down)
        let fraction = reference - whole  // exact, except that it rounds for `reference` in (-0.5, 0)
        let unixSeconds = Int64(whole) + referenceOffset
        var days = unixSeconds / 86_400
        var secondsOfDay = unixSeconds % 86_400
        if secondsOfDay < 0 {
            secondsOfDay += 86_400
            days -= 1
        }
        let date = CivilDate.civil(fromDays: days)
        guard date.year >= 1 && date.year <= 9999 else { return .double(reference) }
        guard fraction > 0 else { return .string(text(date, secondsOfDay, fraction: nil)) }
        guard let digits = FractionDigits.fewest(reading: reference, whole: Int64(whole), fraction: fraction) else {
            return .double(reference)
        }
        return .string(text(date, secondsOfDay, fraction: digits))
    }

    /// `YYYY-MM-DDTHH:MM:SS`, then `.` and the fraction's digits if there are any, then `Z`, written
    /// into a string of exactly that length.
    private static func text(
        _ date: (year: Int64, month: Int64, day: Int64), _ secondsOfDay: Int64,
        fraction: FractionDigits?
    ) -> String {
        let length = 20 + (fraction.map { 1 + $0.count } ?? 0)
        return String(unsafeUninitializedCapacity: length) { text in
            func put(_ value: Int64, _ width: Int, at start: Int, then separator: Unicode.Scalar) {
                var rest = value
                for index in (start..<start + width).reversed() {
                    text[index] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: rest % 10)
                    rest /= 10
                }
                text[start + width] = UInt8(ascii: separator)
            }
            put(date.year, 4, at: 0, then: "-")
            put(date.month, 2, at: 5, then: "-")
            put(date.day, 2, at: 8, then: "T")
            put(secondsOfDay / 3600, 2, at: 11, then: ":")
            put(secondsOfDay / 60 % 60, 2, at: 14, then: ":")
            put(secondsOfDay % 60, 2, at: 17, then: fraction == nil ? "Z" : ".")
            fraction?.write(into: text, at: 20)
            text[length - 1] = UInt8(ascii: "Z")
            return length
        }
    }

    /// The seconds since 2001 that `parse` reads from a text: its whole seconds plus the `Double` nearest
    /// to its fraction. `encode` checks its digits with this same sum, so the two cannot disagree.
    static func readBack(whole: Int64, fraction: Double) -> Double {
        Double(whole) + fraction
    }

    /// Reads a date in the stored form (or a number of seconds since 2001-01-01T00:00:00Z).
    package static func decode(_ value: JSONValue) -> Date? {
        switch value {
        case .double(let seconds): return Date(timeIntervalSinceReferenceDate: seconds)
        case .int(let seconds): return Date(timeIntervalSinceReferenceDate: Double(seconds))
        case .string(let text): return parse(text)
        default: return nil
        }
    }

    /// Reads a date in the stored text form; nil for any other text. The fraction of a second, of any
    /// number of digits, is read as the nearest `Double`.
    package static func parse(_ text: String) -> Date? {
        if let parsed: Date? = text.utf8.withContiguousStorageIfAvailable({ parse(utf8: $0) }) { return parsed }
        return Array(text.utf8).withUnsafeBufferPointer { parse(utf8: $0) }
    }

    private static func parse(utf8 bytes: UnsafeBufferPointer<UInt8>) -> Date? {
        guard bytes.count >= 20, bytes[bytes.count - 1] == UInt8(ascii: "Z") else { return nil }
        func number(_ from: Int, _ count: Int) -> Int64? {  // within the first 19 bytes
            var value: Int64 = 0
            for byte in bytes[from..<from + count] {
                guard byte >= 0x30 && byte <= 0x39 else { return nil }
                value = value * 10 + Int64(byte - 0x30)
            }
            return value
        }
        guard let year = number(0, 4), bytes[4] == UInt8(ascii: "-"), let month = number(5, 2), bytes[7] == UInt8(ascii: "-"),
            let day = number(8, 2), bytes[10] == UInt8(ascii: "T"), let hour = number(11, 2), bytes[13] == UInt8(ascii: ":"),
            let minute = number(14, 2), bytes[16] == UInt8(ascii: ":"), let second = number(17, 2),
            (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 60
        else {
            return nil
        }
        var fraction = 0.0
        if bytes.count > 20 {
            guard bytes[19] == UInt8(ascii: "."), let parsed = fractionValue(bytes[20..<(bytes.count - 1)]) else {
                return nil
            }
            fraction = parsed
        }
        let days = CivilDate.days(year: year, month: month, day: day)
        let unixSeconds = days * 86_400 + hour * 3600 + minute * 60 + second
        return Date(timeIntervalSinceReferenceDate: readBack(whole: unixSeconds - referenceOffset, fraction: fraction))
    }

    /// 10⁰ through 10¹⁹, each exactly representable as a `Double`.
    private static let powersOfTen: [Double] = (0...19).map { power in (0..<power).reduce(1.0) { product, _ in product * 10 } }

    /// The `Double` nearest to "0." followed by `digits`, exactly as `Double(String)` reads it; nil
    /// unless `digits` is one or more ASCII digits.
    static func fractionValue(_ digits: Slice<UnsafeBufferPointer<UInt8>>) -> Double? {
        guard !digits.isEmpty else { return nil }
        var significand: UInt64 = 0
        for byte in digits {
            guard byte >= 0x30 && byte <= 0x39 else { return nil }
            significand = significand &* 10 &+ UInt64(byte - 0x30)  // meaningful for up to 19 digits
        }
        if digits.count <= 19 { return fractionValue(significand: significand, count: digits.count) }
        return Double(decimalText(count: digits.count) { _ = UnsafeMutableBufferPointer(rebasing: $0).initialize(from: digits) })
    }

    /// The `Double` nearest to "0." followed by `significand` written with `count` digits (zeros first),
    /// for `count` of at most 19.
    static func fractionValue(significand: UInt64, count: Int) -> Double? {
        // Clinger's fast path: an integer of at most 2⁵³ and a power of ten of at most 10²² are both
        // exact, so their one correctly rounded quotient is the correctly rounded decimal.
        if significand <= 1 << 53 { return Double(significand) / powersOfTen[count] }
        return Double(
            decimalText(count: count) { digits in
                var rest = significand
                for index in digits.indices.reversed() {
                    digits[index] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: rest % 10)
                    rest /= 10
                }
            })
    }

    /// "0." followed by `count` digits that `writeDigits` puts in the buffer it is given.
    private static func decimalText(count: Int, _ writeDigits: (inout Slice<UnsafeMutableBufferPointer<UInt8>>) -> Void) -> String {
        String(unsafeUninitializedCapacity: count + 2) { text in
            text[0] = UInt8(ascii: "0")
            text[1] = UInt8(ascii: ".")
            var digits = text[2...]
            writeDigits(&digits)
            return count + 2
        }
    }
}
