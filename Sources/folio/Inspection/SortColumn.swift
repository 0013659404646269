import Folio
import Foundation
import FolioStorage

/// One field's values of many records, read once for sorting, each kept in a few fixed-size words so
/// that a sort compares them without a `String`.
///
/// A value is read from the record's packed bytes in place
/// (``StoredRecord/forEachScalar(named:in:at:_:)``): integers stay `Int64`, other numbers and dates
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
        StoredRecord.forEachScalar(named: field, in: records, at: nil) { position, scalar in
            append(Self.entry(scalar, of: records, at: position, field: field, isDate: isDate), at: position)
        }
    }

    /// The ``orderKey(of:)`` of the value of `field` in each of `records` (or in those at `positions`),
    /// without keeping the values: what narrows a selection before a column of the records left is read.
    ///
    /// - Complexity: O(*n*), allocating nothing per record but for texts beyond ASCII, arrays and objects.
    static func orderKeys(of records: [StoredRecord], at positions: [Int]?, field: String, isDate: Bool) -> [UInt64] {
        var keys = [UInt64](repeating: 0, count: positions?.count ?? records.count)
        StoredRecord.forEachScalar(named: field, in: records, at: positions) { index, scalar in
            keys[index] = orderKey(of: entry(scalar, of: records, at: positions?[index] ?? index, field: field, isDate: isDate))
        }
        return keys
    }

    /// One value as a column keeps it: its kind, words and length, and the canonical composition of a
    /// text beyond ASCII or of another value's JSON.
    private struct Entry {
        var kind: Kind
        var first: UInt64 = 0
        var second: UInt64 = 0
        var length = 0
        var composed: String?
    }

    /// The entry of a value of the record at `position` read in place (see ``PackedScalar``), or, when
    /// the record has none (nil), of what `Filter.value(at:in:)` reads: the identifier or entity the
    /// field names, or null. The record is looked up only then, or for an array's or object's JSON.
    private static func entry(_ scalar: PackedScalar?, of records: [StoredRecord], at position: Int, field: String, isDate: Bool) -> Entry {
        let record = { records[position] }
        if let scalar { return entry(scalar, isDate: isDate) ?? composedEntry(.other, ValueFormatting.json(record().values[field] ?? .null)) }
        switch field {
        case "id": return entry(.int(record().id), isDate: isDate) ?? Entry(kind: .null)
        case "entity":
            var entity = record().entity
            return entity.withUTF8 { entry(.text($0, isASCII: $0.allSatisfy { $0 < 0x80 }), isDate: isDate) } ?? Entry(kind: .null)
        default: return Entry(kind: .null)
        }
    }

    /// How a column keeps `scalar`; nil for an array or an object, kept by its JSON.
    private static func entry(_ scalar: PackedScalar, isDate: Bool) -> Entry? {
        switch scalar {
        case .null: return Entry(kind: .null)
        case .bool(let value): return Entry(kind: .bool, first: value ? 1 : 0)
        // A date field's number is its seconds, read as a `Double`, like its dates' seconds.
        case .int(let value) where isDate: return Entry(kind: .double, first: Double(value).bitPattern)
        case .int(let value): return Entry(kind: .integer, first: UInt64(bitPattern: value))
        case .double(let value): return Entry(kind: .double, first: value.bitPattern)
        case .text(let utf8, let isASCII):
            if isDate, let date = DateText.parse(bytes: utf8) { return Entry(kind: .double, first: date.timeIntervalSinceReferenceDate.bitPattern) }
            if isASCII { return Entry(kind: .text, first: word(utf8, from: 0), second: word(utf8, from: 8), length: utf8.count) }
            return composedEntry(.text, String(decoding: utf8, as: UTF8.self))
        case .container: return nil
        }
    }

    /// The entry of `string`'s canonical composition.
    private static func composedEntry(_ kind: Kind, _ string: String) -> Entry {
        var composed = string.canonicalComposition
        let (first, second, length) = composed.withUTF8 { (word($0, from: 0), word($0, from: 8), $0.count) }
        return Entry(kind: kind, first: first, second: second, length: length, composed: composed)
    }

    private mutating func append(_ entry: Entry, at position: Int) {
        kinds.append(entry.kind)
        firstWords.append(entry.first)
        secondWords.append(entry.second)
        lengths.append(entry.length)
        if let composed = entry.composed {
            if composedStarts.isEmpty { composedStarts = Array(repeating: -1, count: position) }
            composedStarts.append(composedBytes.count)
            composedBytes.append(contentsOf: composed.utf8)
        } else if !composedStarts.isEmpty {
            composedStarts.append(-1)
        }
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

    /// A key of a value that orders values wherever keys differ: a value before another never has a
    /// greater key, and equal values have equal keys. The top three bits hold the kind's rank; below
    /// them a number's place among doubles (an integer's nearest double) or a text's first bytes.
    private static func orderKey(of entry: Entry) -> UInt64 {
        let bits: UInt64
        switch entry.kind {
        case .null: bits = 0
        case .bool: bits = entry.first << 60
        case .integer: bits = numberKey(Double(Int64(bitPattern: entry.first)))
        case .double: bits = numberKey(Double(bitPattern: entry.first))
        case .text, .other: bits = entry.first
        }
        return UInt64(entry.kind.rank) << 61 | bits >> 3
    }

    /// A double's place among doubles as an unsigned integer: `-0.0` with `0.0`, NaN last.
    private static func numberKey(_ value: Double) -> UInt64 {
        if value.isNaN { return .max }
        let bits = (value == 0 ? 0.0 : value).bitPattern
        return bits >> 63 == 1 ? ~bits : bits | 1 << 63
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
        var slotCache = SlotCache()
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
