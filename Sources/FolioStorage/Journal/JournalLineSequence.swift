/// Finding a journal line's sequence number without decoding the line (compaction uses it to find the
/// lines of retained transactions on disk).
extension JournalTransaction {
    /// The sequence number (the `seq` member) of a journal line, found without decoding the line: the
    /// object's members are walked at the top level only, skipping nested values and strings. `nil` if
    /// there is none.
    static func sequence(inLine line: UnsafeBufferPointer<UInt8>) -> UInt64? {
        if let sequence = sequenceBeforeTime(inLine: line) { return sequence }
        guard let start = valueStart(ofMember: "\"seq\"", inLine: line) else { return nil }
        return JSONDigits.unsignedInteger(in: line, from: start)?.value
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

extension JournalTransaction {
    /// Where the value of the top-level member `key` (with its quotes, as in `"\"id\""`) starts in a
    /// journal line, found without decoding the line; nil when the line has no such member.
    static func valueStart(ofMember key: StaticString, inLine line: UnsafeBufferPointer<UInt8>) -> Int? {
        let quote = UInt8(ascii: "\""), backslash = UInt8(ascii: "\\")
        var depth = 0
        var position = 0
        let count = line.count
        while position < count {
            switch line[position] {
            case quote:
                let start = position
                position += 1
                while position < count, line[position] != quote { position += line[position] == backslash ? 2 : 1 }
                guard position < count else { return nil }
                if depth == 1, position + 1 < count, line[position + 1] == UInt8(ascii: ":"),
                    position + 1 - start == key.utf8CodeUnitCount,
                    key.withUTF8Buffer({ UnsafeBufferPointer(rebasing: line[start...position]).elementsEqual($0) })
                {
                    return position + 2
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

    /// The value of a top-level string member without escapes (a transaction's `id` or `time`), found
    /// without decoding the line; nil when there is none or it holds a backslash.
    static func plainString(ofMember key: StaticString, inLine line: UnsafeBufferPointer<UInt8>) -> String? {
        guard let start = valueStart(ofMember: key, inLine: line), start < line.count, line[start] == UInt8(ascii: "\"") else { return nil }
        var end = start + 1
        while end < line.count, line[end] != UInt8(ascii: "\"") {
            if line[end] == UInt8(ascii: "\\") { return nil }
            end += 1
        }
        guard end < line.count else { return nil }
        return String(decoding: UnsafeBufferPointer(rebasing: line[(start + 1)..<end]), as: UTF8.self)
    }
}
