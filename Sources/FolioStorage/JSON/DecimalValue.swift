/// A decimal number as its significant digits and a power of ten: `0.001230` is `123` × 10^-5. Two
/// texts of one value (`1E2`, `100.0`) give equal `DecimalValue`s.
struct DecimalValue: Hashable {
    /// The significant digits, without leading or trailing zeros; empty for zero.
    var digits: [UInt8]
    /// The power of ten that `digits`, read as an integer, is multiplied by.
    var exponent: Int

    init(digits: [UInt8], exponent: Int) {
        self.digits = digits
        self.exponent = exponent
    }

    /// The value of a JSON number's text, or of Swift's description of a finite `Double` (`1e-07`,
    /// `100.0`, `1e+16`). The sign is ignored.
    init<Text: Collection>(_ text: Text) where Text.Element == UInt8 {
        var digits: [UInt8] = []
        var exponent = 0
        var seenPoint = false
        var rest = text[...]
        while let byte = rest.first, byte != UInt8(ascii: "e"), byte != UInt8(ascii: "E") {
            rest = rest.dropFirst()
            if byte == UInt8(ascii: ".") {
                seenPoint = true
            } else if byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
                if byte == UInt8(ascii: "0") && digits.isEmpty {
                    if seenPoint { exponent -= 1 }
                    continue
                }
                digits.append(byte)
                if seenPoint { exponent -= 1 }
            }
        }
        if !rest.isEmpty {
            rest = rest.dropFirst()
            var negative = false
            if let sign = rest.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
                negative = sign == UInt8(ascii: "-")
                rest = rest.dropFirst()
            }
            var power = 0
            for byte in rest where power < 100_000 {
                power = power * 10 + Int(byte &- UInt8(ascii: "0"))
            }
            exponent += negative ? -power : power
        }
        while digits.last == UInt8(ascii: "0") {
            digits.removeLast()
            exponent += 1
        }
        self.digits = digits
        self.exponent = digits.isEmpty ? 0 : exponent
    }

    /// Whether the number `text` is exactly the shortest decimal that reads back as `double`: then
    /// storing it as that double loses nothing. A text with more digits than the double holds
    /// (`0.1000000000000000055`) is some other value, which reading as a double would round.
    static func isExact<Text: Collection>(_ text: Text, as double: Double) -> Bool where Text.Element == UInt8 {
        DecimalValue(text) == DecimalValue(Array("\(double.magnitude)".utf8))
    }
}
