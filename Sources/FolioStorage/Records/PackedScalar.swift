/// A value read in place from a record's packed bytes, for callers that look at one value of many
/// records and keep none of them as a ``JSONValue``: a table sorted by a column reads a million.
///
/// A string is given as its UTF-8 bytes, valid only while the closure that receives it runs. A string
/// packed by its shape (a date, a UUID, see ``PackedTextShapes``) is written out on the stack, so no
/// value read this way allocates.
package enum PackedScalar {
    /// `null`, a value that is not there, or bytes that do not decode.
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    /// A string's UTF-8 bytes; `isASCII` when every byte is below 0x80, so that the bytes' order is
    /// `String`'s order.
    case text(UnsafeBufferPointer<UInt8>, isASCII: Bool)
    /// An array or an object, which this does not decode.
    case container
}

extension PackedValues {
    /// Calls `body` with the value of slot `slot` read in place; ``PackedScalar/null`` if there is no
    /// such slot or its bytes are broken.
    ///
    /// Not generic, so that a caller in another module runs it specialized: this is read once per
    /// record of a column.
    ///
    /// - Complexity: O(1), or O(*m*) for a string of *m* bytes.
    package func withScalar(atSlot slot: Int, _ body: (PackedScalar) -> Void) {
        bytes.withUnsafeBufferPointer { buffer in
            guard let range = PackedReader.range(ofSlot: slot, in: buffer) else { return body(.null) }
            var reader = PackedReader(bytes: UnsafeBufferPointer(rebasing: buffer[..<range.upperBound]), position: range.lowerBound)
            if !reader.readScalar(body) { body(.null) }
        }
    }
}

extension RecordValues {
    /// Calls `body` with the value named `name` read in place (see ``PackedScalar``); false, without
    /// calling it, when the record has no such value.
    ///
    /// - Parameter slotCache: the slot last looked up, kept by a caller reading many records.
    package func withScalar(
        named name: String, slotCache: inout SlotCache, _ body: (PackedScalar) -> Void
    ) -> Bool {
        guard let slot = slotCache.slot(of: name, in: layout) else { return false }
        values.withScalar(atSlot: slot, body)
        return true
    }
}

/// The slot of one name in the layout a reader of many records saw last: records of one entity share a
/// few layouts, so most reads skip the search for the name.
///
/// Layouts are told apart by identity, and the layout of the record read is not retained: a reference
/// count that every thread reading a column changes at every record would make the cores wait on one
/// another.
package struct SlotCache {
    /// The layout last seen, kept alive so that its identifier names no other layout.
    private var layout: RecordLayout?
    private var identifier: ObjectIdentifier?
    private var slot: Int?

    /// A cache that has seen no layout.
    package init() {}

    /// The slot of `name` in `layout`, or nil if it has none.
    package mutating func slot(of name: String, in layout: RecordLayout) -> Int? {
        if identifier == ObjectIdentifier(layout) { return slot }
        (self.layout, identifier, slot) = (layout, ObjectIdentifier(layout), layout.slot(of: name))
        return slot
    }
}

extension StoredRecord {
    /// Calls `body` with the index of each of `records` (or of those at `positions`) and its value named
    /// `name` read in place (see ``PackedScalar``), or nil when the record has no such value.
    ///
    /// One call for a column of many records: read here, beside the buffers, no record is copied.
    ///
    /// - Complexity: O(*n*) for *n* records, and O(*m*) for each string of *m* bytes.
    package static func forEachScalar(
        named name: String, in records: [StoredRecord], at positions: [Int]?, _ body: (Int, PackedScalar?) -> Void
    ) {
        var slotCache = SlotCache()
        for index in 0..<(positions?.count ?? records.count) {
            // Each record is reached through the array, never bound to a name, and its slot looked up
            // here rather than through `withScalar(named:slotCache:_:)`: either way would copy it,
            // retaining its buffers (measured: the first filtered page of S1 took 20–30% longer).
            let position = positions?[index] ?? index
            guard let slot = slotCache.slot(of: name, in: records[position].values.layout) else {
                body(index, nil)
                continue
            }
            records[position].values.values.withScalar(atSlot: slot) { body(index, $0) }
        }
    }
}

extension PackedReader {
    /// Gives the next value to `body` as a ``PackedScalar``; false, without calling it, if the bytes
    /// are broken or the value does not end where the reader's bytes do.
    fileprivate mutating func readScalar(_ body: (PackedScalar) -> Void) -> Bool {
        guard let tag = readByte() else { return false }
        let end = bytes.count
        let scalar: PackedScalar?
        switch tag {
        case PackedEncoding.null: scalar = .null
        case PackedEncoding.falseTag: scalar = .bool(false)
        case PackedEncoding.trueTag: scalar = .bool(true)
        case PackedEncoding.int8: scalar = readInteger(width: 1).map(PackedScalar.int)
        case PackedEncoding.int16: scalar = readInteger(width: 2).map(PackedScalar.int)
        case PackedEncoding.int32: scalar = readInteger(width: 4).map(PackedScalar.int)
        case PackedEncoding.int64: scalar = readInteger(width: 8).map(PackedScalar.int)
        case PackedEncoding.double: scalar = readFixed(width: 8).map { .double(Double(bitPattern: $0)) }
        case PackedEncoding.plainString, PackedEncoding.string:
            guard let utf8 = readUTF8(), position == end else { return false }
            // Checked even under the plain tag: the claim holds for any bytes, not only the encoder's.
            body(.text(utf8, isASCII: utf8.allSatisfy { $0 < 0x80 }))
            return true
        case PackedEncoding.dateString, PackedEncoding.uuidString:
            // A date's fraction count and digits take 9 bytes, a UUID's digits 16. Shaped texts are
            // digits, letters and punctuation: ASCII.
            guard end - position == (tag == PackedEncoding.dateString ? 9 : 16) else { return false }
            return readShapedText(tag: tag) { body(.text($0, isASCII: true)) } != nil
        case PackedEncoding.array, PackedEncoding.object:
            body(.container)
            return true
        default: return false
        }
        guard let scalar, position == end else { return false }
        body(scalar)
        return true
    }
}
