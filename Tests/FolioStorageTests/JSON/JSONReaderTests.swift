import Foundation
import Testing
@testable import FolioStorage

@Suite("JSON reader")
struct JSONReaderTests {
    @Test func parsesEveryKindOfValue() throws {
        let value = try JSONValue(parsing: #" {"a": [1, -2, 3.5, 1e2, true, false, null], "b": {"c": "d\n\u00e9\ud83d\ude00"}} "#)
        #expect(
            value
                == .object([
                    "a": .array([.int(1), .int(-2), .double(3.5), .double(100), .bool(true), .bool(false), .null]),
                    "b": .object(["c": .string("d\né😀")]),
                ]))
    }

    @Test func keepsIntegersAndDoublesApart() throws {
        #expect(try JSONValue(parsing: "3") == .int(3))
        #expect(try JSONValue(parsing: "3.0") == .double(3))
        #expect(try JSONValue(parsing: "-9223372036854775808") == .int(.min))
        #expect(try JSONValue(parsing: "9223372036854775808") == .double(9_223_372_036_854_775_808))
        #expect(try JSONValue(parsing: "-0") == .int(0))
    }

    @Test(arguments: [
        #"{"a":1,"a":2}"#, "[1] x", "[1,]", "{\"a\"}", #""\x""#, #""\ud800""#, #""\udc00""#, #""\ud800\u0041""#,
        "1e400", "-1e400", "01", "1.", ".5", "+1", "\"a\u{01}\"", "tru", "[", "\"abc", "nul", "{\"a\":1,}", "",
    ])
    func rejectsInvalidText(_ text: String) {
        #expect(throws: StorageError.self) { try JSONValue(parsing: text) }
    }

