/// Writes ``JSONValue``s in Folio's canonical form, so that the same value always gives the same bytes.
///
/// The canonical form:
/// - no insignificant whitespace;
/// - object keys sorted by their UTF-8 bytes;
/// - integers in decimal without a fraction; doubles in Swift's shortest round-trip form, always with a
///   fraction or exponent (`3.0`, `0.1`, `1e+20`); non-finite doubles are refused;
/// - strings as raw UTF-8, escaping only `"`, `\`, the C0 and C1 control characters and DEL
///   (`\b \f \n \r \t` where they exist, `\u00XX` otherwise) and U+2028/U+2029 (`\u2028`, `\u2029`),
///   so that no tool splitting on Unicode line breaks can cut a line in two.
package struct CanonicalJSONWriter: Sendable {
    /// Creates a writer.
    package init() {}

    /// Returns the canonical bytes of `value`.
    ///
    /// - Throws: ``StorageError/Code/unencodableValue`` for a non-finite double.
    package func bytes(_ value: JSONValue) throws(StorageError) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(128)
        try write(value, into: &output)
        return output
    }

    /// Returns the canonical text of `value`.
    package func string(_ value: JSONValue) throws(StorageError) -> String {
        String(decoding: try bytes(value), as: UTF8.self)
    }

    /// Appends the canonical bytes of `value` to `output`.
    package func write(_ value: JSONValue, into output: inout [UInt8]) throws(StorageError) {
        switch value {
        case .null: output.append(contentsOf: [0x6E, 0x75, 0x6C, 0x6C])
        case .bool(true): output.append(contentsOf: [0x74, 0x72, 0x75, 0x65])
        case .bool(false): output.append(contentsOf: [0x66, 0x61, 0x6C, 0x73, 0x65])
        case .int(let int): Self.writeInteger(int, into: &output)
        case .double(let double): try Self.writeDouble(double, into: &output)
        case .string(let string): Self.writeString(string, into: &output)
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            for (position, element) in elements.enumerated() {
                if position > 0 { output.append(UInt8(ascii: ",")) }
                try write(element, into: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let members) where members.count <= 1:
            // One member (a small `Codable` struct) needs no sorting.
            output.append(UInt8(ascii: "{"))
            if let (key, member) = members.first {
                Self.writeString(key, into: &output)
                output.append(UInt8(ascii: ":"))
                try write(member, into: &output)
            }
            output.append(UInt8(ascii: "}"))
        case .object(let members):
            output.append(UInt8(ascii: "{"))
            var first = true
            for (key, member) in members.sorted(by: { Self.utf8Precedes($0.key, $1.key) }) {
                if !first { output.append(UInt8(ascii: ",")) }
                first = false
                Self.writeString(key, into: &output)
                output.append(UInt8(ascii: ":"))
                try write(member, into: &output)
            }
            output.append(UInt8(ascii: "}"))
        }
    }

    /// Appends the canonical bytes of an object holding `values`, without building a dictionary.
    package func write(_ values: RecordValues, into output: inout [UInt8]) throws(StorageError) {
        guard values.layout.isInByteOrder else {
            try write(.object(values.dictionary), into: &output)
            return
        }
        guard !values.isEmpty else {
            output.append(contentsOf: [UInt8(ascii: "{"), UInt8(ascii: "}")])
            return
        }
        // The layout holds each member's `{"name":` or `,"name":` bytes, ready to copy. They are read
        // through one buffer pointer per record, not a slice per member: each slice retains the layout's
        // bytes, which every core writing records shares.
        let layout = values.layout
        try layout.memberPrefixes.withUnsafeBufferPointer { prefixes throws(StorageError) in
            try layout.memberPrefixEnds.withUnsafeBufferPointer { ends throws(StorageError) in
                // Each value is written straight from its packed bytes, without decoding it.
                try values.values.bytes.withUnsafeBufferPointer { packed throws(StorageError) in
                    var start = 0
                    for (position, end) in ends.enumerated() {
                        output.append(contentsOf: UnsafeBufferPointer(rebasing: prefixes[start..<end]))
                        if let range = PackedReader.range(ofSlot: position, in: packed) {
                            var reader = PackedReader(bytes: packed, position: range.lowerBound)
                            try writePacked(&reader, depth: 0, into: &output)
                        } else {
                            Self.writeNull(into: &output)  // a broken buffer: the value reads as null
                        }
                        start = end
                    }
                }
            }
        }
        output.append(UInt8(ascii: "}"))
    }

    /// Appends `"key":`, preceded by a comma unless it is the object's first member.
    static func writeMemberName(_ key: StaticString, first: Bool = false, into output: inout [UInt8]) {
        if !first { output.append(UInt8(ascii: ",")) }
        output.append(_quoteByte)
        output.append(contentsOf: UnsafeBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount))
        output.append(_quoteByte)
        output.append(UInt8(ascii: ":"))
    }

    /// Whether `a` comes before `b` in UTF-8 byte order (keys are sorted by their bytes, not by Swift's
    /// `String` ordering, which is not byte order), comparing the contiguous bytes directly.
    static func utf8Precedes(_ a: String, _ b: String) -> Bool {
        var a = a
        var b = b
        return a.withUTF8 { left in
            b.withUTF8 { right in
                let common = Swift.min(left.count, right.count)
                for index in 0..<common where left[index] != right[index] {
                    return left[index] < right[index]
                }
                return left.count < right.count
            }
        }
    }

    static func writeInteger(_ value: Int64, into output: inout [UInt8]) {
        if value == 0 {
            output.append(UInt8(ascii: "0"))
            return
        }
        var magnitude = value.magnitude
        if value < 0 { output.append(UInt8(ascii: "-")) }
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes of scratch, enough for 20 digits
        withUnsafeMutableBytes(of: &digits) { buffer in
            var position = buffer.count
            while magnitude > 0 {
                position -= 1
                buffer[position] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            }
            output.append(contentsOf: buffer[position...])
        }
    }

    static func writeDouble(_ value: Double, into output: inout [UInt8]) throws(StorageError) {
        guard value.isFinite else {
            throw StorageError(
                .unencodableValue,
                "the double \(value) has no JSON form; store it as a string or refuse it in the model layer")
        }
        // `description` is Swift's shortest round-trip form and already ends in ".0" when integral
        // below 2^53; larger values use an exponent ("1e+16"), which is also a valid JSON double.
        output.append(contentsOf: value.description.utf8)
    }

    /// Appends the canonical bytes of the packed value `reader` is at, moving past it. Broken bytes (see
    /// ``PackedValues``) write `null` from where they are found, as they decode.
    func writePacked(_ reader: inout PackedReader, depth: Int, into output: inout [UInt8]) throws(StorageError) {
        guard let tag = reader.readByte() else { return Self.writeNull(into: &output) }
        switch tag {
        case PackedEncoding.null: Self.writeNull(into: &output)
        case PackedEncoding.trueTag: output.append(contentsOf: [0x74, 0x72, 0x75, 0x65])
        case PackedEncoding.falseTag: output.append(contentsOf: [0x66, 0x61, 0x6C, 0x73, 0x65])
        case PackedEncoding.int8, PackedEncoding.int16, PackedEncoding.int32, PackedEncoding.int64:
            let width = 1 << Int(tag - PackedEncoding.int8)
            guard let int = reader.readInteger(width: width) else { return Self.writeNull(into: &output) }
            Self.writeInteger(int, into: &output)
        case PackedEncoding.double:
            guard let bits = reader.readFixed(width: 8) else { return Self.writeNull(into: &output) }
            try Self.writeDouble(Double(bitPattern: bits), into: &output)
        case PackedEncoding.plainString:
            guard let utf8 = reader.readUTF8() else { return Self.writeNull(into: &output) }
            output.append(_quoteByte)
            output.append(contentsOf: utf8)
            output.append(_quoteByte)
        case PackedEncoding.string:
            guard let utf8 = reader.readUTF8() else { return Self.writeNull(into: &output) }
            Self.writeString(utf8: utf8, into: &output)
        case PackedEncoding.dateString, PackedEncoding.uuidString:
            // Digits, separators and letters only: written between quotes as they are.
            let written: Void? = reader.readShapedText(tag: tag) { text in
                output.append(_quoteByte)
                output.append(contentsOf: text)
                output.append(_quoteByte)
            }
            if written == nil { Self.writeNull(into: &output) }
        case PackedEncoding.array:
            // Each element takes a byte at least: a count past the bytes left is broken.
            guard depth < PackedReader.maximumDepth, let count = reader.readVarint(), count <= reader.remaining
            else { return Self.writeNull(into: &output) }
            output.append(UInt8(ascii: "["))
            for position in 0..<count {
                if position > 0 { output.append(UInt8(ascii: ",")) }
                try writePacked(&reader, depth: depth + 1, into: &output)
            }
            output.append(UInt8(ascii: "]"))
        case PackedEncoding.object:
            // The members are packed in UTF-8 order of their keys, the canonical order.
            guard depth < PackedReader.maximumDepth, let count = reader.readVarint(), count <= reader.remaining / 2
            else { return Self.writeNull(into: &output) }
            output.append(UInt8(ascii: "{"))
            for position in 0..<count {
                if position > 0 { output.append(UInt8(ascii: ",")) }
                Self.writeString(utf8: reader.readUTF8() ?? UnsafeBufferPointer(start: nil, count: 0), into: &output)
                output.append(UInt8(ascii: ":"))
                try writePacked(&reader, depth: depth + 1, into: &output)
            }
            output.append(UInt8(ascii: "}"))
        default:
            Self.writeNull(into: &output)
        }
    }

    static func writeNull(into output: inout [UInt8]) {
        output.append(contentsOf: [0x6E, 0x75, 0x6C, 0x6C])
    }

    static func writeString(_ string: String, into output: inout [UInt8]) {
        var string = string
        string.withUTF8 { utf8 in writeString(utf8: utf8, into: &output) }
    }

    /// Appends the canonical form of the string whose UTF-8 bytes are `utf8`.
    static func writeString(utf8: UnsafeBufferPointer<UInt8>, into output: inout [UInt8]) {
        output.append(_quoteByte)
        do {
            var runStart = 0
            var i = 0
            let count = utf8.count
            while i < count {
                // Most text needs no escape: skip eight bytes at a time up to the first that may need one
                // (a control character, a quote, a backslash, DEL or part of a multi-byte character).
                if i + 8 <= count {
                    let skip = ByteWord.firstMarkedByte(Self.attentionBytes(ByteWord.load(utf8, at: i)))
                    i += skip
                    if skip == 8 { continue }
                }
                let byte = utf8[i]
                // Most bytes need no escape: skip them with as few tests as possible.
                if byte >= 0x20 && byte < 0x7F && byte != _quoteByte && byte != _backslashByte {
                    i += 1
                    continue
                }
                var escape: StaticString? = nil
                var width = 1
                var controlValue: UInt8? = nil
                if byte < 0x20 || byte == 0x7F {
                    switch byte {
                    case 0x08: escape = "\\b"
                    case 0x09: escape = "\\t"
                    case 0x0A: escape = "\\n"
                    case 0x0C: escape = "\\f"
                    case 0x0D: escape = "\\r"
                    default: controlValue = byte
                    }
                } else if byte == _quoteByte {
                    escape = "\\\""
                } else if byte == _backslashByte {
                    escape = "\\\\"
                } else if byte == 0xC2, i + 1 < count, utf8[i + 1] >= 0x80, utf8[i + 1] <= 0x9F {
                    controlValue = utf8[i + 1]  // C1 control U+0080...U+009F
                    width = 2
                } else if byte == 0xE2, i + 2 < count, utf8[i + 1] == 0x80, utf8[i + 2] == 0xA8 || utf8[i + 2] == 0xA9 {
                    escape = utf8[i + 2] == 0xA8 ? "\\u2028" : "\\u2029"
                    width = 3
                }
                if escape == nil && controlValue == nil {
                    i += 1
                    continue
                }
                output.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<i]))
                if let escape {
                    output.append(contentsOf: UnsafeBufferPointer(start: escape.utf8Start, count: escape.utf8CodeUnitCount))
                } else if let controlValue {
                    output.append(contentsOf: [_backslashByte, UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")])
                    output.append(_hexDigits[Int(controlValue >> 4)])
                    output.append(_hexDigits[Int(controlValue & 0xF)])
                }
                i += width
                runStart = i
            }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<count]))
        }
        output.append(_quoteByte)
    }
}

