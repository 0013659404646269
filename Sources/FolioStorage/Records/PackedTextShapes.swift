/// Two shapes of string most records hold, which ``PackedValues`` keeps in fewer bytes than their text:
/// a date as Folio writes it (`2022-07-20T05:19:19.323Z`: 26 bytes as text, 10 packed) and a UUID as
/// `UUID.uuidString` writes it (`6F9619FF-8B86-D011-B42D-00C04FC964FF`: 38 bytes as text, 17 packed).
///
/// Only the digits are packed, never a date's or a UUID's meaning: any string of the shape, whatever
/// its digits, unpacks to exactly its own bytes, so equal strings still pack to equal bytes.
enum PackedTextShapes {
    /// Whether a string of `length` UTF-8 bytes may have one of the shapes: the test before looking.
    @inline(__always)
    static func mayHaveAShape(length: Int) -> Bool {
        length == uuidLength || (length >= 20 && length <= 21 + maximumFractionDigits)
    }

    // MARK: Dates

    /// The most fraction digits a packed date keeps: 14 digits of date and time and 5 of a fraction make
    /// 19 decimal digits, which fit in 64 bits.
    static let maximumFractionDigits = 5

    /// A string `YYYY-MM-DDTHH:MM:SSZ`, or `YYYY-MM-DDTHH:MM:SS.` with 1 to 5 fraction digits and `Z`, as
    /// its digits read as one decimal number and the number of fraction digits; nil for any other string.
    static func dateDigits(_ utf8: UnsafeBufferPointer<UInt8>) -> (digits: UInt64, fractionDigits: Int)? {
        let count = utf8.count
        guard count == 20 || (count >= 22 && count <= 21 + maximumFractionDigits), utf8[count - 1] == UInt8(ascii: "Z")
        else { return nil }
        let separators: [(Int, UInt8)] = [
            (4, UInt8(ascii: "-")), (7, UInt8(ascii: "-")), (10, UInt8(ascii: "T")),
            (13, UInt8(ascii: ":")), (16, UInt8(ascii: ":")),
        ]
        for (position, byte) in separators where utf8[position] != byte { return nil }
        if count > 20, utf8[19] != UInt8(ascii: ".") { return nil }
        var digits: UInt64 = 0
        for position in 0..<(count - 1) where !isSeparatorPosition(position, count: count) {
            let digit = utf8[position] &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            digits = digits * 10 + UInt64(digit)
        }
        return (digits, count == 20 ? 0 : count - 21)
    }

    /// The length of the text of a date with `fractionDigits` fraction digits.
    static func dateLength(fractionDigits: Int) -> Int {
        fractionDigits == 0 ? 20 : 21 + fractionDigits
    }

    /// Whether `digits` and `fractionDigits` are what ``dateDigits(_:)`` can read.
    static func isDate(digits: UInt64, fractionDigits: Int) -> Bool {
        guard fractionDigits >= 0, fractionDigits <= maximumFractionDigits else { return false }
        var limit: UInt64 = 1
        for _ in 0..<(14 + fractionDigits) { limit *= 10 }
        return digits < limit
    }

