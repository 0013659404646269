import Foundation

/// The values of one record packed into one contiguous, immutable byte buffer, decoded on demand.
///
/// It reads like a `ContiguousArray<JSONValue>` (a random-access collection of values, in the order of
/// the record's ``RecordLayout``), but a record costs one allocation of a few bytes per value instead of
/// an array of 24-byte enums plus a heap object for each long string, array and object.
///
/// The bytes, all written by ``PackedEncoding`` in memory (they are never read from disk):
/// - a width byte `w` (1, 2, 4 or 8), then the value count in `w` bytes, then for each value the offset
///   (from the buffer's start) where its bytes end, in `w` bytes each, little-endian; the values follow,
///   so that reading one value is O(1);
/// - a value is a tag byte and its payload: `null`, `false`, `true` (no payload); an integer in the
///   fewest of 1, 2, 4 or 8 bytes; a double's 8 raw bytes; a string's UTF-8 length (LEB128) and bytes,
///   or for a string of a date's or a UUID's shape (``PackedTextShapes``) its digits in 9 or 16 bytes;
///   an array's count (LEB128) and its elements; an object's count and, sorted by their UTF-8 bytes as
///   the canonical writer orders them, each key (length and bytes) followed by its value.
///
/// So the same values give the same bytes, except where `JSONValue` equality is looser than its bytes
/// (`0.0` and `-0.0`, canonically equivalent strings), which ``RecordValues``' `==` compares decoded.
///
/// Decoding checks every read against the buffer's bounds: if the bytes were broken (they cannot be,
/// unless ``PackedEncoding`` has a bug), the affected value decodes as `.null`, with no trap and no
/// assertion, so that tests can feed broken buffers and see every read stay in bounds.
package struct PackedValues: RandomAccessCollection, Sendable {
    /// The packed bytes (empty for no values).
    package let bytes: ContiguousArray<UInt8>

    /// No values; the empty array shares the standard library's empty storage, so this allocates nothing.
    package init() {
        self.bytes = []
    }

    /// Bytes as they are, unchecked: for the encoder, and for tests that decode broken buffers.
    package init(unvalidatedBytes bytes: ContiguousArray<UInt8>) {
        self.bytes = bytes
    }

    /// The position of the first value: 0.
    package var startIndex: Int { 0 }

    /// The number of values (read from the buffer's header).
    package var endIndex: Int {
        bytes.withUnsafeBufferPointer { PackedReader.header(of: $0)?.count ?? 0 }
    }

    /// The value at `position`, decoded; a position outside the values reads as `.null`.
    package subscript(position: Int) -> JSONValue {
        value(atSlot: position)
    }

    /// The value of slot `slot`, decoded; `.null` if there is no such slot (or the bytes are broken).
    package func value(atSlot slot: Int) -> JSONValue {
        bytes.withUnsafeBufferPointer { buffer in
            guard let range = PackedReader.range(ofSlot: slot, in: buffer) else { return .null }
            var reader = PackedReader(bytes: buffer, position: range.lowerBound)
            guard let value = reader.readValue(depth: 0), reader.position == range.upperBound else { return .null }
            return value
        }
    }

    /// The byte range of slot `slot` in ``bytes``; nil if there is no such slot.
    package func byteRange(ofSlot slot: Int) -> Range<Int>? {
        bytes.withUnsafeBufferPointer { PackedReader.range(ofSlot: slot, in: $0) }
    }

    /// Whether slot `slot` holds an array or an object: the only values that can hold blob references.
    package func holdsContainer(atSlot slot: Int) -> Bool {
        bytes.withUnsafeBufferPointer { buffer in
            guard let range = PackedReader.range(ofSlot: slot, in: buffer), !range.isEmpty else { return false }
            return buffer[range.lowerBound] == PackedEncoding.array || buffer[range.lowerBound] == PackedEncoding.object
        }
    }

    /// Calls `body` with the encoded bytes of slot `slot` (empty if there is no such slot).
    package func withSlotBytes<R, E: Error>(
        _ slot: Int, _ body: (UnsafeBufferPointer<UInt8>) throws(E) -> R
    ) throws(E) -> R {
        try bytes.withUnsafeBufferPointer { buffer throws(E) in
            let range = PackedReader.range(ofSlot: slot, in: buffer) ?? 0..<0
            return try body(UnsafeBufferPointer(rebasing: buffer[range]))
        }
    }

    /// Whether slot `slot` of `self` and slot `other` of `otherValues` hold equal values: equal bytes, or
    /// equal decoded values (`0.0` and `-0.0`, canonically equivalent strings).
    func slotEquals(_ slot: Int, _ otherValues: PackedValues, _ other: Int) -> Bool {
        let sameBytes = withSlotBytes(slot) { mine in
            otherValues.withSlotBytes(other) { theirs in
                guard mine.count == theirs.count else { return false }
                guard let mineStart = mine.baseAddress, let theirStart = theirs.baseAddress else { return true }
                return memcmp(mineStart, theirStart, mine.count) == 0
            }
        }
        return sameBytes || value(atSlot: slot) == otherValues.value(atSlot: other)
    }
}

