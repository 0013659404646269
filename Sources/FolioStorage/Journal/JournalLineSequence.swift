/// Finding a journal line's sequence number without decoding the line (compaction uses it to find the
/// lines of retained transactions on disk).
extension JournalTransaction {
    /// The sequence number (the `seq` member) of a journal line, found without decoding the line: the
    /// object's members are walked at the top level only, skipping nested values and strings. `nil` if
    /// there is none.
    static func sequence(inLine line: UnsafeBufferPointer<UInt8>) -> UInt64? {
        if let sequence = sequenceBeforeTime(inLine: line) { return sequence }
        let key: StaticString = "\"seq\""
        let quote = UInt8(ascii: "\""), backslash = UInt8(ascii: "\\")
        var depth = 0
        var position = 0
        let count = line.count
        while position < count {
            switch line[position] {
            case quote:
                let start = position
                position += 1
                while position < count {
                    let byte = line[position]
                    if byte == backslash {
                        position += 2
                    } else if byte == quote {
                        break
                    } else {
                        position += 1
                    }
                }
                guard position < count else { return nil }
                // A string at the top level followed by ':' is a member name.
                if depth == 1, position + 1 < count, line[position + 1] == UInt8(ascii: ":"),
                    position + 1 - start == key.utf8CodeUnitCount,
                    key.withUTF8Buffer({ UnsafeBufferPointer(rebasing: line[start...position]).elementsEqual($0) })
                {
                    return JSONDigits.unsignedInteger(in: line, from: position + 2)?.value
                }
                position += 1
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
                position += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                position += 1
            default:
                position += 1
            }
        }
        return nil
    }

    private static let timeMember: [UInt8] = Array(#","time":""#.utf8)
    private static let seqMember: [UInt8] = Array(#","seq":"#.utf8)

    /// The common case read from the end: a line without `updated` ends in `,"seq":N,"time":"…"}` (the
    /// members are in byte order and `time` is the last one then). `nil` when the line does not end so.
    private static func sequenceBeforeTime(inLine line: UnsafeBufferPointer<UInt8>) -> UInt64? {
        let count = line.count
        guard count > 40, line[count - 1] == UInt8(ascii: "}"), line[count - 2] == UInt8(ascii: "\"") else { return nil }
        // The time value has no quote or backslash inside: find its opening quote.
        var position = count - 3
        while position > 0, count - position < 48, line[position] != UInt8(ascii: "\"") {
            if line[position] == UInt8(ascii: "\\") { return nil }
            position -= 1
        }
        let timeStart = position + 1 - timeMember.count
        guard line[position] == UInt8(ascii: "\""), timeStart > 0,
            UnsafeBufferPointer(rebasing: line[timeStart..<(position + 1)]).elementsEqual(timeMember)
        else { return nil }
        var digitsStart = timeStart
        while digitsStart > 0, line[digitsStart - 1] >= UInt8(ascii: "0"), line[digitsStart - 1] <= UInt8(ascii: "9") { digitsStart -= 1 }
        let seqStart = digitsStart - seqMember.count
        guard digitsStart < timeStart, seqStart >= 0,
            UnsafeBufferPointer(rebasing: line[seqStart..<digitsStart]).elementsEqual(seqMember)
        else { return nil }
        return JSONDigits.unsignedInteger(in: line, from: digitsStart)?.value
    }
}
