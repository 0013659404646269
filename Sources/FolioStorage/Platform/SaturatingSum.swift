extension Sequence where Element == Int64 {
    /// The sum of the elements, held at `Int64.max` (or `Int64.min`) where the true sum lies past it.
    ///
    /// For sizes the file system reports: a sparse file may claim up to `Int64.max` bytes, so two of them
    /// (or one and any other file) would overflow a plain sum.
    package func saturatingSum() -> Int64 {
        var total: Int64 = 0
        for element in self {
            let (sum, overflow) = total.addingReportingOverflow(element)
            total = overflow ? (element > 0 ? .max : .min) : sum
        }
        return total
    }
}