// MARK: - Encoding

/// Where the encoder writes: a counter (to size a buffer), a fixed buffer or a growing array.
protocol PackedSink {
    /// Whether only ``count`` matters: the encoder then skips the work that makes no difference to it.
    static var measuresOnly: Bool { get }
    var count: Int { get }
    mutating func append(_ byte: UInt8)
    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>)
    /// Counts `count` bytes of payload without their contents; only for a sink that ``measuresOnly``.
    mutating func appendUnwritten(_ count: Int)
}

extension PackedSink {
    mutating func appendUnwritten(_ count: Int) {
        assertionFailure("only a measuring sink takes bytes without their contents")
    }
}

/// Counts the bytes an encoding takes.
struct PackedCounter: PackedSink {
    static var measuresOnly: Bool { true }
    var count = 0
    @inline(__always) mutating func append(_ byte: UInt8) { count += 1 }
    @inline(__always) mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) { count += bytes.count }
    @inline(__always) mutating func appendUnwritten(_ count: Int) { self.count += count }
}

/// Writes into a buffer of a size measured beforehand, never past its end: a write that would go past
/// it (a disagreement between measuring and writing, a bug) is dropped and noted in ``overflowed``.
struct PackedBufferWriter: PackedSink {
    static var measuresOnly: Bool { false }
    let base: UnsafeMutableBufferPointer<UInt8>
    var count = 0
    var overflowed = false

    @inline(__always) mutating func append(_ byte: UInt8) {
        guard count < base.count else {
            overflowed = true
            return
        }
        base[count] = byte
        count += 1
    }

    @inline(__always) mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard bytes.count <= base.count - count else {
            overflowed = true
            return
        }
        guard let source = bytes.baseAddress, let target = base.baseAddress else { return }
        (target + count).update(from: source, count: bytes.count)
        count += bytes.count
    }

    /// Writes `value` in `width` bytes, little-endian, at `offset` (inside what was written).
    mutating func set(_ value: Int, width: Int, at offset: Int) {
        guard offset >= 0, width <= base.count - offset else {
            overflowed = true
            return
        }
        var rest = UInt64(truncatingIfNeeded: value)
        for k in 0..<width {
            base[offset + k] = UInt8(truncatingIfNeeded: rest)
            rest >>= 8
        }
    }
}

/// Appends to a growing array: the JSON reader's scratch space for a record's values.
struct PackedArraySink: PackedSink {
    static var measuresOnly: Bool { false }
    var bytes: [UInt8] = []
    var count: Int { bytes.count }
    @inline(__always) mutating func append(_ byte: UInt8) { bytes.append(byte) }
    @inline(__always) mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes.append(contentsOf: bytes) }
}

