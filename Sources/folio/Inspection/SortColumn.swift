import Folio
import Foundation
import FolioStorage

/// One field's values of many records, read once for sorting, each kept in a few fixed-size words so
/// that a sort compares them without a `String`.
///
/// A value is read from the record's packed bytes in place
/// (``RecordValues/withScalar(named:slotCache:_:)``): integers stay `Int64`, other numbers and dates
/// become a `Double`; a text keeps the first 16 bytes of its canonical composition as two big-endian
/// words, and its length, which decide almost every comparison. Two ASCII texts those leave tied are
/// read again from their records: ASCII text is its own composition. Only the compositions of texts
/// beyond ASCII and the JSON of arrays and objects are kept as strings.
///
/// The order: null, then Booleans (false first), numbers, text, and other values by their JSON. In a
/// field of dates, every value that reads as a date (a stored date string, or a number of seconds)
/// takes the numbers' place, ordered by its date. Numbers compare exactly, integers with doubles too
/// (as Folio's queries compare them: an integer beyond 2^53 is not rounded), and order NaN last. Texts
/// (and the JSON of other values) are in the order of the scalars of their canonical composition
/// (NFC), the order Folio's queries sort strings in: Swift's `<` wherever that is a strict weak order,
/// and equal exactly when `==` holds. (On decomposed spellings `<` is not one: `"cafe\u{301}"` and
/// `"café9"` are neither less than the other nor equal.) The order is total, so a sort's result does
/// not depend on the algorithm, and the runs of equal values in an ascending order are those of the
/// descending one.
struct SortColumn: Sendable {
    /// The records the values are of, to read a text again when its first 16 bytes tie.
    private let records: [StoredRecord]
    private let field: String
    private var kinds: [Kind] = []
    /// A Boolean as 0 or 1, an integer's or a double's bits, or a text's bytes 0..<8, big-endian,
    /// zero-padded.
    private var firstWords: [UInt64] = []
    /// A text's bytes 8..<16, big-endian, zero-padded.
    private var secondWords: [UInt64] = []
    /// A text's length in bytes.
    private var lengths: [Int] = []
    /// The UTF-8 of the canonical compositions of texts beyond ASCII and of the JSON of arrays and
    /// objects, one after the other: one buffer, so that comparing two does not retain two strings.
    private var composedBytes: [UInt8] = []
    /// Where each value's composition starts in ``composedBytes`` (its length is in ``lengths``), or
    /// -1; empty while ``composedBytes`` is.
    private var composedStarts: [Int] = []

    /// The kinds of value, in their order; integers and doubles are both numbers.
    private enum Kind: UInt8 {
        case null, bool, integer, double, text, other

        /// The kinds' order, with numbers as one.
        var rank: UInt8 { self == .double ? Kind.integer.rawValue : rawValue }
    }

    /// The value of `field` in each of `records`, as `Filter.value(at:in:)` reads it (an `id` or
    /// `entity` the record does not hold is its identifier or entity); a field of dates (`isDate`)
    /// orders what reads as a date by its date.
    ///
    /// - Complexity: O(*n*), allocating nothing per record but for texts beyond ASCII, arrays and objects.
    init(of records: [StoredRecord], field: String, isDate: Bool) {
        self.records = records
        self.field = field
        kinds.reserveCapacity(records.count)
        firstWords.reserveCapacity(records.count)
        secondWords.reserveCapacity(records.count)
        lengths.reserveCapacity(records.count)
        var slotCache: (layout: RecordLayout, slot: Int?)?
        for (position, record) in records.enumerated() {
            let held = record.values.withScalar(named: field, slotCache: &slotCache) { scalar in
                append(scalar, at: position, isDate: isDate)
            }
            if !held { appendMissing(of: record, at: position, isDate: isDate) }
        }
    }

    private mutating func append(_ scalar: PackedScalar, at position: Int, isDate: Bool) {
        switch scalar {
        case .null: append(.null)
        case .bool(let value): append(.bool, first: value ? 1 : 0)
        // A date field's number is its seconds, read as a `Double`, like its dates' seconds.
        case .int(let value) where isDate: append(.double, first: Double(value).bitPattern)
        case .int(let value): append(.integer, first: UInt64(bitPattern: value))
        case .double(let value): append(.double, first: value.bitPattern)
        case .text(let utf8, let isASCII):
            if isDate, let date = DateText.parse(bytes: utf8) {
                append(.double, first: date.timeIntervalSinceReferenceDate.bitPattern)
            } else if isASCII {
                append(.text, first: Self.word(utf8, from: 0), second: Self.word(utf8, from: 8), length: utf8.count)
            } else {
                append(.text, string: String(decoding: utf8, as: UTF8.self), at: position)
            }
        case .container:
            append(.other, string: ValueFormatting.json(records[position].values[field] ?? .null), at: position)
        }
    }

