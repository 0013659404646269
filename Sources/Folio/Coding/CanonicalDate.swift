import FolioStorage

/// The one text form Folio stores a `Date` in: ISO 8601 in UTC, `2026-03-01T09:30:00Z`, with a
/// fraction of a second only when there is one, written with as many digits as it takes to read back
/// the identical `Date` (`2026-03-01T09:30:00.25Z`).
///
/// Years outside 0001–9999 cannot be written this way; such dates are stored as a number: seconds
/// since 2001-01-01T00:00:00Z (`Date.timeIntervalSinceReferenceDate`).
enum CanonicalDate {
    private static let referenceOffset: Int64 = 978_307_200  // 1970 → 2001 in seconds

    /// The stored form of `date`.
    static func encode(_ date: Date) -> JSONValue {
        let reference = date.timeIntervalSinceReferenceDate
        guard reference.isFinite, abs(reference) < 4e11 else { return .double(reference) }
        let whole = reference.rounded(.down)
        let fraction = reference - whole  // exact
        let unixSeconds = Int64(whole) + referenceOffset
        var days = unixSeconds / 86_400
        var secondsOfDay = unixSeconds % 86_400
        if secondsOfDay < 0 {
            secondsOfDay += 86_400
            days -= 1
        }
        let (year, month, day) = civil(fromDays: days)
        guard year >= 1 && year <= 9999 else { return .double(reference) }
        var text = pad(year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2) + "T"
        text += pad(secondsOfDay / 3600, 2) + ":" + pad(secondsOfDay / 60 % 60, 2) + ":" + pad(secondsOfDay % 60, 2)
        if fraction > 0 {
            text += "." + fractionDigits(fraction)
        }
        return .string(text + "Z")
    }

    /// Reads a date in the stored form (or a number of seconds since 2001-01-01T00:00:00Z).
    static func decode(_ value: JSONValue) -> Date? {
        switch value {
        case .double(let seconds): return Date(timeIntervalSinceReferenceDate: seconds)
        case .int(let seconds): return Date(timeIntervalSinceReferenceDate: Double(seconds))
        case .string(let text): return parse(text)
        default: return nil
        }
    }

    static func parse(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 20, bytes.last == UInt8(ascii: "Z") else { return nil }
        func number(_ from: Int, _ count: Int) -> Int64? {
            guard from + count <= bytes.count else { return nil }
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
              (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 60 else {
            return nil
        }
        var fraction = 0.0
        if bytes.count > 20 {
            guard bytes[19] == UInt8(ascii: "."), bytes.count > 21,
                  bytes[20..<(bytes.count - 1)].allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
                  let parsed = Double("0." + String(decoding: bytes[20..<(bytes.count - 1)], as: UTF8.self)) else {
                return nil
            }
            fraction = parsed
        }
        let days = daysFromCivil(year: year, month: month, day: day)
        let unixSeconds = days * 86_400 + hour * 3600 + minute * 60 + second
        return Date(timeIntervalSinceReferenceDate: Double(unixSeconds - referenceOffset) + fraction)
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        CivilDate.pad(value, width)
    }

    /// The shortest decimal digits after "0." that read back as exactly `fraction`.
    private static func fractionDigits(_ fraction: Double) -> String {
        let text = "\(fraction)"  // shortest round-trip form, such as "0.25" or "1.5e-07"
        if let exponentIndex = text.firstIndex(where: { $0 == "e" || $0 == "E" }) {
            let mantissa = text[..<exponentIndex].replacingOccurrences(of: ".", with: "")
            let exponent = Int(text[text.index(after: exponentIndex)...]) ?? 0
            return String(repeating: "0", count: max(0, -exponent - 1)) + mantissa
        }
        guard let dot = text.firstIndex(of: ".") else { return "0" }
        return String(text[text.index(after: dot)...])
    }

    private static func civil(fromDays days: Int64) -> (Int64, Int64, Int64) {
        let date = CivilDate.civil(fromDays: days)
        return (date.year, date.month, date.day)
    }

    private static func daysFromCivil(year: Int64, month: Int64, day: Int64) -> Int64 {
        CivilDate.days(year: year, month: month, day: day)
    }
}