/// The encoding of ``PackedValues``.
enum PackedEncoding {
    static let null: UInt8 = 0x00
    static let falseTag: UInt8 = 0x01
    static let trueTag: UInt8 = 0x02
    static let int8: UInt8 = 0x03
    static let int16: UInt8 = 0x04
    static let int32: UInt8 = 0x05
    static let int64: UInt8 = 0x06
    static let double: UInt8 = 0x07
    /// A string whose bytes the canonical writer copies as they are: printable ASCII but `"` and `\`.
    static let plainString: UInt8 = 0x08
    /// Any other string.
    static let string: UInt8 = 0x09
    static let array: UInt8 = 0x0A
    static let object: UInt8 = 0x0B
    /// A string of a date's shape: the number of its fraction digits in a byte, then its digits as one
    /// decimal number in 8 bytes (see ``PackedTextShapes``).
    static let dateString: UInt8 = 0x0C
    /// A string of a UUID's shape: its 32 hexadecimal digits in 16 bytes, the first 16 first.
    static let uuidString: UInt8 = 0x0D

    @inline(__always)
    static func appendVarint<S: PackedSink>(_ value: Int, into sink: inout S) {
        var rest = UInt64(truncatingIfNeeded: value)
        while rest >= 0x80 {
            sink.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        sink.append(UInt8(truncatingIfNeeded: rest))
    }

    @inline(__always)
    static func appendFixed<S: PackedSink>(_ value: UInt64, width: Int, into sink: inout S) {
        var rest = value
        for _ in 0..<width {
            sink.append(UInt8(truncatingIfNeeded: rest))
            rest >>= 8
        }
    }

    static func appendInteger<S: PackedSink>(_ value: Int64, into sink: inout S) {
        let bits = UInt64(bitPattern: value)
        if let _ = Int8(exactly: value) {
            sink.append(int8)
            appendFixed(bits, width: 1, into: &sink)
        } else if let _ = Int16(exactly: value) {
            sink.append(int16)
            appendFixed(bits, width: 2, into: &sink)
        } else if let _ = Int32(exactly: value) {
            sink.append(int32)
            appendFixed(bits, width: 4, into: &sink)
        } else {
            sink.append(int64)
            appendFixed(bits, width: 8, into: &sink)
        }
    }

    static func appendDouble<S: PackedSink>(_ value: Double, into sink: inout S) {
        sink.append(double)
        appendFixed(value.bitPattern, width: 8, into: &sink)
    }

    /// Whether the canonical writer writes `utf8` between quotes as it is.
    static func isPlain(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
        var i = 0
        let count = utf8.count
        while i + 8 <= count {
            if CanonicalJSONWriter.attentionBytes(ByteWord.load(utf8, at: i)) != 0 { return false }
            i += 8
        }
        while i < count {
            let byte = utf8[i]
            if byte < 0x20 || byte >= 0x7F || byte == 0x22 || byte == 0x5C { return false }
            i += 1
        }
        return true
    }

    static func appendString<S: PackedSink>(_ string: String, into sink: inout S) {
        if S.measuresOnly, case let length = string.utf8.count, !PackedTextShapes.mayHaveAShape(length: length) {
            sink.append(plainString)
            appendVarint(length, into: &sink)
            sink.appendUnwritten(length)
            return
        }
        var string = string
        string.withUTF8 { utf8 in appendString(utf8: utf8, into: &sink) }
    }

    static func appendString<S: PackedSink>(utf8: UnsafeBufferPointer<UInt8>, into sink: inout S) {
        if PackedTextShapes.mayHaveAShape(length: utf8.count) {
            if let uuid = PackedTextShapes.uuidBytes(utf8) {
                sink.append(uuidString)
                appendFixed(uuid.high, width: 8, into: &sink)
                appendFixed(uuid.low, width: 8, into: &sink)
                return
            }
            if let date = PackedTextShapes.dateDigits(utf8) {
                sink.append(dateString)
                sink.append(UInt8(date.fractionDigits))
                appendFixed(date.digits, width: 8, into: &sink)
                return
            }
        }
        sink.append(isPlain(utf8) ? plainString : string)
        appendVarint(utf8.count, into: &sink)
        sink.append(utf8)
    }

    static func appendKey<S: PackedSink>(_ key: String, into sink: inout S) {
        var key = key
        key.withUTF8 { utf8 in
            appendVarint(utf8.count, into: &sink)
            sink.append(utf8)
        }
    }

    /// Appends the encoding of `value`.
    static func append<S: PackedSink>(_ value: JSONValue, into sink: inout S) {
        switch value {
        case .null: sink.append(null)
        case .bool(let bool): sink.append(bool ? trueTag : falseTag)
        case .int(let int): appendInteger(int, into: &sink)
        case .double(let double): appendDouble(double, into: &sink)
        case .string(let string): appendString(string, into: &sink)
        case .array(let elements):
            sink.append(array)
            appendVarint(elements.count, into: &sink)
            for element in elements { append(element, into: &sink) }
        case .object(let members):
            sink.append(object)
            appendVarint(members.count, into: &sink)
            if S.measuresOnly || members.count <= 1 {
                for (key, member) in members {
                    appendKey(key, into: &sink)
                    append(member, into: &sink)
                }
            } else {
                for (key, member) in members.sorted(by: { CanonicalJSONWriter.utf8Precedes($0.key, $1.key) }) {
                    appendKey(key, into: &sink)
                    append(member, into: &sink)
                }
            }
        }
    }

    /// The bytes `value` takes.
    static func size(of value: JSONValue) -> Int {
        var counter = PackedCounter()
        append(value, into: &counter)
        return counter.count
    }

    /// The width of the offsets of a buffer of `slotCount` values taking `dataSize` bytes.
    static func offsetWidth(slotCount: Int, dataSize: Int) -> Int {
        for width in [1, 2, 4] {
            let limit = (1 << (8 * width)) - 1
            let total = 1 + width * (slotCount + 1) + dataSize
            if total <= limit { return width }
        }
        return 8
    }

    /// Packs `slotCount` values: `sizeOfSlot(k)` is the number of bytes `writeSlot(k, &writer)` appends.
    ///
    /// One allocation, of exactly the buffer's size. A disagreement between the two (a bug here) stops
    /// the process rather than leave bytes uninitialized. No input reaches it: sizes are measured by the
    /// same `append` through a counting sink, and the JSON reader's slot ends are checked (increasing,
    /// ending at the data's size) by ``RecordValues/init(members:packedSlots:)`` before it packs them.
    @inline(__always)
    static func pack(
        slotCount: Int, sizeOfSlot: (Int) -> Int, writeSlot: (Int, inout PackedBufferWriter) -> Void
    ) -> PackedValues {
        guard slotCount > 0 else { return PackedValues() }
        var dataSize = 0
        for slot in 0..<slotCount { dataSize += sizeOfSlot(slot) }
        return pack(slotCount: slotCount, dataSize: dataSize, writeSlot: writeSlot)
    }

    /// Packs `slotCount` values taking `dataSize` bytes in all, written by `writeSlot` one after the other.
    @inline(__always)
    static func pack(slotCount: Int, dataSize: Int, writeSlot: (Int, inout PackedBufferWriter) -> Void) -> PackedValues {
        guard slotCount > 0 else { return PackedValues() }
        let width = offsetWidth(slotCount: slotCount, dataSize: dataSize)
        let total = 1 + width * (slotCount + 1) + dataSize
        let bytes = ContiguousArray<UInt8>(unsafeUninitializedCapacity: total) { buffer, initialized in
            var writer = PackedBufferWriter(base: buffer)
            writer.append(UInt8(width))
            appendFixed(UInt64(slotCount), width: width, into: &writer)
            // The table of ends is filled in as the values are written.
            let tableStart = writer.count
            let dataStart = tableStart + width * slotCount
            buffer.baseAddress.map { ($0 + tableStart).initialize(repeating: 0, count: width * slotCount) }
            writer.count = dataStart
            for slot in 0..<slotCount {
                writeSlot(slot, &writer)
                writer.set(writer.count, width: width, at: tableStart + width * slot)
            }
            precondition(!writer.overflowed && writer.count == total, "packed values measured and written differently")
            initialized = total
        }
        return PackedValues(unvalidatedBytes: bytes)
    }

    /// Packs `values`, in slot order.
    static func pack(_ values: some RandomAccessCollection<JSONValue>) -> PackedValues {
        let values = ContiguousArray(values)
        return pack(slotCount: values.count, sizeOfSlot: { size(of: values[$0]) }, writeSlot: { append(values[$0], into: &$1) })
    }
}

// MARK: - Decoding

/// Reads packed bytes, checking every read against the buffer's bounds.
struct PackedReader {
    let bytes: UnsafeBufferPointer<UInt8>
    var position: Int