    @Test func readsAndRefusesACharacterAtEveryPositionOfALongString() throws {
        for position in 0..<20 {
            let before = String(repeating: "a", count: position), after = String(repeating: "b", count: 19 - position)
            for (written, read) in [(#"\""#, "\""), (#"\\"#, "\\"), (#"\n"#, "\n"), ("é", "é"), ("😀", "😀"), (#"\u00e9"#, "é")] {
                #expect(try JSONValue(parsing: "\"" + before + written + after + "\"") == .string(before + read + after))
            }
            // An unescaped control character is refused where it is, and so is invalid UTF-8.
            do {
                _ = try JSONValue(parsing: "\"" + before + "\u{1}" + after + "\"")
                Issue.record("accepted a control character at \(position)")
            } catch {
                #expect(error.offset == Int64(position + 1))
            }
            let invalid = [0x22] + Array(before.utf8) + [0xFF] + Array(after.utf8) + [0x22]
            #expect(throws: StorageError.self) { try JSONReader().parse(invalid) }
        }
    }

    @Test func rejectsInvalidUTF8WithOffset() {
        let bytes: [UInt8] = [0x22, 0x61, 0xFF, 0x22]
        do {
            _ = try JSONReader().parse(bytes)
            Issue.record("accepted invalid UTF-8")
        } catch {
            #expect(error.code == .invalidJSON)
            #expect(error.offset == 1)
        }
    }

    @Test func parsesDecimalNumbersExactlyLikeTheStandardLibrary() throws {
        var random = SeededGenerator(seed: 99)
        for _ in 0..<20_000 {
            let digits = String(UInt64.random(in: 0...999_999_999_999_999_999, using: &random)).prefix(Int.random(in: 1...19, using: &random))
            let point = Int.random(in: 0...digits.count, using: &random)
            var text =
                String(digits.prefix(point).isEmpty ? "0" : digits.prefix(point)) + "."
                + (digits.dropFirst(point).isEmpty ? "0" : digits.dropFirst(point))
            if Bool.random(using: &random) { text += "e\(Int.random(in: -30...30, using: &random))" }
            if Bool.random(using: &random) { text = "-" + text }
            let expected = try #require(Double(text))
            // A text that the double does not hold exactly is refused rather than rounded.
            if DecimalValue(Array(text.utf8)) == DecimalValue(Array("\(expected.magnitude)".utf8)) {
                #expect(try JSONValue(parsing: text) == .double(expected), "\(text)")
            } else {
                #expect(throws: StorageError.self, "\(text)") { try JSONValue(parsing: text) }
            }
        }
    }

    @Test func limitsNestingTo512() throws {
        let ok = String(repeating: "[", count: 512) + String(repeating: "]", count: 512)
        let deep = String(repeating: "[", count: 513) + String(repeating: "]", count: 513)
        _ = try JSONValue(parsing: ok)
        #expect(throws: StorageError.self) { try JSONValue(parsing: deep) }
        #expect(throws: StorageError.self) { try JSONValue(parsing: String(repeating: "[", count: 100_000)) }
    }

    @Test func reportsTheOffsetOfADuplicateKey() {
        do {
            _ = try JSONValue(parsing: #"{"a":1,"a":2}"#)
            Issue.record("accepted a duplicate key")
        } catch {
            #expect(error.offset == 7)
            #expect(error.message.contains("duplicate key"))
        }
    }
}

@Suite("Canonical JSON writer")
struct CanonicalJSONWriterTests {
    @Test func sortsKeysByUTF8BytesWithoutWhitespace() throws {
        let value = JSONValue.object(["b": .int(1), "a": .int(2), "é": .null, "Z": .bool(true), "aa": .array([])])
        #expect(try value.canonicalString() == #"{"Z":true,"a":2,"aa":[],"b":1,"é":null}"#)
    }

    @Test func writesNumbersCanonically() throws {
        #expect(try JSONValue.int(-42).canonicalString() == "-42")
        #expect(try JSONValue.int(.min).canonicalString() == "-9223372036854775808")
        #expect(try JSONValue.double(3).canonicalString() == "3.0")
        #expect(try JSONValue.double(0.1).canonicalString() == "0.1")
        #expect(try JSONValue.double(-0.0).canonicalString() == "-0.0")
        #expect(try JSONValue.double(1e20).canonicalString() == "1e+20")
        #expect(throws: StorageError.self) { try JSONValue.double(.nan).canonicalString() }
        #expect(throws: StorageError.self) { try JSONValue.double(.infinity).canonicalString() }
    }

    @Test func escapesQuotesControlsAndUnicodeLineSeparators() throws {
        let text = "q\"b\\n\n\t\u{0}\u{1F}\u{7F}\u{85}\u{2028}\u{2029}é😀"
        #expect(try JSONValue.string(text).canonicalString() == #""q\"b\\n\n\t\u0000\u001f\u007f\u0085\u2028\u2029é😀""#)
    }

    @Test func findsTheFirstByteToLookAtInEightWhateverTheByteAndItsPosition() {
        for position in 0..<8 {
            for byte in 0...255 {
                var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: 8)
                bytes[position] = UInt8(byte)
                let word = UInt64(littleEndian: bytes.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) })
                let plain = (0x20...0x7E).contains(byte) && byte != 0x22 && byte != 0x5C
                #expect(
                    ByteWord.firstMarkedByte(CanonicalJSONWriter.attentionBytes(word)) == (plain ? 8 : position),
                    "byte \(byte) at \(position)")
                let unescaped = byte >= 0x20 && byte != 0x22 && byte != 0x5C
                #expect(
                    ByteWord.firstMarkedByte(ByteWord.stringSpecialBytes(word)) == (unescaped ? 8 : position),
                    "byte \(byte) at \(position)")
            }
        }
        // With two such bytes, the first is found, whatever a borrow from it does to the bytes after it.
        for first in 0..<8 {
            for second in (first + 1)..<9 where second < 8 {
                for (a, b) in [(UInt8(0x00), UInt8(0x20)), (0x1F, 0x22), (0x5C, 0x00), (0x80, 0x7F)] {
                    var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: 8)
                    bytes[first] = a
                    bytes[second] = b
                    let word = UInt64(littleEndian: bytes.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) })
                    #expect(ByteWord.firstMarkedByte(CanonicalJSONWriter.attentionBytes(word)) == first)
                    if a != 0x80 { #expect(ByteWord.firstMarkedByte(ByteWord.stringSpecialBytes(word)) == first) }
                }
            }
        }
    }

    @Test func escapesACharacterAtEveryPositionOfALongString() throws {
        let escaped: [(String, String)] = [
            ("\"", #"\""#), ("\\", #"\\"#), ("\n", #"\n"#), ("\u{1}", #"\u0001"#), ("\u{7F}", #"\u007f"#),
            ("\u{85}", #"\u0085"#), ("\u{2028}", #"\u2028"#), ("é", "é"), ("😀", "😀"),
        ]
        for (character, expected) in escaped {
            for position in 0..<20 {
                let before = String(repeating: "a", count: position), after = String(repeating: "b", count: 19 - position)
                #expect(try JSONValue.string(before + character + after).canonicalString() == "\"" + before + expected + after + "\"")
            }
        }
    }

    @Test func roundTripsAwkwardStrings() throws {
        for text in ["", "\u{2028}", "\u{85}", "\u{0B}\u{0C}\r", "\u{0}", "👨‍👩‍👧", "a\r\nb", String(repeating: "é", count: 1000)] {
            let bytes = try JSONValue.string(text).canonicalBytes()
            #expect(!bytes.contains(0x0A))
            #expect(try JSONReader().parse(bytes) == .string(text))
        }
    }

    @Test func roundTripsRandomValues() throws {
        var random = SeededGenerator(seed: 7)
        for _ in 0..<300 {
            let value = randomValue(depth: 0, using: &random)
            let bytes = try value.canonicalBytes()
            let parsed = try JSONReader().parse(bytes)
            #expect(parsed == value)
            #expect(try parsed.canonicalBytes() == bytes)
        }
    }
}

func randomValue(depth: Int, using random: inout SeededGenerator) -> JSONValue {
    switch Int.random(in: 0..<(depth > 3 ? 5 : 7), using: &random) {
    case 0: return .null
    case 1: return .bool(Bool.random(using: &random))
    case 2: return .int(Int64.random(in: .min ... .max, using: &random))
    case 3:
        let bits = UInt64.random(in: 0 ... .max, using: &random)
        let double = Double(bitPattern: bits)
        return .double(double.isFinite ? double : 0.5)
    case 4:
        let scalars = (0..<Int.random(in: 0..<12, using: &random)).compactMap { _ in
            Unicode.Scalar(UInt32.random(in: 0..<0x3000, using: &random))
        }
        return .string(String(String.UnicodeScalarView(scalars)))
    case 5: return .array((0..<Int.random(in: 0..<4, using: &random)).map { _ in randomValue(depth: depth + 1, using: &random) })
    default:
        var members: [String: JSONValue] = [:]
        for k in 0..<Int.random(in: 0..<4, using: &random) {
            members["k\(k)\(Int.random(in: 0..<9, using: &random))"] = randomValue(depth: depth + 1, using: &random)
        }
        return .object(members)
    }
}