    /// A value the record does not hold: null, or the identifier or entity the field names.
    private mutating func appendMissing(of record: StoredRecord, at position: Int, isDate: Bool) {
        switch field {
        case "id": append(.int(record.id), at: position, isDate: isDate)
        case "entity":
            var entity = record.entity
            entity.withUTF8 { append(.text($0, isASCII: $0.allSatisfy { $0 < 0x80 }), at: position, isDate: isDate) }
        default: append(.null)
        }
    }

    private mutating func append(_ kind: Kind, first: UInt64 = 0, second: UInt64 = 0, length: Int = 0) {
        kinds.append(kind)
        firstWords.append(first)
        secondWords.append(second)
        lengths.append(length)
        if !composedStarts.isEmpty { composedStarts.append(-1) }
    }

    /// Keeps the canonical composition of `string`, with its words and length.
    private mutating func append(_ kind: Kind, string: String, at position: Int) {
        var composed = string.canonicalComposition
        composed.withUTF8 { append(kind, first: Self.word($0, from: 0), second: Self.word($0, from: 8), length: $0.count) }
        if composedStarts.isEmpty { composedStarts = Array(repeating: -1, count: position + 1) }
        composedStarts[position] = composedBytes.count
        composedBytes.append(contentsOf: composed.utf8)
    }

    /// Eight bytes of `utf8` from `start`, big-endian, zero-padded: two texts whose words differ are in
    /// the words' order.
    private static func word(_ utf8: UnsafeBufferPointer<UInt8>, from start: Int) -> UInt64 {
        var word: UInt64 = 0
        for offset in 0..<8 {
            let byte = start + offset < utf8.count ? utf8[start + offset] : 0
            word = word << 8 | UInt64(byte)
        }
        return word
    }

    /// The order of the values at positions `a` and `b`, as the type's summary describes it.
    func compare(_ a: Int, _ b: Int) -> ComparisonResult {
        let (x, y) = (kinds[a], kinds[b])
        if x.rank != y.rank { return x.rank < y.rank ? .orderedAscending : .orderedDescending }
        switch x {
        case .null: return .orderedSame
        case .bool: return Self.order(firstWords[a], firstWords[b])
        case .integer, .double: return numberOrder(x, firstWords[a], y, firstWords[b])
        case .text, .other:
            // Composed texts are in the order of their bytes, which the words and lengths hold up to 16.
            if firstWords[a] != firstWords[b] { return Self.order(firstWords[a], firstWords[b]) }
            if secondWords[a] != secondWords[b] { return Self.order(secondWords[a], secondWords[b]) }
            if lengths[a] <= 16, lengths[b] <= 16 { return Self.order(lengths[a], lengths[b]) }
            return withComposedText(at: a) { first in withComposedText(at: b) { second in Self.byteOrder(first, second) } }
        }
    }

    /// Two numbers' order, from their kinds and bits: exact, NaN last.
    private func numberOrder(_ x: Kind, _ p: UInt64, _ y: Kind, _ q: UInt64) -> ComparisonResult {
        switch (x, y) {
        case (.integer, .integer): return Self.order(Int64(bitPattern: p), Int64(bitPattern: q))
        case (.integer, _): return NumberOrder.compare(Int64(bitPattern: p), Double(bitPattern: q)) ?? .orderedAscending
        case (_, .integer): return NumberOrder.compare(Double(bitPattern: p), Int64(bitPattern: q)) ?? .orderedDescending
        default:
            let (p, q) = (Double(bitPattern: p), Double(bitPattern: q))
            if NumberOrder.sortTogether(p, q) { return .orderedSame }
            return NumberOrder.sortsBefore(p, q) ? .orderedAscending : .orderedDescending
        }
    }

    private static func order<T: Comparable>(_ p: T, _ q: T) -> ComparisonResult {
        p < q ? .orderedAscending : (q < p ? .orderedDescending : .orderedSame)
    }

    private static func byteOrder(_ p: UnsafeBufferPointer<UInt8>, _ q: UnsafeBufferPointer<UInt8>) -> ComparisonResult {
        let common = min(p.count, q.count)
        if common > 0, let first = p.baseAddress, let second = q.baseAddress {
            let difference = memcmp(first, second, common)
            if difference != 0 { return difference < 0 ? .orderedAscending : .orderedDescending }
        }
        return order(p.count, q.count)
    }

    /// Calls `body` with the canonical composition of the text (or JSON) at position `p`: the one kept,
    /// or the ASCII text read again from its record as ``init(of:field:isDate:)`` read it.
    private func withComposedText<R>(at p: Int, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        if !composedStarts.isEmpty, case let start = composedStarts[p], start >= 0 {
            return composedBytes.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[start..<(start + lengths[p])])) }
        }
        let record = records[p]
        var slotCache: (layout: RecordLayout, slot: Int?)?
        var result: R?
        let held = record.values.withScalar(named: field, slotCache: &slotCache) { scalar in
            guard case .text(let utf8, _) = scalar else { return }
            result = body(utf8)
        }
        if let result { return result }
        var text = held ? "" : (field == "entity" ? record.entity : "")
        return text.withUTF8(body)
    }
}
