import Foundation
import Testing
@testable import FolioStorage

/// Doubles are written with the fewest significant digits that read back as the identical bits, and
/// the reader reads them back as those bits.
@Suite("Double round trip")
struct DoubleRoundTripTests {
    static func samples() -> [Double] {
        var rng = SeededGenerator(seed: 3_202_612)
        var values: [Double] = [
            0, -0.0, 0.1, 0.2, 0.3, 1.0 / 3, 2.0 / 3, 1, -1, 3, 100, 1e15, 1e16, 1e17, 1e22, 1e23, 1e-4, 1e-5, 1e-7,
            0x1p53, 0x1p53 + 2, 0x1p63, 0x1p64, 0x1p53 + 1, 123_456_789.123_456_78,
            .leastNonzeroMagnitude, -.leastNonzeroMagnitude, .leastNormalMagnitude, Double.leastNormalMagnitude.nextDown,
            .greatestFiniteMagnitude, -.greatestFiniteMagnitude, Double(bitPattern: 0x000F_FFFF_FFFF_FFFF), Double(bitPattern: 1),
            1e-300, 1e300, 1.7976931348623157e308, 0.1 + 0.2, Double(bitPattern: 3), 680_000_000.323,
        ]
        // Any finite bit pattern: every exponent, subnormals included.
        while values.count < 60_000 {
            let value = Double(bitPattern: rng.next())
            if value.isFinite { values.append(value) }
        }
        // Decimals with few digits at every scale, as people type them.
        for _ in 0..<20_000 {
            let digits = Int.random(in: 1...9_999_999, using: &rng)
            let exponent = Int.random(in: -320...300, using: &rng)
            if let value = Double("\(digits)e\(exponent)"), value.isFinite { values.append(value) }
        }
        return values
    }

    /// The significant digits of a written double and the power of ten of the last: `1.25e-07` gives
    /// (`125`, -9).
    static func decimal(_ text: String) -> (digits: [Character], exponent: Int) {
        let unsigned = text.hasPrefix("-") ? String(text.dropFirst()) : text
        let parts = unsigned.split(separator: "e", maxSplits: 1)
        let mantissa = String(parts[0])
        var exponent = parts.count > 1 ? Int(parts[1]) ?? 0 : 0
        let point = mantissa.firstIndex(of: ".").map { mantissa.distance(from: mantissa.startIndex, to: $0) } ?? mantissa.count
        var digits = Array(mantissa.filter { $0 != "." })
        exponent += point - digits.count
        while digits.count > 1 && digits.first == "0" { digits.removeFirst() }
        while digits.count > 1 && digits.last == "0" {
            digits.removeLast()
            exponent += 1
        }
        return (digits, exponent)
    }

    @Test func everyDoubleReadsBackAsTheIdenticalBits() throws {
        let writer = CanonicalJSONWriter(), reader = JSONReader()
        var mismatches: [String] = []
        for value in Self.samples() {
            let bytes = try writer.bytes(.double(value))
            guard case .double(let read) = try reader.parse(bytes), read.bitPattern == value.bitPattern else {
                if mismatches.count < 5 { mismatches.append("\(value.bitPattern): \(String(decoding: bytes, as: UTF8.self))") }
                continue
            }
            // Always a fraction or an exponent, so that it reads back as a double, not an integer.
            let text = String(decoding: bytes, as: UTF8.self)
            if !text.contains(".") && !text.contains("e") && mismatches.count < 5 { mismatches.append("\(text) reads as an integer") }
        }
        #expect(mismatches.isEmpty, "\(mismatches)")
        #expect(try writer.string(.double(-0.0)) == "-0.0")
        #expect(try reader.parse("-0.0") == .double(-0.0))
        #expect(try writer.string(.double(.leastNonzeroMagnitude)) == "5e-324")
        #expect(try writer.string(.double(0.1 + 0.2)) == "0.30000000000000004")
    }

    @Test func noShorterDecimalReadsBackAsTheSameDouble() throws {
        let writer = CanonicalJSONWriter()
        var longer: [String] = []
        for value in Self.samples() where value != 0 {
            let text = try writer.string(.double(value))
            let (digits, exponent) = Self.decimal(text)
            guard digits.count > 1 else { continue }
            // The two decimals of one digit fewer nearest the written one.
            let truncated = Int(String(digits.dropLast())) ?? 0
            for candidate in [truncated, truncated + 1] where candidate > 0 {
                if let shorter = Double("\(candidate)e\(exponent + 1)"), shorter == value.magnitude, longer.count < 5 {
                    longer.append("\(text): \(candidate)e\(exponent + 1) reads back too")
                }
            }
        }
        #expect(longer.isEmpty, "\(longer)")
    }
}
