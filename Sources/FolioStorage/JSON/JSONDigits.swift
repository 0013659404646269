/// Reading the digits of a JSON number in place, for the scanners that find one member of a line
/// without decoding the line.
enum JSONDigits {
    /// The unsigned decimal integer whose digits start at `start`, and the position after them; `nil`
    /// if there is no digit there or the value does not fit in 64 bits.
    static func unsignedInteger(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> (value: UInt64, end: Int)? {
        var value: UInt64 = 0
        var position = start
        while position < bytes.count, bytes[position] >= UInt8(ascii: "0"), bytes[position] <= UInt8(ascii: "9") {
            let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(UInt64(bytes[position] - UInt8(ascii: "0")))
            if overflow1 || overflow2 { return nil }
            value = sum
            position += 1
        }
        return position > start ? (value, position) : nil
    }
}