    /// Writes the text ``dateDigits(_:)`` read `digits` and `fractionDigits` from into `text`, which
    /// holds ``dateLength(fractionDigits:)`` bytes (checked with ``isDate(digits:fractionDigits:)``).
    static func writeDate(digits: UInt64, fractionDigits: Int, into text: UnsafeMutableBufferPointer<UInt8>) {
        guard let base = text.baseAddress, text.count == dateLength(fractionDigits: fractionDigits) else { return }
        var rest = digits
        base[text.count - 1] = UInt8(ascii: "Z")
        if fractionDigits > 0 {
            for position in (20..<(20 + fractionDigits)).reversed() {
                base[position] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest % 10)
                rest /= 10
            }
            base[19] = UInt8(ascii: ".")
        }
        // What is left is YYYYMMDDHHMMSS, written two digits at a time from the end.
        func pair(at position: Int, then separator: UInt8?) {
            let two = UInt8(truncatingIfNeeded: rest % 100)
            rest /= 100
            base[position] = UInt8(ascii: "0") &+ two / 10
            base[position + 1] = UInt8(ascii: "0") &+ two % 10
            if let separator { base[position + 2] = separator }
        }
        pair(at: 17, then: nil)
        pair(at: 14, then: UInt8(ascii: ":"))
        pair(at: 11, then: UInt8(ascii: ":"))
        pair(at: 8, then: UInt8(ascii: "T"))
        pair(at: 5, then: UInt8(ascii: "-"))
        pair(at: 2, then: UInt8(ascii: "-"))
        pair(at: 0, then: nil)
    }

    private static func isSeparatorPosition(_ position: Int, count: Int) -> Bool {
        switch position {
        case 4, 7, 10, 13, 16: return true
        case 19: return count > 20
        default: return false
        }
    }

    // MARK: UUIDs

    /// The length of a UUID's text.
    static let uuidLength = 36

    /// The 16 bytes of a string of 32 uppercase hexadecimal digits in groups of 8, 4, 4, 4 and 12
    /// separated by `-`, as two 64-bit numbers; nil for any other string (lowercase digits included).
    static func uuidBytes(_ utf8: UnsafeBufferPointer<UInt8>) -> (high: UInt64, low: UInt64)? {
        guard utf8.count == uuidLength, let base = utf8.baseAddress else { return nil }
        let dash = UInt8(ascii: "-")
        // The dashes first: most strings of this length are not UUIDs.
        guard base[8] == dash, base[13] == dash, base[18] == dash, base[23] == dash else { return nil }
        // `count` digits from `position` onto `word`; false at anything but 0-9 and A-F.
        func digits(_ word: inout UInt64, from position: Int, count: Int) -> Bool {
            for offset in 0..<count {
                let byte = base[position + offset]
                let decimal = byte &- UInt8(ascii: "0"), letter = byte &- UInt8(ascii: "A")
                let nibble: UInt8
                if decimal < 10 { nibble = decimal } else if letter < 6 { nibble = letter &+ 10 } else { return false }
                word = word &<< 4 | UInt64(nibble)
            }
            return true
        }
        var high: UInt64 = 0, low: UInt64 = 0
        guard digits(&high, from: 0, count: 8), digits(&high, from: 9, count: 4), digits(&high, from: 14, count: 4),
            digits(&low, from: 19, count: 4), digits(&low, from: 24, count: 12)
        else { return nil }
        return (high, low)
    }

    /// Writes the text ``uuidBytes(_:)`` read `high` and `low` from into `text`, which holds
    /// ``uuidLength`` bytes.
    static func writeUUID(high: UInt64, low: UInt64, into text: UnsafeMutableBufferPointer<UInt8>) {
        guard let base = text.baseAddress, text.count == uuidLength else { return }
        // `count` hexadecimal digits of `word`, from its nibble `first` (0 is the highest), at `position`.
        func digits(_ word: UInt64, first: Int, count: Int, at position: Int) {
            for digit in 0..<count {
                let nibble = UInt8(truncatingIfNeeded: word &>> UInt64(60 - 4 * (first + digit))) & 0xF
                base[position + digit] = nibble < 10 ? UInt8(ascii: "0") &+ nibble : UInt8(ascii: "A") &+ (nibble &- 10)
            }
        }
        digits(high, first: 0, count: 8, at: 0)
        digits(high, first: 8, count: 4, at: 9)
        digits(high, first: 12, count: 4, at: 14)
        digits(low, first: 0, count: 4, at: 19)
        digits(low, first: 4, count: 12, at: 24)
        base[8] = UInt8(ascii: "-")
        base[13] = UInt8(ascii: "-")
        base[18] = UInt8(ascii: "-")
        base[23] = UInt8(ascii: "-")
    }
}
