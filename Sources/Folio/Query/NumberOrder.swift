/// Comparisons of stored numbers with Swift's meaning, and the order Folio sorts them in.
///
/// An integer and a double compare exactly, as numbers: converting the integer to `Double` would round
/// integers beyond 2^53 and make distinct values equal. Sorting places NaN after every other number
/// (before them in a descending sort), and `-0.0` with `0.0`, where Swift's `<` leaves NaN unordered.
package enum NumberOrder {
    /// How the integer `a` compares with `b`, exactly; nil when `b` is NaN.
    package static func compare(_ a: Int64, _ b: Double) -> ComparisonResult? {
        if b.isNaN { return nil }
        // 2^63 is the first double above every Int64; -2^63 is Int64.min itself.
        if b >= 9_223_372_036_854_775_808.0 { return .orderedAscending }
        if b < -9_223_372_036_854_775_808.0 { return .orderedDescending }
        let whole = b.rounded(.towardZero)
        // In range: the conversion is exact and cannot trap.
        let integer = Int64(whole)
        if a != integer { return a < integer ? .orderedAscending : .orderedDescending }
        if b == whole { return .orderedSame }
        return b > whole ? .orderedAscending : .orderedDescending
    }

    /// How `a` compares with the integer `b`, exactly; nil when `a` is NaN.
    package static func compare(_ a: Double, _ b: Int64) -> ComparisonResult? {
        compare(b, a).map { $0 == .orderedAscending ? .orderedDescending : $0 == .orderedDescending ? .orderedAscending : .orderedSame }
    }

    /// Whether `a` sorts before `b`: numerically, with NaN after every other number.
    @inline(__always)
    package static func sortsBefore(_ a: Double, _ b: Double) -> Bool {
        if a < b { return true }
        return b.isNaN && !a.isNaN
    }

    /// Whether `a` and `b` sort together: equal numbers (`-0.0` with `0.0`), or both NaN.
    @inline(__always)
    package static func sortTogether(_ a: Double, _ b: Double) -> Bool {
        a == b || (a.isNaN && b.isNaN)
    }
}
