/// Selection in an array of positions under a strict total order: what a full sort would put in a window
/// of positions, without sorting the rest (a quicksort that leaves the parts outside the window alone,
/// falling back to a sort where pivots keep failing, as introselect does).
enum OrderSelection {
    /// Rearranges `order` so that positions `window` hold, in order, what sorting all of `order` by
    /// `precedes` would put there: a quicksort that only goes on into the parts that overlap the window.
    ///
    /// - Precondition: `window` lies within `order`; `precedes` is a strict total order.
    /// - Complexity: O(*n* + *w* log *w*) comparisons on average for *n* elements and *w* positions in
    ///   the window; a part whose pivots keep failing is sorted whole, so at most O(*n* log *n*).
    static func sort(_ window: Range<Int>, in order: inout [Int], by precedes: (Int, Int) -> Bool) {
        guard !window.isEmpty else { return }
        // Parts still to partition, each overlapping the window, with the pivots each may still try.
        var parts = [(range: order.indices, budget: 2 * (Int.bitWidth - order.count.leadingZeroBitCount) + 4)]
        while var (range, budget) = parts.popLast() {
            while range.count > 16, budget > 0 {
                budget -= 1
                let pivot = partition(&order, range, by: precedes)
                let (left, right) = (range.lowerBound..<pivot, (pivot + 1)..<range.upperBound)
                let (needsLeft, needsRight) = (left.overlaps(window), right.overlaps(window))
                if needsLeft && needsRight { parts.append((right, budget)) }
                if needsLeft {
                    range = left
                } else if needsRight {
                    range = right
                } else {
                    range = pivot..<pivot
                }
            }
            order[range].sort(by: precedes)
        }
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