extension CanonicalJSONWriter {
    /// Marks the bytes of `word` not written as they are, or that may start a sequence that is not:
    /// anything but printable ASCII (0x20...0x7E) other than `"` and `\`. Canonical text also escapes
    /// DEL, the C1 controls and U+2028/U+2029, so every byte from 0x7F up takes the byte-by-byte path.
    @inline(__always)
    static func attentionBytes(_ word: UInt64) -> UInt64 {
        ByteWord.nonASCIIBytes(word) | ByteWord.stringSpecialBytes(word) | ByteWord.bytes(equalTo: 0x7F, in: word)
    }
}

private let _quoteByte: UInt8 = 0x22
private let _backslashByte: UInt8 = 0x5C
let _hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

extension JSONValue {
    /// The canonical JSON bytes of this value (see ``CanonicalJSONWriter``).
    package func canonicalBytes() throws(StorageError) -> [UInt8] {
        try CanonicalJSONWriter().bytes(self)
    }

    /// The canonical JSON text of this value (see ``CanonicalJSONWriter``).
    package func canonicalString() throws(StorageError) -> String {
        try CanonicalJSONWriter().string(self)
    }

    /// Parses one strict JSON text (see ``JSONReader``).
    package init(parsing text: String) throws(StorageError) {
        self = try JSONReader().parse(text)
    }

    /// The value at `key`, if this value is an object that has it.
    public subscript(key: String) -> JSONValue? {
        objectValue?[key]
    }
}
