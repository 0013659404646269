import Foundation
import FolioStorage

/// The order Folio sorts strings in, in every index, sort and section: by the Unicode scalars of their
/// canonical composition (NFC), compared one by one.
///
/// Swift's `String` `<` is this order whenever both strings are in NFC. On strings spelled with
/// decomposed characters it is not a strict weak order (`"café9"` and `"cafe\u{301}"` are neither less
/// than the other nor equal, and it is not transitive), so no sort or binary search can follow it. This
/// order is total and agrees with `==`: two strings are equal in it exactly when they are canonically
/// equivalent, which is when Swift's `==` holds.
enum StringOrder {
    /// Whether `a` comes before `b`.
    ///
    /// - Complexity: O(*n*) in the length of the common prefix when the strings are ASCII where they
    ///   first differ; otherwise O(*m*) in their lengths, which are normalized.
    @inline(__always)
    static func areInIncreasingOrder(_ a: String, _ b: String) -> Bool {
        compare(a, b) == .orderedAscending
    }

    /// How `a` compares with `b`.
    static func compare(_ a: String, _ b: String) -> ComparisonResult {
        if let decided = compareASCIIDifference(a, b) { return decided }
        return compareCanonical(a.canonicalComposition, b.canonicalComposition)
    }

    /// Whether `text` is its own canonical composition (NFC).
    ///
    /// - Complexity: O(*n*); only text that is not all ASCII is normalized.
    static func isCanonical(_ text: String) -> Bool {
        text.isASCII || text.canonicalComposition.utf8.elementsEqual(text.utf8)
    }

    /// Canonical strings compare by their scalars, which is the order of their UTF-8 bytes.
    private static func compareCanonical(_ a: String, _ b: String) -> ComparisonResult {
        if a.utf8.elementsEqual(b.utf8) { return .orderedSame }
        return a.utf8.lexicographicallyPrecedes(b.utf8) ? .orderedAscending : .orderedDescending
    }

    /// The order of `a` and `b` when it is decided by their bytes alone, or nil.
    ///
    /// Identical bytes are equal strings. Where the bytes first differ, two ASCII bytes each followed by
    /// ASCII (or the end) decide the order: an ASCII character never composes with the text before it
    /// or, followed by ASCII, with the text after it, so both canonical compositions are the common
    /// prefix's composition followed by those two characters. The same holds when one string ends
    /// where the other goes on with ASCII.
    private static func compareASCIIDifference(_ a: String, _ b: String) -> ComparisonResult? {
        let decided: ComparisonResult?? = a.utf8.withContiguousStorageIfAvailable { x in
            b.utf8.withContiguousStorageIfAvailable { y in compareBytes(x, y) } ?? nil
        }
        return decided ?? nil
    }

    private static func compareBytes(_ x: UnsafeBufferPointer<UInt8>, _ y: UnsafeBufferPointer<UInt8>) -> ComparisonResult? {
        let common = Swift.min(x.count, y.count)
        var position = 0
        while position < common, x[position] == y[position] { position += 1 }
        func endsASCII(_ bytes: UnsafeBufferPointer<UInt8>, after position: Int) -> Bool {
            position + 1 >= bytes.count || bytes[position + 1] < 0x80
        }
        if position == common {
            if x.count == y.count { return .orderedSame }
            let longer = x.count > y.count ? x : y
            guard longer[position] < 0x80 else { return nil }
            return x.count < y.count ? .orderedAscending : .orderedDescending
        }
        guard x[position] < 0x80, y[position] < 0x80, endsASCII(x, after: position), endsASCII(y, after: position) else {
            return nil
        }
        return x[position] < y[position] ? .orderedAscending : .orderedDescending
    }
}
