import Foundation
@testable import Folio

/// The order Folio documents for sorting (docs/queries.md, "Ordering"), written independently of
/// Folio's code: strings by their canonical (NFC) Unicode scalars, which is Swift's `<` wherever that
/// is a strict weak order; `nil` first; NaN after every other number; `-0.0` equal to `0.0`.
enum ReferenceOrder {
    static func compare(_ a: String, _ b: String) -> ComparisonResult {
        if a == b { return .orderedSame }
        // Composed from the full decomposition: Foundation's composition alone leaves a Hangul syllable
        // followed by a trailing jamo apart.
        let x = a.decomposedStringWithCanonicalMapping.precomposedStringWithCanonicalMapping.unicodeScalars.map(\.value)
        let y = b.decomposedStringWithCanonicalMapping.precomposedStringWithCanonicalMapping.unicodeScalars.map(\.value)
        return x.lexicographicallyPrecedes(y) ? .orderedAscending : .orderedDescending
    }

    static func compare(_ a: Double, _ b: Double) -> ComparisonResult {
        if a.isNaN || b.isNaN {
            if a.isNaN && b.isNaN { return .orderedSame }
            return a.isNaN ? .orderedDescending : .orderedAscending
        }
        return compare(comparable: a, b)
    }

    static func compare<T: Comparable>(comparable a: T, _ b: T) -> ComparisonResult {
        a < b ? .orderedAscending : (b < a ? .orderedDescending : .orderedSame)
    }

    static func compare<T>(_ a: T?, _ b: T?, _ wrapped: (T, T) -> ComparisonResult) -> ComparisonResult {
        switch (a, b) {
        case (nil, nil): return .orderedSame
        case (nil, _): return .orderedAscending
        case (_, nil): return .orderedDescending
        case let (x?, y?): return wrapped(x, y)
        }
    }
}

/// A property a random sort descriptor sorts by, with its reference comparison.
enum SortField: CaseIterable {
    case text, textCopy, number, numberCopy, integer, integerCopy, date, dateCopy, maybeText, maybeNumber, tag, serial

    func descriptor(_ order: SortOrder) -> SortDescriptor<Exhibit> {
        switch self {
        case .text: return SortDescriptor(\.text, order: order)
        case .textCopy: return SortDescriptor(\.textCopy, order: order)
        case .number: return SortDescriptor(\.number, order: order)
        case .numberCopy: return SortDescriptor(\.numberCopy, order: order)
        case .integer: return SortDescriptor(\.integer, order: order)
        case .integerCopy: return SortDescriptor(\.integerCopy, order: order)
        case .date: return SortDescriptor(\.date, order: order)
        case .dateCopy: return SortDescriptor(\.dateCopy, order: order)
        case .maybeText: return SortDescriptor(\.maybeText, order: order)
        case .maybeNumber: return SortDescriptor(\.maybeNumber, order: order)
        case .tag: return SortDescriptor(\.tag, order: order)
        case .serial: return SortDescriptor(\.serial, order: order)
        }
    }

    func compare(_ a: ExhibitValues, _ b: ExhibitValues) -> ComparisonResult {
        switch self {
        case .text, .textCopy: return ReferenceOrder.compare(a.text, b.text)
        case .number, .numberCopy: return ReferenceOrder.compare(a.number, b.number)
        case .integer, .integerCopy: return ReferenceOrder.compare(comparable: a.integer, b.integer)
        case .date, .dateCopy: return ReferenceOrder.compare(comparable: a.date, b.date)
        case .maybeText: return ReferenceOrder.compare(a.maybeText, b.maybeText, ReferenceOrder.compare)
        case .maybeNumber: return ReferenceOrder.compare(a.maybeNumber, b.maybeNumber, ReferenceOrder.compare)
        case .tag: return ReferenceOrder.compare(a.tag, b.tag)
        case .serial: return ReferenceOrder.compare(comparable: a.serial, b.serial)
        }
    }
}

/// A sort of random fields and directions.
struct ReferenceSort: CustomStringConvertible {
    var keys: [(field: SortField, order: SortOrder)]

    static func random(_ rng: inout SplitMix64) -> ReferenceSort {
        ReferenceSort(
            keys: (0..<Int.random(in: 0...3, using: &rng)).map { _ in
                (SortField.allCases.randomElement(using: &rng) ?? .text, Bool.random(using: &rng) ? .forward : .reverse)
            })
    }

    var descriptors: [SortDescriptor<Exhibit>] { keys.map { $0.field.descriptor($0.order) } }

    /// `values` sorted by the keys, ties in their given order (Swift's sort is stable).
    func sorted(_ values: [ExhibitValues]) -> [ExhibitValues] {
        guard !keys.isEmpty else { return values }
        return values.sorted { a, b in
            for key in keys {
                let order = key.field.compare(a, b)
                if order == .orderedSame { continue }
                return (order == .orderedAscending) == (key.order == .forward)
            }
            return false
        }
    }

    var description: String {
        keys.map { "\($0.field)\($0.order == .forward ? "" : " desc")" }.joined(separator: ", ")
    }
}
