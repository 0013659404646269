import Foundation
import FolioStorage

/// A stored value read once for sorting, so that a sort parses each date and encodes each array or
/// object once rather than at every comparison.
///
/// The order: null, then Booleans (false first), numbers, text, and other values by their JSON. In a
/// field of dates, every value that reads as a date (a stored date string, or a number of seconds)
/// takes the numbers' place, ordered by its date. Numbers order NaN last. The order is total, so a
/// sort's result does not depend on the algorithm, and the runs of equal values in an ascending order
/// are those of the descending one.
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

    /// The order of two values (see the type's description).
    static func compare(_ a: SortValue, _ b: SortValue) -> ComparisonResult {
        if a.rank != b.rank { return a.rank < b.rank ? .orderedAscending : .orderedDescending }
        switch a.rank {
        case 0: return .orderedSame
        case 1: return a.bool == b.bool ? .orderedSame : (!a.bool ? .orderedAscending : .orderedDescending)
        case 2: return order(a.number, b.number)
        default: return order(a.text, b.text)
        }
    }

    /// Numbers in order, NaN after every other number and the same as NaN: a total order, so that a
    /// sort's result does not depend on the algorithm.
    private static func order(_ x: Double, _ y: Double) -> ComparisonResult {
        if x.isNaN || y.isNaN { return x.isNaN == y.isNaN ? .orderedSame : (x.isNaN ? .orderedDescending : .orderedAscending) }
        return x < y ? .orderedAscending : (x > y ? .orderedDescending : .orderedSame)
    }

    private static func order(_ x: String, _ y: String) -> ComparisonResult {
        x < y ? .orderedAscending : (x > y ? .orderedDescending : .orderedSame)
    }
}
