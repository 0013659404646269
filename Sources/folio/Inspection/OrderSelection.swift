/// Selection in an array of positions under a strict total order (introselect): what a full sort would
/// put at one position, without sorting the rest.
enum OrderSelection {
    /// Rearranges `order[range]` so that position `k` holds what sorting `range` by `precedes` would put
    /// there, every element before it preceding it and every element after it following it.
    ///
    /// - Precondition: `range` lies within `order` and holds `k`; `precedes` is a strict total order.
    /// - Complexity: O(*n*) comparisons on average for *n* elements in `range`; a range whose pivots keep
    ///   failing is sorted instead, so at most O(*n* log *n*).
    static func select(_ k: Int, in order: inout [Int], within range: Range<Int>, by precedes: (Int, Int) -> Bool) {
        guard range.contains(k) else { return }
        var (low, high) = (range.lowerBound, range.upperBound)
        // Each partition should halve the range on average; twice the halvings a balanced one needs
        // before giving up on pivots is the introselect bound.
        var budget = 2 * (Int.bitWidth - range.count.leadingZeroBitCount) + 4
        while high - low > 16 {
            guard budget > 0 else { break }
            budget -= 1
            let pivot = partition(&order, low..<high, by: precedes)
            if k == pivot { return }
            if k < pivot { high = pivot } else { low = pivot + 1 }
        }
        order[low..<high].sort(by: precedes)
    }

    /// Partitions `order[range]` around the median of its first, middle and last elements; the pivot's
    /// final position.
    private static func partition(_ order: inout [Int], _ range: Range<Int>, by precedes: (Int, Int) -> Bool) -> Int {
        let (first, middle, last) = (range.lowerBound, range.lowerBound + range.count / 2, range.upperBound - 1)
        // Sort the three samples in place, then park the median at the end as the pivot.
        if precedes(order[middle], order[first]) { order.swapAt(middle, first) }
        if precedes(order[last], order[middle]) { order.swapAt(last, middle) }
        if precedes(order[middle], order[first]) { order.swapAt(middle, first) }
        order.swapAt(middle, last)
        let pivot = order[last]
        var boundary = first
        for index in first..<last where precedes(order[index], pivot) {
            order.swapAt(index, boundary)
            boundary += 1
        }
        order.swapAt(boundary, last)
        return boundary
    }
}