    /// Nesting deeper than this reads as broken: no value the JSON reader accepts (512 by default) comes
    /// close, and a recursion this deep stays well inside a thread's stack.
    static let maximumDepth = 2048

    /// The width of the offsets and the number of values of a buffer; nil for an empty or broken one.
    @inline(__always)
    static func header(of bytes: UnsafeBufferPointer<UInt8>) -> (width: Int, count: Int)? {
        guard let first = bytes.first else { return nil }
        let width = Int(first)
        guard width == 1 || width == 2 || width == 4 || width == 8, let count = fixed(bytes, at: 1, width: width),
            count <= (bytes.count - 1 - width) / width
        else { return nil }
        return (width, count)
    }

    /// The `width`-byte little-endian number at `offset`; nil past the end or past `Int.max`.
    @inline(__always)
    static func fixed(_ bytes: UnsafeBufferPointer<UInt8>, at offset: Int, width: Int) -> Int? {
        guard offset >= 0, offset <= bytes.count - width, let value = load(bytes, at: offset, width: width) else { return nil }
        return value <= UInt64(Int.max) ? Int(value) : nil
    }

    /// The `width`-byte (1, 2, 4 or 8) little-endian number at `offset`, which the caller has checked is
    /// inside `bytes`; nil for another width.
    @inline(__always)
    static func load(_ bytes: UnsafeBufferPointer<UInt8>, at offset: Int, width: Int) -> UInt64? {
        guard let base = bytes.baseAddress else { return nil }
        let raw = UnsafeRawPointer(base + offset)
        switch width {
        case 1: return UInt64(raw.load(as: UInt8.self))
        case 2: return UInt64(UInt16(littleEndian: raw.loadUnaligned(as: UInt16.self)))
        case 4: return UInt64(UInt32(littleEndian: raw.loadUnaligned(as: UInt32.self)))
        case 8: return UInt64(littleEndian: raw.loadUnaligned(as: UInt64.self))
        default: return nil
        }
    }

