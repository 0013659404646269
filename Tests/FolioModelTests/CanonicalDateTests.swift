import Foundation
import FolioStorage
import Testing
@testable import Folio

/// `CanonicalDate` as it was before encoding and parsing were made to work on bytes, and before dates
/// were written with the fewest digits: its `parse` is the yardstick the tests below hold the current
/// one to, and its `encode` writes the long fractions of stores written before, which must still read.
private enum ReferenceCanonicalDate {
    private static let referenceOffset: Int64 = 978_307_200

    static func encode(_ date: Date) -> JSONValue {
        let reference = date.timeIntervalSinceReferenceDate
        guard reference.isFinite, abs(reference) < 4e11 else { return .double(reference) }
        let whole = reference.rounded(.down)
        let fraction = reference - whole
        let unixSeconds = Int64(whole) + referenceOffset
        var days = unixSeconds / 86_400
        var secondsOfDay = unixSeconds % 86_400
        if secondsOfDay < 0 {
            secondsOfDay += 86_400
            days -= 1
        }
        let (year, month, day) = CivilDate.civil(fromDays: days)
        guard year >= 1 && year <= 9999 else { return .double(reference) }
        var text = pad(year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2) + "T"
        text += pad(secondsOfDay / 3600, 2) + ":" + pad(secondsOfDay / 60 % 60, 2) + ":" + pad(secondsOfDay % 60, 2)
        if fraction > 0 {
            text += "." + fractionDigits(fraction)
        }
        return .string(text + "Z")
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
            (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 60
        else {
            return nil
        }
        var fraction = 0.0
        if bytes.count > 20 {
            guard bytes[19] == UInt8(ascii: "."), bytes.count > 21,
                bytes[20..<(bytes.count - 1)].allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
                let parsed = Double("0." + String(decoding: bytes[20..<(bytes.count - 1)], as: UTF8.self))
            else {
                return nil
            }
            fraction = parsed
        }
        let days = CivilDate.days(year: year, month: month, day: day)
        let unixSeconds = days * 86_400 + hour * 3600 + minute * 60 + second
        return Date(timeIntervalSinceReferenceDate: Double(unixSeconds - referenceOffset) + fraction)
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    private static func fractionDigits(_ fraction: Double) -> String {
        let text = "\(fraction)"
        if let exponentIndex = text.firstIndex(where: { $0 == "e" || $0 == "E" }) {
            let mantissa = text[..<exponentIndex].replacingOccurrences(of: ".", with: "")
            let exponent = Int(text[text.index(after: exponentIndex)...]) ?? 0
            return String(repeating: "0", count: max(0, -exponent - 1)) + mantissa
        }
        guard let dot = text.firstIndex(of: ".") else { return "0" }
        return String(text[text.index(after: dot)...])
    }
}

/// `CanonicalDate` must write every date in a form that reads back as the identical `Date`, with the
/// fewest fraction digits that do, and read every text exactly as the reference does.
@Suite("Canonical date text")
struct CanonicalDateTests {
    /// Seconds since 2001 of 0001-01-01T00:00:00Z and of 10000-01-01T00:00:00Z.
    static let firstSecond = Double(CivilDate.days(year: 1, month: 1, day: 1) * 86_400 - 978_307_200)
    static let endSecond = Double(CivilDate.days(year: 10_000, month: 1, day: 1) * 86_400 - 978_307_200)

    /// Dates of every kind the encoder distinguishes, reproducibly.
    static func sampleIntervals() -> [Double] {
        var rng = SplitMix64(state: 2_026_0301)
        var intervals: [Double] = [
            0, -0.0, 1e-7, 1.5e-7, -1e-7, .leastNonzeroMagnitude, -.leastNonzeroMagnitude, 2.2250738585072014e-308, -1e-20, 1e-4, 1e-5, 0.5, -0.5,
            0.25, 1.0.nextDown, -(1.0.nextDown), -0.3, 786_000_123.456_789, 680_000_000.25,
            Date.distantPast.timeIntervalSinceReferenceDate, Date.distantFuture.timeIntervalSinceReferenceDate,
            firstSecond, firstSecond.nextDown, firstSecond.nextUp, firstSecond - 1, firstSecond + 0.5,
            endSecond, endSecond.nextDown, endSecond - 1, endSecond - 1e-3, endSecond + 1,
            4e11, (4e11).nextDown, -4e11, (-4e11).nextUp, 1e12, -1e12, .greatestFiniteMagnitude,
            .infinity, -.infinity, .nan, -.nan, .signalingNaN,
        ]
        // Uniform seconds over years 0001–9999, whole or with a fraction: any double, or a few decimal places.
        for _ in 0..<30_000 {
            let whole = Double(Int64.random(in: Int64(firstSecond)..<Int64(endSecond), using: &rng))
            switch Int.random(in: 0..<3, using: &rng) {
            case 0: intervals.append(whole)
            case 1: intervals.append(whole + Double(rng.next() >> 11) * 0x1p-53)
            default:
                let places = Int.random(in: 1...9, using: &rng)
                let scale = (0..<places).reduce(1) { product, _ in product * 10 }
                intervals.append(whole + Double(Int.random(in: 0..<scale, using: &rng)) / Double(scale))
            }
        }
        // Clock readings like `Date()`'s, in microseconds or nanoseconds, and sub-microsecond fractions.
        for _ in 0..<10_000 {
            let whole = Double(Int64.random(in: 600_000_000...1_200_000_000, using: &rng))
            switch Int.random(in: 0..<3, using: &rng) {
            case 0: intervals.append(whole + Double(Int.random(in: 0..<1_000_000, using: &rng)) / 1e6)
            case 1: intervals.append(whole + Double(Int.random(in: 0..<1_000_000_000, using: &rng)) / 1e9)
            default: intervals.append(whole + Double(Int.random(in: 1..<1000, using: &rng)) * 1e-9)
            }
        }
        // Small magnitudes of either sign: fractions written with an exponent, and the range (-0.5, 0).
        for _ in 0..<5_000 {
            let significand = 1 + Double(rng.next() >> 11) * 0x1p-53
            let magnitude = Double(sign: .plus, exponent: Int.random(in: -1074...8, using: &rng), significand: significand)
            intervals.append(Bool.random(using: &rng) ? magnitude : -magnitude)
        }
        // Midnights, and the doubles on either side of them.
        for _ in 0..<3_000 {
            let midnight = Double(Int64.random(in: -800_000...3_000_000, using: &rng) * 86_400 - 978_307_200)
            intervals += [midnight, midnight.nextUp, midnight.nextDown, midnight - 1e-6, midnight + 1e-6]
        }
        // Any bit pattern: huge, non-finite and subnormal values included.
        for _ in 0..<3_000 {
            intervals.append(Double(bitPattern: rng.next()))
        }
        return intervals
    }

    /// A readable account of a value, bytes and bits included, for failure messages.
    static func describe(_ value: JSONValue) -> String {
        switch value {
        case .string(let text): return "string \(text)"
        case .double(let number): return "double \(number) (bits \(number.bitPattern))"
        default: return "\(value)"
        }
    }

    static func sameEncoding(_ left: JSONValue, _ right: JSONValue) -> Bool {
        switch (left, right) {
        case (.string(let a), .string(let b)): return Array(a.utf8) == Array(b.utf8)
        case (.double(let a), .double(let b)): return a.bitPattern == b.bitPattern
        default: return false
        }
    }

    static func sameParse(_ left: Date?, _ right: Date?) -> Bool {
        left?.timeIntervalSinceReferenceDate.bitPattern == right?.timeIntervalSinceReferenceDate.bitPattern
    }

    /// Texts that `parse` is given: `texts`, and what `CanonicalDate.parse` and the reference make of them
    /// where they differ (at most a few, for the failure message).
    static func parseMismatches(_ texts: [String]) -> [String] {
        var mismatches: [String] = []
        for text in texts {
            let expected = ReferenceCanonicalDate.parse(text), actual = CanonicalDate.parse(text)
            if !sameParse(expected, actual) && mismatches.count < 5 {
                let show = { (date: Date?) in date.map { "\($0.timeIntervalSinceReferenceDate)" } ?? "nil" }
                mismatches.append("\(text.debugDescription): reference \(show(expected)), got \(show(actual))")
            }
        }
        return mismatches
    }

    /// The fraction digits of an encoded text, or nil for a text without a fraction.
    static func fractionDigits(_ text: String) -> [UInt8]? {
        let bytes = Array(text.utf8)
        return bytes.count > 20 ? Array(bytes[20..<(bytes.count - 1)]) : nil
    }

    /// Whether a text whose fraction has one digit fewer than `text`'s (the two nearest it) reads back as
    /// `interval`: then `text` did not have the fewest digits.
    static func aShorterTextReadsBack(_ text: String, _ interval: Double) -> Bool {
        guard var digits = fractionDigits(text) else { return false }
        digits.removeLast()
        let prefix = String(text.prefix(19))
        var shorter = [digits.isEmpty ? prefix + "Z" : prefix + "." + String(decoding: digits, as: UTF8.self) + "Z"]
        // The next text of that length up, unless it would carry into the seconds.
        if let last = digits.lastIndex(where: { $0 != UInt8(ascii: "9") }) {
            digits[last] += 1
            for index in (last + 1)..<digits.count { digits[index] = UInt8(ascii: "0") }
            shorter.append(prefix + "." + String(decoding: digits, as: UTF8.self) + "Z")
        }
        return shorter.contains { ReferenceCanonicalDate.parse($0)?.timeIntervalSinceReferenceDate.bitPattern == interval.bitPattern }
    }

    @Test func everyDateReadsBackIdenticallyFromTheFewestDigits() {
        let intervals = Self.sampleIntervals()
        #expect(intervals.count > 60_000)
        var mismatches: [String] = []
        var encodedTexts: [String] = []
        for interval in intervals {
            let date = Date(timeIntervalSinceReferenceDate: interval)
            let encoded = CanonicalDate.encode(date)
            #expect(Self.sameEncoding(encoded, CanonicalDate.encode(date)))
            // -0 is the same instant as 0, and is written as it.
            let expected = interval == 0 ? 0 : interval
            switch encoded {
            case .string(let text):
                encodedTexts.append(text)
                let readBack = ReferenceCanonicalDate.parse(text)?.timeIntervalSinceReferenceDate
                if (readBack?.bitPattern != expected.bitPattern || Self.aShorterTextReadsBack(text, interval)) && mismatches.count < 5 {
                    mismatches.append("\(interval) (bits \(interval.bitPattern)): \(text) reads back as \(readBack.map { "\($0)" } ?? "nil")")
                }
            case .double(let number):
                // A number only where the old text form (or none) could not read back identically.
                let oldText = ReferenceCanonicalDate.encode(date)
                if case .string(let old) = oldText,
                    ReferenceCanonicalDate.parse(old)?.timeIntervalSinceReferenceDate.bitPattern == interval.bitPattern,
                    mismatches.count < 5
                {
                    mismatches.append("\(interval): stored as a number though \(old) reads back")
                }
                if number.bitPattern != interval.bitPattern && !(number.isNaN && interval.isNaN) && mismatches.count < 5 {
                    mismatches.append("\(interval): stored as the number \(number)")
                }
            default: mismatches.append("\(interval): \(Self.describe(encoded))")
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches)")
        // Every kind of text appears: with and without a fraction, and with a long run of leading zeros.
        #expect(encodedTexts.contains { $0.count == 20 })
        #expect(encodedTexts.contains { $0.contains(".0000000") })
        #expect(encodedTexts.contains { (Self.fractionDigits($0)?.count ?? 0) > 19 })
        #expect(encodedTexts.count > 50_000)
        #expect(Self.parseMismatches(encodedTexts) == [])
    }

    @Test func textsWithTheOldLongFractionsReadBackTheIdenticalDate() {
        var oldTexts: [String] = []
        var mismatches: [String] = []
        for interval in Self.sampleIntervals() {
            guard case .string(let old) = ReferenceCanonicalDate.encode(Date(timeIntervalSinceReferenceDate: interval)),
                let written = ReferenceCanonicalDate.parse(old)
            else { continue }
            oldTexts.append(old)
            let read = CanonicalDate.parse(old)
            if !Self.sameParse(read, written) && mismatches.count < 5 { mismatches.append(old) }
            // Rewriting what was read gives the new form, which reads back as the same date.
            if let read, case .string(let new) = CanonicalDate.encode(read), !Self.sameParse(CanonicalDate.parse(new), written),
                mismatches.count < 5
            {
                mismatches.append("\(old) rewritten as \(new)")
            }
        }
        #expect(oldTexts.count > 50_000)
        #expect(mismatches.isEmpty, "\(mismatches)")
    }

    @Test func encodedTextsOfKnownDates() {
        func text(_ interval: Double) -> String? {
            if case .string(let text) = CanonicalDate.encode(Date(timeIntervalSinceReferenceDate: interval)) { return text }
            return nil
        }
        #expect(text(0) == "2001-01-01T00:00:00Z")
        #expect(text(1.5e-7) == "2001-01-01T00:00:00.00000015Z")
        #expect(text(-0.75) == "2000-12-31T23:59:59.25Z")
        // The example of issue 32: the old form wrote the fraction's exact binary expansion.
        let old = "2022-07-20T05:19:19.3229999542236328Z"
        let stored = CanonicalDate.parse(old)?.timeIntervalSinceReferenceDate ?? 0
        #expect(text(stored) == "2022-07-20T05:19:19.323Z")
        #expect(text(680_000_000.25) == "2022-07-20T08:53:20.25Z")
        #expect(text(1.0.nextDown) == "2001-01-01T00:00:00.9999999999999999Z")
        #expect(text(Self.firstSecond) == "0001-01-01T00:00:00Z")
        #expect(text(Date.distantFuture.timeIntervalSinceReferenceDate) == "4001-01-01T00:00:00Z")
        // Two days before 0001-01-01 in the proleptic Gregorian calendar: stored as a number.
        #expect(CanonicalDate.encode(.distantPast) == .double(Date.distantPast.timeIntervalSinceReferenceDate))
        #expect(text(Self.endSecond - 1) == "9999-12-31T23:59:59Z")
        #expect(CanonicalDate.encode(Date(timeIntervalSinceReferenceDate: Self.endSecond)) == .double(Self.endSecond))
        #expect(CanonicalDate.parse("2001-01-01T00:00:00.00000015Z")?.timeIntervalSinceReferenceDate == 1.5e-7)
    }

    static func pad(_ value: Int, _ width: Int) -> String {
        String(repeating: "0", count: max(0, width - String(value).count)) + String(value)
    }

    /// Well-formed texts with fractions of every length, whether or not the encoder would write them.
    @Test func parsesFractionsOfEveryLengthAsTheReferenceDoes() {
        var rng = SplitMix64(state: 1_602_2026)
        var texts = [
            "2020-01-01T00:00:00.9007199254740992Z", "2020-01-01T00:00:00.9007199254740993Z",
            "2020-01-01T00:00:00.9007199254740991Z", "2020-01-01T00:00:00.1000000000000000055511151231257827Z",
            "2020-01-01T00:00:00.3229999542236328Z", "2001-01-01T00:00:00.0000000000000000000001Z",
            "2001-01-01T00:00:00.0000000000000000000009007199254740993Z", "0000-01-01T00:00:00.5Z",
            "9999-12-31T23:59:59.99999999999999999999999Z", "2021-02-31T12:00:00.000Z",
        ]
        for _ in 0..<20_000 {
            let year = Int.random(in: 0...9999, using: &rng), month = Int.random(in: 1...12, using: &rng)
            let day = Int.random(in: 1...31, using: &rng), hour = Int.random(in: 0..<24, using: &rng)
            let minute = Int.random(in: 0..<60, using: &rng), second = Int.random(in: 0..<60, using: &rng)
            var text = "\(Self.pad(year, 4))-\(Self.pad(month, 2))-\(Self.pad(day, 2))"
            text += "T\(Self.pad(hour, 2)):\(Self.pad(minute, 2)):\(Self.pad(second, 2))"
            let length = Int.random(in: 0..<4, using: &rng) == 0 ? Int.random(in: 14...24, using: &rng) : Int.random(in: 1...40, using: &rng)
            if length > 0 { text += "." }
            let leadingZeros = Int.random(in: 0..<3, using: &rng) == 0 ? Int.random(in: 0...length, using: &rng) : 0
            for place in 0..<length {
                text += place < leadingZeros ? "0" : String(Int.random(in: 0...9, using: &rng))
            }
            texts.append(text + "Z")
        }
        // Near the halfway points between doubles, where rounding is hardest: the shortest digits of a
        // fraction, cut short, nudged in their last place, or continued with tails around a half.
        let tails = ["5", "49999999", "50000001", "4", "6", "0", "9999999999", "0000000001"]
        for _ in 0..<10_000 {
            let fraction = Double(rng.next() >> 11) * 0x1p-53 * (Bool.random(using: &rng) ? 1 : 0x1p-20)
            guard case .string(let encoded) = ReferenceCanonicalDate.encode(Date(timeIntervalSinceReferenceDate: fraction)),
                encoded.count > 22
            else { continue }
            var digits = Array(encoded.utf8.dropFirst(20).dropLast())
            switch Int.random(in: 0..<3, using: &rng) {
            case 0: digits.removeLast(Int.random(in: 1...min(3, digits.count - 1), using: &rng))
            case 1:
                let last = digits.count - 1
                digits[last] = digits[last] == UInt8(ascii: "9") ? UInt8(ascii: "8") : digits[last] + 1
            default: digits += Array((tails.randomElement(using: &rng) ?? "5").utf8)
            }
            texts.append("2001-01-01T00:00:00." + String(decoding: digits, as: UTF8.self) + "Z")
        }
        #expect(texts.count > 29_000)
        #expect(Self.parseMismatches(texts) == [])
    }

    @Test func rejectsMalformedTextsAsTheReferenceDoes() {
        var rng = SplitMix64(state: 3_110_2026)
        let malformed = [
            "", "Z", "2020-01-01T00:00:00", "2020-01-01T00:00:00z", "2020-01-01T00:00:0Z", "2020-01-01 00:00:00Z",
            "2020/01/01T00:00:00Z", "2020-01-01T00-00-00Z", "2020-13-01T00:00:00Z", "2020-00-01T00:00:00Z",
            "2020-01-32T00:00:00Z", "2020-01-00T00:00:00Z", "2020-01-01T24:00:00Z", "2020-01-01T00:60:00Z",
            "2020-01-01T00:00:60Z", "2020-01-01T00:00:00.Z", "2020-01-01T00:00:00.5", "2020-01-01T00:00:00.5x5Z",
            "2020-01-01T00:00:00.-5Z", "2020-01-01T00:00:00.5e3Z", "2020-01-01T00:00:00,5Z", "2020-01-01T00:00:00+5Z",
            "2020-01-01T00:00:00.５Z", "２020-01-01T00:00:00Z", "-020-01-01T00:00:00Z", "+2020-01-01T00:00:00Z",
            "2020-1-01T00:00:00Z", "2020-01-01T00:00:00.0Z", "2020-01-01T00:00:00ZZ", "12020-01-01T00:00:00Z",
            "2020-01-01T00:00:00.5 Z", "2020-01-01T00:00:00.é5Z",
        ]
        let valid = ["2020-01-01T00:00:00Z", "2022-07-20T05:19:19.3229999542236328Z", "0001-01-01T00:00:00.00000015Z"]
        let alphabet = Array("0123456789-:.TZz +e/é")
        var texts = malformed
        for _ in 0..<10_000 {
            var characters = Array(valid.randomElement(using: &rng) ?? "")
            let position = Int.random(in: 0..<characters.count, using: &rng)
            let replacement = alphabet.randomElement(using: &rng) ?? "x"
            switch Int.random(in: 0..<4, using: &rng) {
            case 0: characters[position] = replacement
            case 1: characters.remove(at: position)
            case 2: characters.insert(replacement, at: position)
            default: characters.removeSubrange(position...)
            }
            texts.append(String(characters))
        }
        #expect(Self.parseMismatches(texts) == [])
        let rejected = malformed.filter { ReferenceCanonicalDate.parse($0) == nil }
        #expect(rejected.count == malformed.count - 1)  // "…00:00:00.0Z" is well formed
        #expect(rejected.allSatisfy { CanonicalDate.parse($0) == nil })
    }
}
