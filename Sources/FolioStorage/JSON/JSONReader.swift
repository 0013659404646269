/// A strict, fast JSON reader for one JSON text held in memory.
///
/// Strictness is deliberate, so that Folio, `jq` and Python never disagree about a file:
/// - duplicate keys in an object are rejected (Foundation keeps the first, Python and jq the last);
/// - anything but whitespace after the value is rejected;
/// - escapes must be valid, surrogates must pair, the text must be valid UTF-8;
/// - nesting deeper than ``maximumDepth`` is rejected (512 by default, as Foundation);
/// - a number that overflows a `Double` (`1e400`) is rejected;
/// - an integer that fits in `Int64` becomes ``JSONValue/int(_:)``, every other number
///   ``JSONValue/double(_:)``; an integer that fits neither exactly (`123456789012345678901234567890`),
///   or a fraction with more digits than its double holds (`0.1000000000000000055`), is rejected
///   rather than rounded.
///
/// Two keys that Swift considers equal (canonically equivalent Unicode, such as a precomposed and a
/// decomposed "é") count as duplicates.
package struct JSONReader: Sendable {
    /// The deepest nesting of arrays and objects accepted. The default is 512.
    package var maximumDepth: Int

    /// Creates a reader.
    package init(maximumDepth: Int = 512) {
        self.maximumDepth = maximumDepth
    }

    /// Parses one JSON text.
    ///
    /// - Throws: ``StorageError`` with code ``StorageError/Code/invalidJSON`` whose ``StorageError/offset``
    ///   is the byte offset of the problem within `bytes`.
    package func parse(_ bytes: UnsafeBufferPointer<UInt8>) throws(StorageError) -> JSONValue {
        var parser = _Parser(bytes: bytes, maximumDepth: maximumDepth)
        do throws(_SyntaxError) {
            parser.skipWhitespace()
            let value = try parser.parseValue(depth: 0)
            parser.skipWhitespace()
            if parser.index != bytes.count { throw parser.fail("unexpected data after the JSON value") }
            return value
        } catch {
            throw StorageError(.invalidJSON, error.message, offset: Int64(error.offset))
        }
    }

    /// Parses one JSON text from any contiguous bytes.
    package func parse(_ bytes: some Collection<UInt8>) throws(StorageError) -> JSONValue {
        if let result = bytes.withContiguousStorageIfAvailable({ buffer in
            Result { () throws(StorageError) in try parse(buffer) }
        }) {
            return try result.get()
        }
        let array = Array(bytes)
        return try array.withUnsafeBufferPointer { buffer throws(StorageError) in try parse(buffer) }
    }

    /// Parses one JSON text from a string.
    package func parse(_ text: String) throws(StorageError) -> JSONValue {
        try parse(Array(text.utf8))
    }
}

struct _SyntaxError: Error {
    var message: String
    var offset: Int
}

private let _quote: UInt8 = 0x22
private let _backslash: UInt8 = 0x5C

struct _Parser {
    let bytes: UnsafeBufferPointer<UInt8>
    let maximumDepth: Int
    var index = 0
    var scratch: [UInt8] = []
    /// The members of the objects being parsed, innermost last: an object's dictionary is made once,
    /// at its exact size, when the object ends (a dictionary grown member by member, or reserved
    /// generously, wastes memory on the many small objects a store holds).
    var pendingMembers: [(key: String, value: JSONValue, offset: Int)] = []
    /// The values of the record being read by ``parseRecordValues(depth:)``, packed one after the other.
    var packed = PackedArraySink()

    init(bytes: UnsafeBufferPointer<UInt8>, maximumDepth: Int) {
        self.bytes = bytes
        self.maximumDepth = maximumDepth
    }

    func fail(_ message: String, at offset: Int? = nil) -> _SyntaxError {
        _SyntaxError(message: message, offset: offset ?? index)
    }

    @inline(__always)
    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    mutating func parseValue(depth: Int) throws(_SyntaxError) -> JSONValue {
        guard index < bytes.count else { throw fail("unexpected end of JSON text") }
        switch bytes[index] {
        case _quote: return .string(try parseString())
        case UInt8(ascii: "{"): return try parseObject(depth: depth + 1)
        case UInt8(ascii: "["): return try parseArray(depth: depth + 1)
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw fail("unexpected character '\(Self.printable(bytes[index]))'")
        }
    }