    /// The bytes of value `slot`; nil if there is no such slot or the table is broken.
    @inline(__always)
    static func range(ofSlot slot: Int, in bytes: UnsafeBufferPointer<UInt8>) -> Range<Int>? {
        guard let (width, count) = header(of: bytes), slot >= 0, slot < count else { return nil }
        let tableStart = 1 + width
        let start = slot == 0 ? tableStart + width * count : fixed(bytes, at: tableStart + width * (slot - 1), width: width)
        guard let start, let end = fixed(bytes, at: tableStart + width * slot, width: width),
            start >= tableStart + width * count, start <= end, end <= bytes.count
        else { return nil }
        return start..<end
    }

    /// The bytes after ``position``.
    var remaining: Int { bytes.count - position }

    @inline(__always)
    mutating func readByte() -> UInt8? {
        guard position < bytes.count else { return nil }
        defer { position += 1 }
        return bytes[position]
    }

    @inline(__always)
    mutating func readFixed(width: Int) -> UInt64? {
        guard position <= bytes.count - width, let value = Self.load(bytes, at: position, width: width) else { return nil }
        position += width
        return value
    }

    /// A LEB128 number of at most 9 bytes (63 bits, so it is a non-negative `Int`).
    @inline(__always)
    mutating func readVarint() -> Int? {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while shift < 63 {
            guard let byte = readByte() else { return nil }
            value |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return Int(truncatingIfNeeded: value) }
            shift += 7
        }
        return nil
    }

