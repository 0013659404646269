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

    /// Narrows elements, given by their keys, to those that sorting all of them could put in `window`:
    /// a radix selection, sixteen bits of the key at a time, that stops once the window's first and
    /// last element part on a digit, the keys run out, or at most `limit` elements are left.
    ///
    /// - Parameters:
    ///   - keys: each element's key, in the order ties are broken in. An element sorts before another
    ///     with a greater key, and elements that sort together have equal keys.
    ///   - window: positions in the elements' sorted order; not empty, within `keys`.
    /// - Returns: How many elements sort before all of those left, and the indices in `keys` of those
    ///   left, ascending: what a sort puts in `window` is what it puts at `window` shifted back by
    ///   `before` among the elements left.
    /// - Complexity: O(*n*) in each of at most four passes, each on the elements the last left.
    static func narrow(_ keys: [UInt64], to window: Range<Int>, limit: Int) -> (before: Int, elements: [Int]) {
        var (before, left, parted) = narrowOnce(keys.indices, of: keys, to: window, shift: 48)
        var shift: UInt64 = 48
        while !parted, left.count > limit, shift > 0 {
            shift -= 16
            let next = narrowOnce(left, of: keys, to: (window.lowerBound - before)..<(window.upperBound - before), shift: shift)
            (before, left, parted) = (before + next.before, next.elements, next.parted)
        }
        return (before, left)
    }

    /// One pass of ``narrow(_:to:limit:)`` on the keys' sixteen bits from `shift`, among elements
    /// whose keys agree above them; whether the window's first and last elements differ on those bits.
    private static func narrowOnce<Elements: Collection<Int>>(
        _ elements: Elements, of keys: [UInt64], to window: Range<Int>, shift: UInt64
    ) -> (before: Int, elements: [Int], parted: Bool) {
        func digit(_ element: Int) -> Int { Int(truncatingIfNeeded: keys[element] >> shift) & 0xFFFF }
        var counts = [Int](repeating: 0, count: 1 << 16)
        for element in elements { counts[digit(element)] += 1 }
        var (seen, before, first, last) = (0, 0, 0, 0xFFFF)
        for (value, count) in counts.enumerated() where count > 0 {
            if seen <= window.lowerBound, window.lowerBound < seen + count { (first, before) = (value, seen) }
            seen += count
            if window.upperBound <= seen {
                last = value
                break
            }
        }
        return (before, elements.filter { (first...last).contains(digit($0)) }, first != last)
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