    static func printable(_ byte: UInt8) -> String {
        byte >= 0x20 && byte < 0x7F ? String(UnicodeScalar(byte)) : "\\x" + String(byte, radix: 16)
    }

    mutating func expectLiteral(_ literal: StaticString) throws(_SyntaxError) {
        let count = literal.utf8CodeUnitCount
        guard bytes.count - index >= count else { throw fail("unexpected end of JSON text in literal") }
        let base = literal.utf8Start
        for k in 0..<count where bytes[index + k] != base[k] {
            throw fail("invalid literal", at: index + k)
        }
        index += count
    }

    /// Reads an object's members, from its `{` through its `}`, onto ``pendingMembers``; returns where
    /// they start there. The caller builds its value from them and removes them.
    mutating func parseMembers(depth: Int) throws(_SyntaxError) -> Int {
        if depth > maximumDepth { throw fail("nesting deeper than \(maximumDepth)") }
        let base = pendingMembers.count
        index += 1  // {
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            return base
        }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == _quote else { throw fail("expected a string key") }
            let keyOffset = index
            let key = try parseString()
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw fail("expected ':'") }
            index += 1
            skipWhitespace()
            let value = try parseValue(depth: depth)
            pendingMembers.append((key, value, keyOffset))
            skipWhitespace()
            guard index < bytes.count else { throw fail("unexpected end of JSON text in object") }
            let byte = bytes[index]
            index += 1
            if byte == UInt8(ascii: ",") { continue }
            if byte == UInt8(ascii: "}") { return base }
            throw fail("expected ',' or '}'", at: index - 1)
        }
    }

    mutating func parseObject(depth: Int) throws(_SyntaxError) -> JSONValue {
        let base = pendingMembers.count
        defer { pendingMembers.removeSubrange(base...) }
        _ = try parseMembers(depth: depth)
        var members = [String: JSONValue](minimumCapacity: pendingMembers.count - base)
        for member in pendingMembers[base...] where members.updateValue(member.value, forKey: member.key) != nil {
            throw fail("duplicate key \"\(member.key)\"", at: member.offset)
        }
        return .object(members)
    }

    /// Parses an object into ``RecordValues`` without building a dictionary or any ``JSONValue``: each
    /// member's value is packed (see ``PackedValues``) straight from the text into a scratch buffer, then
    /// the values are copied into the record's buffer in name order. Duplicate names are still refused.
    mutating func parseRecordValues(depth: Int) throws(_SyntaxError) -> RecordValues {
        let objectOffset = index
        if depth > maximumDepth { throw fail("nesting deeper than \(maximumDepth)") }
        packed.bytes.removeAll(keepingCapacity: true)
        // Packed values take about as many bytes as their text: one allocation for most records.
        packed.bytes.reserveCapacity(bytes.count - index)
        var members: [(key: String, end: Int)] = []
        members.reserveCapacity(16)
        index += 1  // {
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
        } else {
            while true {
                skipWhitespace()
                guard index < bytes.count, bytes[index] == _quote else { throw fail("expected a string key") }
                let key = try parseString()
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw fail("expected ':'") }
                index += 1
                skipWhitespace()
                try parsePackedValue(depth: depth)
                members.append((key, packed.count))
                skipWhitespace()
                guard index < bytes.count else { throw fail("unexpected end of JSON text in object") }
                let byte = bytes[index]
                index += 1
                if byte == UInt8(ascii: ",") { continue }
                if byte == UInt8(ascii: "}") { break }
                throw fail("expected ',' or '}'", at: index - 1)
            }
        }
        let record = packed.bytes.withUnsafeBufferPointer { data in
            RecordValues(members: members, packedSlots: data)
        }
        guard let record else { throw fail("duplicate key in object", at: objectOffset) }
        return record
    }

    /// Parses one value onto ``packed``, as ``parseValue(depth:)`` parses it into a ``JSONValue``.
    mutating func parsePackedValue(depth: Int) throws(_SyntaxError) {
        guard index < bytes.count else { throw fail("unexpected end of JSON text") }
        switch bytes[index] {
        case _quote: try parsePackedString()
        case UInt8(ascii: "{"): try parsePackedObject(depth: depth + 1)
        case UInt8(ascii: "["): try parsePackedArray(depth: depth + 1)
        case UInt8(ascii: "t"): try expectLiteral("true"); packed.append(PackedEncoding.trueTag)
        case UInt8(ascii: "f"): try expectLiteral("false"); packed.append(PackedEncoding.falseTag)
        case UInt8(ascii: "n"): try expectLiteral("null"); packed.append(PackedEncoding.null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            switch try parseNumber() {
            case .int(let int): PackedEncoding.appendInteger(int, into: &packed)
            case .double(let double): PackedEncoding.appendDouble(double, into: &packed)
            case let other: PackedEncoding.append(other, into: &packed)
            }
        default: throw fail("unexpected character '\(Self.printable(bytes[index]))'")
        }
    }

    /// Packs a string. One without escapes is copied from the text as it is (after checking its UTF-8,
    /// if it is not ASCII); one with escapes is parsed by ``parseString()`` and packed from its `String`.
    mutating func parsePackedString() throws(_SyntaxError) {
        let start = index + 1
        let (stop, nonASCII) = scanStringRun(from: start)
        if stop < bytes.count, bytes[stop] == _quote {
            let slice = UnsafeBufferPointer(rebasing: bytes[start..<stop])
            if nonASCII && !Self.isValidUTF8(slice) { throw fail("invalid UTF-8 in string", at: start) }
            index = stop + 1
            PackedEncoding.appendString(utf8: slice, into: &packed)
            return
        }
        // Escapes, an unescaped control character or no closing quote: the general path reads or refuses it.
        let string = try parseString()
        PackedEncoding.appendString(string, into: &packed)
    }

    /// Scans a string's bytes from `start` to the first that ends it (`"`), needs unescaping (`\`) or is
    /// refused (a control character), or to the end of the text; returns that position and whether the
    /// bytes before it include any that is not ASCII. Eight bytes at a time while none of them stops it.
    @inline(__always)
    func scanStringRun(from start: Int) -> (stop: Int, nonASCII: Bool) {
        var i = start
        let count = bytes.count
        var nonASCII: UInt8 = 0
        while i < count {
            if i + 8 <= count {
                let word = ByteWord.load(bytes, at: i)
                let skip = ByteWord.firstMarkedByte(ByteWord.stringSpecialBytes(word))
                if ByteWord.nonASCIIBytes(ByteWord.prefix(word, skip)) != 0 { nonASCII = 0x80 }
                i += skip
                if skip == 8 { continue }
            }
            let byte = bytes[i]
            if byte == _quote || byte == _backslash || byte < 0x20 { break }
            nonASCII |= byte
            i += 1
        }
        return (i, nonASCII & 0x80 != 0)
    }

    /// Whether `bytes` are well-formed UTF-8, as `String(validating:as:)` requires.
    static func isValidUTF8(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue: continue
            case .emptyInput: return true
            case .error: return false
            }
        }
    }

    /// Packs an array; its count goes before its elements once they are all read.
    mutating func parsePackedArray(depth: Int) throws(_SyntaxError) {
        if depth > maximumDepth { throw fail("nesting deeper than \(maximumDepth)") }
        index += 1  // [
        packed.append(PackedEncoding.array)
        let countOffset = packed.count
        var elements = 0
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
        } else {
            while true {
                skipWhitespace()
                try parsePackedValue(depth: depth)
                elements += 1
                skipWhitespace()
                guard index < bytes.count else { throw fail("unexpected end of JSON text in array") }
                let byte = bytes[index]
                index += 1
                if byte == UInt8(ascii: ",") { continue }
                if byte == UInt8(ascii: "]") { break }
                throw fail("expected ',' or ']'", at: index - 1)
            }
        }
        insertPackedCount(elements, at: countOffset)
    }

    /// Packs an object. The members are copied as they come when their keys are ASCII without escapes,
    /// in increasing byte order (as the canonical writer writes them, and then no two can be equal);
    /// any other object is parsed again by ``parseObject(depth:)``, which sorts its keys and refuses
    /// duplicates, and packed from its ``JSONValue``.
    mutating func parsePackedObject(depth: Int) throws(_SyntaxError) {
        if depth > maximumDepth { throw fail("nesting deeper than \(maximumDepth)") }
        let objectOffset = index
        let packedOffset = packed.count
        index += 1  // {
        packed.append(PackedEncoding.object)
        let countOffset = packed.count
        var members = 0
        var previousKey = 0..<0
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
        } else {
            while true {
                skipWhitespace()
                guard index < bytes.count, bytes[index] == _quote else { throw fail("expected a string key") }
                guard let key = plainKey(at: index),
                    members == 0
                        || UnsafeBufferPointer(rebasing: bytes[previousKey])
                            .lexicographicallyPrecedes(UnsafeBufferPointer(rebasing: bytes[key]))
                else {
                    packed.bytes.removeSubrange(packedOffset...)
                    index = objectOffset
                    PackedEncoding.append(try parseObject(depth: depth), into: &packed)
                    return
                }
                previousKey = key
                index = key.upperBound + 1
                PackedEncoding.appendVarint(key.count, into: &packed)
                packed.append(UnsafeBufferPointer(rebasing: bytes[key]))
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw fail("expected ':'") }
                index += 1
                skipWhitespace()
                try parsePackedValue(depth: depth)
                members += 1
                skipWhitespace()
                guard index < bytes.count else { throw fail("unexpected end of JSON text in object") }
                let byte = bytes[index]
                index += 1
                if byte == UInt8(ascii: ",") { continue }
                if byte == UInt8(ascii: "}") { break }
                throw fail("expected ',' or '}'", at: index - 1)
            }
        }
        insertPackedCount(members, at: countOffset)
    }

    /// The range of the characters of the key whose opening quote is at `quote`, if they are printable
    /// ASCII without escapes and the key is closed; nil otherwise.
    func plainKey(at quote: Int) -> Range<Int>? {
        var i = quote + 1
        while i < bytes.count {
            let byte = bytes[i]
            if byte == _quote { return (quote + 1)..<i }
            if byte < 0x20 || byte >= 0x7F || byte == _backslash { return nil }
            i += 1
        }
        return nil
    }

    /// Puts the count of a packed array's or object's elements before them, at `offset` of ``packed``.
    mutating func insertPackedCount(_ count: Int, at offset: Int) {
        if count < 0x80 {
            packed.bytes.insert(UInt8(count), at: offset)
        } else {
            var varint = PackedArraySink()
            PackedEncoding.appendVarint(count, into: &varint)
            packed.bytes.insert(contentsOf: varint.bytes, at: offset)
        }
    }

    mutating func parseArray(depth: Int) throws(_SyntaxError) -> JSONValue {
        if depth > maximumDepth { throw fail("nesting deeper than \(maximumDepth)") }
        index += 1  // [
        var elements: [JSONValue] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try parseValue(depth: depth))
            skipWhitespace()
            guard index < bytes.count else { throw fail("unexpected end of JSON text in array") }
            let byte = bytes[index]
            index += 1
            if byte == UInt8(ascii: ",") { continue }
            if byte == UInt8(ascii: "]") { return .array(elements) }
            throw fail("expected ',' or ']'", at: index - 1)
        }
    }

    mutating func parseString() throws(_SyntaxError) -> String {
        let start = index + 1
        let count = bytes.count
        // Fast path: no escapes.
        let scanned = scanStringRun(from: start)
        var i = scanned.stop
        let nonASCII = scanned.nonASCII
        if i < count, bytes[i] == _quote {
            index = i + 1
            let slice = UnsafeBufferPointer(rebasing: bytes[start..<i])
            if !nonASCII {
                // Pure ASCII is valid UTF-8: skip validation.
                return String(unsafeUninitializedCapacity: slice.count) { buffer in
                    _ = buffer.initialize(fromContentsOf: slice)
                    return slice.count
                }
            }
            guard let string = String(validating: slice, as: UTF8.self) else {
                throw fail("invalid UTF-8 in string", at: start)
            }
            return string
        }
        if i < count, bytes[i] < 0x20 { throw fail("unescaped control character in string", at: i) }
        guard i < count else { throw fail("unterminated string", at: start - 1) }
        // Slow path with escapes.
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<i]))
        while i < count {
            let byte = bytes[i]
            if byte == _quote {
                index = i + 1
                guard let string = String(validating: scratch, as: UTF8.self) else {
                    throw fail("invalid UTF-8 in string", at: start)
                }
                return string
            }
            if byte < 0x20 { throw fail("unescaped control character in string", at: i) }
            if byte != _backslash {
                scratch.append(byte)
                i += 1
                continue
            }
            guard i + 1 < count else { break }
            let escape = bytes[i + 1]
            switch escape {
            case _quote: scratch.append(_quote)
            case _backslash: scratch.append(_backslash)
            case UInt8(ascii: "/"): scratch.append(UInt8(ascii: "/"))
            case UInt8(ascii: "b"): scratch.append(0x08)
            case UInt8(ascii: "f"): scratch.append(0x0C)
            case UInt8(ascii: "n"): scratch.append(0x0A)
            case UInt8(ascii: "r"): scratch.append(0x0D)
            case UInt8(ascii: "t"): scratch.append(0x09)
            case UInt8(ascii: "u"):
                var scalarValue = try hex4(at: i + 2)
                var consumed = 6
                if scalarValue >= 0xD800 && scalarValue < 0xDC00 {
                    guard i + 12 <= count, bytes[i + 6] == _backslash, bytes[i + 7] == UInt8(ascii: "u") else {
                        throw fail("lone high surrogate in \\u escape", at: i)
                    }
                    let low = try hex4(at: i + 8)
                    guard low >= 0xDC00 && low < 0xE000 else { throw fail("invalid low surrogate", at: i + 6) }
                    scalarValue = 0x10000 + ((scalarValue - 0xD800) << 10) + (low - 0xDC00)
                    consumed = 12
                } else if scalarValue >= 0xDC00 && scalarValue < 0xE000 {
                    throw fail("lone low surrogate in \\u escape", at: i)
                }
                guard let scalar = Unicode.Scalar(scalarValue) else { throw fail("invalid \\u escape", at: i) }
                appendUTF8(scalar, to: &scratch)
                i += consumed
                continue
            default:
                throw fail("invalid escape '\\\(Self.printable(escape))'", at: i)
            }
            i += 2
        }
        throw fail("unterminated string", at: start - 1)
    }

    func appendUTF8(_ scalar: Unicode.Scalar, to buffer: inout [UInt8]) {
        let value = scalar.value
        switch value {
        case 0..<0x80:
            buffer.append(UInt8(value))
        case 0x80..<0x800:
            buffer.append(UInt8(0xC0 | (value >> 6)))
            buffer.append(UInt8(0x80 | (value & 0x3F)))
        case 0x800..<0x10000:
            buffer.append(UInt8(0xE0 | (value >> 12)))
            buffer.append(UInt8(0x80 | ((value >> 6) & 0x3F)))
            buffer.append(UInt8(0x80 | (value & 0x3F)))
        default:
            buffer.append(UInt8(0xF0 | (value >> 18)))
            buffer.append(UInt8(0x80 | ((value >> 12) & 0x3F)))
            buffer.append(UInt8(0x80 | ((value >> 6) & 0x3F)))
            buffer.append(UInt8(0x80 | (value & 0x3F)))
        }
    }

    func hex4(at offset: Int) throws(_SyntaxError) -> UInt32 {
        guard offset + 4 <= bytes.count else { throw fail("truncated \\u escape", at: offset) }
        var value: UInt32 = 0
        for k in 0..<4 {
            let byte = bytes[offset + k]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw fail("invalid hex digit in \\u escape", at: offset + k)
            }
            value = value << 4 | UInt32(digit)
        }
        return value
    }

    static let powersOfTen: [Double] = (0...22).map { exponent in
        var value = 1.0
        for _ in 0..<exponent { value *= 10 }
        return value
    }

    static func digitCount(_ value: UInt64) -> Int {
        var value = value
        var digits = 0
        while value > 0 {
            digits += 1
            value /= 10
        }
        return digits
    }

    mutating func parseNumber() throws(_SyntaxError) -> JSONValue {
        let start = index
        var i = index
        let count = bytes.count
        var negative = false
        if bytes[i] == UInt8(ascii: "-") {
            negative = true
            i += 1
        }
        guard i < count, bytes[i] >= UInt8(ascii: "0"), bytes[i] <= UInt8(ascii: "9") else {
            throw fail("invalid number", at: start)
        }
        var magnitude: UInt64 = 0
        var overflow = false
        if bytes[i] == UInt8(ascii: "0") {
            i += 1
            if i < count, bytes[i] >= UInt8(ascii: "0"), bytes[i] <= UInt8(ascii: "9") {
                throw fail("leading zero in number", at: start)
            }
        } else {
            while i < count, bytes[i] >= UInt8(ascii: "0"), bytes[i] <= UInt8(ascii: "9") {
                let (m1, o1) = magnitude.multipliedReportingOverflow(by: 10)
                let (m2, o2) = m1.addingReportingOverflow(UInt64(bytes[i] - UInt8(ascii: "0")))
                if o1 || o2 { overflow = true }
                magnitude = m2
                i += 1
            }
        }
        var isInteger = true
        // For the exact fast path: all significant digits as an integer, and the decimal exponent.
        var significand = magnitude
        var significantDigits = overflow ? 99 : Self.digitCount(magnitude)
        var decimalExponent = 0
        if i < count, bytes[i] == UInt8(ascii: ".") {
            isInteger = false
            i += 1
            let digitsStart = i
            while i < count, bytes[i] >= UInt8(ascii: "0"), bytes[i] <= UInt8(ascii: "9") {
                if significantDigits < 19 {
                    significand = significand &* 10 &+ UInt64(bytes[i] - UInt8(ascii: "0"))
                    if significand != 0 { significantDigits += 1 }
                    decimalExponent -= 1
                } else {
                    significantDigits = 99
                }
                i += 1
            }
            if i == digitsStart { throw fail("expected digits after '.'", at: i) }
        }
        if i < count, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
            isInteger = false
            i += 1
            var exponentNegative = false
            if i < count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") {
                exponentNegative = bytes[i] == UInt8(ascii: "-")
                i += 1
            }
            let digitsStart = i
            var exponent = 0
            while i < count, bytes[i] >= UInt8(ascii: "0"), bytes[i] <= UInt8(ascii: "9") {
                if exponent < 100_000 { exponent = exponent * 10 + Int(bytes[i] - UInt8(ascii: "0")) }
                i += 1
            }
            if i == digitsStart { throw fail("expected digits in exponent", at: i) }
            decimalExponent += exponentNegative ? -exponent : exponent
        }
        index = i
        // Clinger's fast path: an integer significand below 2^53 scaled by an exactly representable power
        // of ten gives the correctly rounded double with one multiplication or division.
        if !isInteger, significantDigits <= 15, decimalExponent >= -22, decimalExponent <= 22 {
            var value = Double(significand)
            if decimalExponent < 0 { value /= Self.powersOfTen[-decimalExponent] } else { value *= Self.powersOfTen[decimalExponent] }
            return .double(negative ? -value : value)
        }
        if isInteger && !overflow {
            if negative {
                if magnitude <= UInt64(Int64.max) { return .int(-Int64(magnitude)) }
                if magnitude == UInt64(Int64.max) + 1 { return .int(Int64.min) }
            } else if magnitude <= UInt64(Int64.max) {
                return .int(Int64(magnitude))
            }
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<i]), as: UTF8.self)
        guard let double = Double(text), double.isFinite else {
            throw fail("number \(text) is out of range", at: start)
        }
        if isInteger {
            // An integer past Int64 is kept only if a double holds it exactly.
            let digits = UnsafeBufferPointer(rebasing: bytes[(negative ? start + 1 : start)..<i])
            guard ExactIntegerDigits.digits(of: double.magnitude).elementsEqual(digits) else {
                throw fail("integer \(text) does not fit in 64 bits and no double holds it exactly; Folio does not round numbers", at: start)
            }
        } else if !DecimalValue.isExact(UnsafeBufferPointer(rebasing: bytes[start..<i]), as: double) {
            // Up to 15 significant digits always read back exactly (the fast path above); longer texts
            // are kept only when they are the double's own shortest form.
            throw fail("number \(text) has more digits than a double holds exactly (it reads as \(double)); Folio does not round numbers", at: start)
        }
        return .double(double)
    }
}