    /// The next `count` bytes.
    @inline(__always)
    mutating func readBytes(_ count: Int) -> UnsafeBufferPointer<UInt8>? {
        guard count >= 0, count <= bytes.count - position else { return nil }
        defer { position += count }
        return UnsafeBufferPointer(rebasing: bytes[position..<(position + count)])
    }

    /// A length-prefixed run of UTF-8 bytes.
    @inline(__always)
    mutating func readUTF8() -> UnsafeBufferPointer<UInt8>? {
        guard let length = readVarint() else { return nil }
        return readBytes(length)
    }

    /// The text of a string packed by its shape, whose tag `tag` was just read, given to `body`; nil if
    /// the bytes are broken.
    mutating func readShapedText<R>(tag: UInt8, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R? {
        switch tag {
        case PackedEncoding.dateString:
            guard let fraction = readByte().map(Int.init), let digits = readFixed(width: 8),
                PackedTextShapes.isDate(digits: digits, fractionDigits: fraction)
            else { return nil }
            return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: PackedTextShapes.dateLength(fractionDigits: fraction)) { text in
                PackedTextShapes.writeDate(digits: digits, fractionDigits: fraction, into: text)
                return body(UnsafeBufferPointer(text))
            }
        case PackedEncoding.uuidString:
            guard let high = readFixed(width: 8), let low = readFixed(width: 8) else { return nil }
            return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: PackedTextShapes.uuidLength) { text in
                PackedTextShapes.writeUUID(high: high, low: low, into: text)
                return body(UnsafeBufferPointer(text))
            }
        default:
            return nil
        }
    }

    /// A signed integer of `width` bytes.
    @inline(__always)
    mutating func readInteger(width: Int) -> Int64? {
        guard let bits = readFixed(width: width) else { return nil }
        let unused = UInt64(64 - 8 * width)
        return Int64(bitPattern: bits << unused) >> Int64(unused)
    }

    /// The next value; nil if the bytes are broken.
    mutating func readValue(depth: Int) -> JSONValue? {
        guard let tag = readByte() else { return nil }
        switch tag {
        case PackedEncoding.null: return .null
        case PackedEncoding.falseTag: return .bool(false)
        case PackedEncoding.trueTag: return .bool(true)
        case PackedEncoding.int8: return readInteger(width: 1).map(JSONValue.int)
        case PackedEncoding.int16: return readInteger(width: 2).map(JSONValue.int)
        case PackedEncoding.int32: return readInteger(width: 4).map(JSONValue.int)
        case PackedEncoding.int64: return readInteger(width: 8).map(JSONValue.int)
        case PackedEncoding.double: return readFixed(width: 8).map { .double(Double(bitPattern: $0)) }
        case PackedEncoding.plainString, PackedEncoding.string:
            return readUTF8().map { .string(String(decoding: $0, as: UTF8.self)) }
        case PackedEncoding.dateString, PackedEncoding.uuidString:
            return readShapedText(tag: tag) { .string(String(decoding: $0, as: UTF8.self)) }
        case PackedEncoding.array:
            // Each element takes a byte at least: a count past the remaining bytes is broken.
            guard depth < Self.maximumDepth, let count = readVarint(), count <= bytes.count - position else { return nil }
            var elements: [JSONValue] = []
            elements.reserveCapacity(count)
            for _ in 0..<count {
                guard let element = readValue(depth: depth + 1) else { return nil }
                elements.append(element)
            }
            return .array(elements)
        case PackedEncoding.object:
            guard depth < Self.maximumDepth, let count = readVarint(), count <= (bytes.count - position) / 2 else { return nil }
            var members = [String: JSONValue](minimumCapacity: count)
            for _ in 0..<count {
                guard let key = readUTF8(), let member = readValue(depth: depth + 1),
                    members.updateValue(member, forKey: String(decoding: key, as: UTF8.self)) == nil
                else { return nil }
            }
            return .object(members)
        default:
            return nil
        }
    }
}
