/// Walks the members of a JSON object, or the elements of an array, in its bytes without building
/// values: how blame picks one record's entries out of a journal line that lists thousands.
///
/// A skim checks only the structure it walks (quotes, escapes, nesting); the caller parses the values it
/// keeps with ``JSONReader``, which checks them in full, and parses the whole text instead when a skim
/// fails. Every index is bounds-checked, so hostile bytes make a skim fail, never trap.
enum JSONSkim {
    /// Calls `body` with the key's bytes (between its quotes, escapes left as they are) and the value's
    /// range, for each member of the object that `range` of `bytes` holds, until `body` returns false.
    ///
    /// - Returns: false when `range` does not hold an object (whitespace aside) that the walk could follow.
    /// - Complexity: O(*n*) for *n* bytes in `range`.
    static func members(
        of bytes: UnsafeBufferPointer<UInt8>, in range: Range<Int>, _ body: (_ key: Range<Int>, _ value: Range<Int>) -> Bool
    ) -> Bool {
        let end = range.upperBound
        var i = skipWhitespace(bytes, from: range.lowerBound, to: end)
        guard i < end, bytes[i] == UInt8(ascii: "{") else { return false }
        i = skipWhitespace(bytes, from: i + 1, to: end)
        if i < end, bytes[i] == UInt8(ascii: "}") { return true }
        while i < end {
            guard bytes[i] == UInt8(ascii: "\""), let keyEnd = stringEnd(bytes, from: i, to: end) else { return false }
            let key = (i + 1)..<(keyEnd - 1)
            i = skipWhitespace(bytes, from: keyEnd, to: end)
            guard i < end, bytes[i] == UInt8(ascii: ":") else { return false }
            let valueStart = skipWhitespace(bytes, from: i + 1, to: end)
            guard let valueEnd = valueEnd(bytes, from: valueStart, to: end) else { return false }
            guard body(key, valueStart..<valueEnd) else { return true }
            guard let next = afterSeparator(bytes, from: valueEnd, to: end, closing: UInt8(ascii: "}")) else { return false }
            if next == end { return true }
            i = next
        }
        return false
    }

    /// Calls `body` with the range of each element of the array that `range` of `bytes` holds, until
    /// `body` returns false.
    ///
    /// - Returns: false when `range` does not hold an array (whitespace aside) that the walk could follow.
    /// - Complexity: O(*n*) for *n* bytes in `range`.
    static func elements(of bytes: UnsafeBufferPointer<UInt8>, in range: Range<Int>, _ body: (_ element: Range<Int>) -> Bool) -> Bool {
        let end = range.upperBound
        var i = skipWhitespace(bytes, from: range.lowerBound, to: end)
        guard i < end, bytes[i] == UInt8(ascii: "[") else { return false }
        i = skipWhitespace(bytes, from: i + 1, to: end)
        if i < end, bytes[i] == UInt8(ascii: "]") { return true }
        while i < end {
            guard let elementEnd = valueEnd(bytes, from: i, to: end) else { return false }
            guard body(i..<elementEnd) else { return true }
            guard let next = afterSeparator(bytes, from: elementEnd, to: end, closing: UInt8(ascii: "]")) else { return false }
            if next == end { return true }
            i = next
        }
        return false
    }

    /// Whether the bytes in `range` are exactly `word`'s.
    static func equals(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, _ word: StaticString) -> Bool {
        guard range.count == word.utf8CodeUnitCount, range.lowerBound >= 0, range.upperBound <= bytes.count else { return false }
        return word.withUTF8Buffer { expected in expected.indices.allSatisfy { bytes[range.lowerBound + $0] == expected[$0] } }
    }

    /// The integer that `range` of `bytes` spells in JSON (an optional `-` and decimal digits, no
    /// fraction or exponent); nil for anything else or a value outside `Int64`.
    static func integer(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Int64? {
        guard !range.isEmpty, range.upperBound <= bytes.count else { return nil }
        let negative = bytes[range.lowerBound] == UInt8(ascii: "-")
        let digits = (negative ? range.lowerBound + 1 : range.lowerBound)..<range.upperBound
        guard !digits.isEmpty, digits.count <= 19 else { return nil }
        var magnitude: UInt64 = 0
        for index in digits {
            let byte = bytes[index]
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            magnitude = magnitude * 10 + UInt64(byte - UInt8(ascii: "0"))
        }
        if negative { return magnitude <= UInt64(Int64.max) + 1 ? Int64(truncatingIfNeeded: 0 &- magnitude) : nil }
        return magnitude <= UInt64(Int64.max) ? Int64(magnitude) : nil
    }

    // MARK: Walking

    /// After a value: the index after a following `,` (and whitespace), `end` after the closing byte,
    /// or nil for anything else.
    private static func afterSeparator(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int, closing: UInt8) -> Int? {
        let i = skipWhitespace(bytes, from: start, to: end)
        guard i < end else { return nil }
        if bytes[i] == closing { return end }
        guard bytes[i] == UInt8(ascii: ",") else { return nil }
        let next = skipWhitespace(bytes, from: i + 1, to: end)
        return next < end ? next : nil
    }

    /// The index just after the value starting at `start`: a string, an object or array (nested
    /// brackets counted, strings skipped), or a scalar (up to a delimiter).
    private static func valueEnd(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> Int? {
        guard start < end else { return nil }
        switch bytes[start] {
        case UInt8(ascii: "\""):
            return stringEnd(bytes, from: start, to: end)
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            var depth = 0
            var i = start
            while i < end {
                switch bytes[i] {
                case UInt8(ascii: "\""):
                    guard let after = stringEnd(bytes, from: i, to: end) else { return nil }
                    i = after
                    continue
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    depth -= 1
                    if depth == 0 { return i + 1 }
                default:
                    break
                }
                i += 1
            }
            return nil
        default:
            var i = start
            while i < end, !isDelimiter(bytes[i]) { i += 1 }
            return i > start ? i : nil
        }
    }

    /// The index just after the closing quote of the string whose opening quote is at `start`.
    private static func stringEnd(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> Int? {
        var i = start + 1
        while i < end {
            switch bytes[i] {
            case UInt8(ascii: "\\"): i += 2
            case UInt8(ascii: "\""): return i + 1
            default: i += 1
            }
        }
        return nil
    }

    private static func isDelimiter(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: ",") || byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]") || isWhitespace(byte)
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    private static func skipWhitespace(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> Int {
        var i = start
        while i < end, isWhitespace(bytes[i]) { i += 1 }
        return i
    }
}
