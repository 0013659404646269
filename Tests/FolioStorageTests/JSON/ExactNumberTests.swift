import Testing
@testable import FolioStorage

/// Numbers from disk are kept exactly or refused: an integer past `Int64` becomes a double only when a
/// double holds exactly that integer.
@Suite("Exact numbers")
struct ExactNumberTests {
    @Test(arguments: ["123456789012345678901234567890", "-9223372036854775809", "9223372036854775809", "[18446744073709551617]"])
    func anIntegerNoNumberHoldsExactlyIsRefused(_ text: String) {
        #expect {
            _ = try JSONValue(parsing: text)
        } throws: { error in
            (error as? StorageError)?.code == .invalidJSON && (error as? StorageError)?.message.contains("exactly") == true
        }
    }

    @Test func anIntegerADoubleHoldsExactlyIsKept() throws {
        #expect(try JSONValue(parsing: "18446744073709551616") == .double(18_446_744_073_709_551_616))
        #expect(try JSONValue(parsing: "-9223372036854775808") == .int(.min))
        let huge = "1" + String(repeating: "0", count: 22)  // 10^22 = 2^22 · 5^22, and 5^22 < 2^53
        #expect(try JSONValue(parsing: huge) == .double(1e22))
        #expect(throws: StorageError.self) { try JSONValue(parsing: "1" + String(repeating: "0", count: 23)) }
    }

    @Test func exactDigitsMatchTheDoublesValue() {
        #expect(ExactIntegerDigits.digits(of: 0) == Array("0".utf8))
        #expect(ExactIntegerDigits.digits(of: 12345) == Array("12345".utf8))
        #expect(ExactIntegerDigits.digits(of: 9_223_372_036_854_775_808) == Array("9223372036854775808".utf8))
        #expect(ExactIntegerDigits.digits(of: 0x1p100) == Array("1267650600228229401496703205376".utf8))
    }
}
