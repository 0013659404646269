import Testing
@testable import FolioStorage

/// A number read from disk is kept exactly or refused: never rounded to a nearby double in silence.
@Suite("Numbers that a double does not hold exactly")
struct NumberExactnessTests {
    @Test(arguments: [
        "0.1", "0.30000000000000004", "1.0000000000000002", "1e300", "1.5E-300", "123.456e78", "100.0", "-0.5",
        "5e-324", "1.7976931348623157e308", "2.2250738585072014e-308", "0.000123", "1e-07",
    ])
    func aNumberThatIsItsDoublesShortestFormIsRead(text: String) throws {
        guard case .double(let value) = try JSONReader().parse(text) else {
            Issue.record("\(text) did not read as a double")
            return
        }
        #expect(DecimalValue(Array(text.utf8)) == DecimalValue(Array("\(value.magnitude)".utf8)))
    }

    @Test(arguments: [
        "0.1000000000000000055", "1.00000000000000000001", "3.14159265358979323846", "4.9406564584124654e-324",
        "123456789.123456789123", "-2.00000000000000000000001", "9007199254740993e0",
    ])
    func aNumberWithMoreDigitsThanADoubleHoldsIsRefusedNamingIt(text: String) {
        #expect {
            _ = try JSONReader().parse("{\"price\":\(text)}")
        } throws: { error in
            "\(error)".contains(text) && "\(error)".contains("Folio does not round numbers")
        }
    }

    @Test func decimalValuesOfOneNumberWrittenDifferentlyAreEqual() {
        let forms = ["1E2", "100", "100.0", "1.00e+2", "0.01e4"]
        let values = Set(forms.map { DecimalValue(Array($0.utf8)).exponent })
        #expect(values.count == 1)
        #expect(forms.allSatisfy { DecimalValue(Array($0.utf8)) == DecimalValue(Array("1e2".utf8)) })
        #expect(DecimalValue(Array("0.000".utf8)) == DecimalValue(Array("0.0".utf8)))
        #expect(DecimalValue(Array("0.001230".utf8)) == DecimalValue(digits: Array("123".utf8), exponent: -5))
    }
}
