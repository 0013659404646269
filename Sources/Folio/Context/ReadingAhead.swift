import Synchronization

/// Where the sums of read-ahead loads go, so that the compiler cannot drop the loads as unused: a
/// relaxed atomic store, which is never removed and costs a plain store.
enum ReadAhead {
    private static let sink = Atomic<UInt>(0)

    /// Keeps `sum`, a value computed from loads made to bring memory into the cache.
    static func keep(_ sum: UInt) {
        sink.store(sum, ordering: .relaxed)
    }
}

/// Calls `body` with each of `numbers` in order, a batch at a time, after `readAhead` has read the
/// batch's memory with plain loads (see ``DenseTable/touch(_:referenceAt:)``): the processor then
/// fetches those cache lines together, and what `body` retains or checks finds them there instead of
/// waiting for each in turn. Returns the sum of what `readAhead` returned, which the caller hands to
/// ``ReadAhead/keep(_:)`` so that its reads are not optimized away.
func forEachReadingAhead<Numbers: RandomAccessCollection<Int64>>(
    _ numbers: Numbers, readAhead: (Numbers.SubSequence) -> UInt, _ body: (Int64) throws -> Void
) rethrows -> UInt {
    var touched: UInt = 0
    var start = numbers.startIndex
    while start != numbers.endIndex {
        let end = numbers.index(start, offsetBy: 32, limitedBy: numbers.endIndex) ?? numbers.endIndex
        let batch = numbers[start..<end]
        touched &+= readAhead(batch)
        for number in batch { try body(number) }
        start = end
    }
    return touched
}
