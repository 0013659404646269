import Foundation
import FolioStorage

/// A stored value read once for sorting, so that a sort parses each date and encodes each array or
/// object once rather than at every comparison.
///
/// The order: null, then Booleans (false first), numbers, text, and other values by their JSON. In a
/// field of dates, every value that reads as a date (a stored date string, or a number of seconds)
/// takes the numbers' place, ordered by its date. Numbers order NaN last. The order is total, so a
/// sort's result does not depend on the algorithm, and the runs of equal values in an ascending order
/// are those of the descending one. ``SortColumn`` compares them.
struct SortValue: Sendable {
    /// The order of kinds: null, Booleans, numbers (or dates), text, anything else.
    let rank: UInt8
    /// A Boolean's value.
    let bool: Bool
    /// A number's value, or a date's seconds since 2001.
    let number: Double
    /// Text, or an array's or object's JSON.
    let text: String

    init(_ value: JSONValue, date isDate: Bool) {
        var bool = false, number = 0.0, text = ""
        if isDate, let date = DateText.stored(value) {
            rank = 2
            number = date.timeIntervalSinceReferenceDate
        } else {
            switch value {
            case .null: rank = 0
            case .bool(let value): rank = 1; bool = value
            case .int(let value): rank = 2; number = Double(value)
            case .double(let value): rank = 2; number = value
            case .string(let value): rank = 3; text = value
            default: rank = 4; text = ValueFormatting.json(value)
            }
        }
        (self.bool, self.number, self.text) = (bool, number, text)
    }
}

/// One field's ``SortValue``s, kept as one array per part, so that a sort compares them in place
/// without copying the values it compares.
struct SortColumn: Sendable {
    private var ranks: [UInt8] = []
    private var bools: [Bool] = []
    private var numbers: [Double] = []
    private var texts: [String] = []
    /// Whether each text is ASCII: two ASCII texts are in `String`'s order when their bytes are.
    private var isASCII: [Bool] = []
    /// An ASCII text's first eight bytes, big-endian, zero-padded: when two differ, so do the texts,
    /// in the same order; comparing them first spares most comparisons a visit to the texts.
    private var prefixes: [UInt64] = []

    init(_ values: some Sequence<SortValue>) {
        let count = values.underestimatedCount
        ranks.reserveCapacity(count)
        bools.reserveCapacity(count)
        numbers.reserveCapacity(count)
        texts.reserveCapacity(count)
        isASCII.reserveCapacity(count)
        prefixes.reserveCapacity(count)
        for value in values {
            ranks.append(value.rank)
            bools.append(value.bool)
            numbers.append(value.number)
            texts.append(value.text)
            var text = value.text
            // One pass over the UTF-8 in place: a table of a million texts is read for every order.
            let (ascii, prefix) = text.withUTF8 { bytes -> (Bool, UInt64) in
                var prefix: UInt64 = 0
                for offset in 0..<Swift.min(8, bytes.count) { prefix |= UInt64(bytes[offset]) << (56 - 8 * UInt64(offset)) }
                return (bytes.allSatisfy { $0 < 0x80 }, prefix)
            }
            isASCII.append(ascii)
            prefixes.append(ascii ? prefix : 0)
        }
    }

    /// The order of the values at positions `a` and `b`, as ``SortValue`` describes it.
    func compare(_ a: Int, _ b: Int) -> ComparisonResult {
        let (x, y) = (ranks[a], ranks[b])
        if x != y { return x < y ? .orderedAscending : .orderedDescending }
        switch x {
        case 0: return .orderedSame
        case 1: return bools[a] == bools[b] ? .orderedSame : (!bools[a] ? .orderedAscending : .orderedDescending)
        case 2:
            let (p, q) = (numbers[a], numbers[b])
            if p.isNaN || q.isNaN { return p.isNaN == q.isNaN ? .orderedSame : (p.isNaN ? .orderedDescending : .orderedAscending) }
            return p < q ? .orderedAscending : (p > q ? .orderedDescending : .orderedSame)
        default:
            if isASCII[a], isASCII[b] {
                if prefixes[a] != prefixes[b] { return prefixes[a] < prefixes[b] ? .orderedAscending : .orderedDescending }
                if let order = Self.compareBytes(texts[a], texts[b]) { return order }
            }
            return texts[a] < texts[b] ? .orderedAscending : (texts[b] < texts[a] ? .orderedDescending : .orderedSame)
        }
    }

    /// The byte order of two texts, nil when either is not stored contiguously.
    private static func compareBytes(_ x: String, _ y: String) -> ComparisonResult? {
        x.utf8.withContiguousStorageIfAvailable { p in
            y.utf8.withContiguousStorageIfAvailable { q -> ComparisonResult in
                let common = min(p.count, q.count)
                if common > 0, let first = p.baseAddress, let second = q.baseAddress {
                    let difference = memcmp(first, second, common)
                    if difference != 0 { return difference < 0 ? .orderedAscending : .orderedDescending }
                }
                return p.count == q.count ? .orderedSame : (p.count < q.count ? .orderedAscending : .orderedDescending)
            }
        } ?? nil
    }
}
