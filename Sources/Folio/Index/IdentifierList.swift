/// The identifiers of one entity's records, kept in increasing order.
///
/// A store hands out identifiers in increasing order, so adding a new record's identifier is an
/// append, where a hash set would hash it and grow by rehashing. Removing one from a long list marks
/// its position in a bit set (a shift would move half the list), and the marked ones are dropped
/// together once they are an eighth of the list: a removal costs a binary search, never a hash.
struct IdentifierList: Sequence, ExpressibleByArrayLiteral {
    /// The identifiers in increasing order, including the marked ones.
    private var sorted = ContiguousArray<Int64>()
    /// Bit `k` is set when the identifier at position `k` of ``sorted`` is no longer in the list
    /// (empty when none is).
    private var marks = ContiguousArray<UInt64>()
    /// The number of bits set in ``marks``.
    private var markedCount = 0
    /// Lists up to this long remove an identifier by shifting the ones after it (at most 2 KiB moved);
    /// longer ones mark it, so that removing many identifiers from a long list does not shift half of
    /// it each time.
    static let shiftingLimit = 256

    init() {}

    /// The list of `ids`, which are in increasing order (a repeated one is listed once).
    init(sorted ids: some Collection<Int64>) {
        sorted.reserveCapacity(ids.count)
        var previous: Int64?
        for id in ids where id != previous {
            sorted.append(id)
            previous = id
        }
    }

    init(arrayLiteral elements: Int64...) {
        for id in elements { insert(id) }
    }

    /// The number of identifiers.
    var count: Int { sorted.count - markedCount }

    var isEmpty: Bool { count == 0 }

    var underestimatedCount: Int { count }

    /// The smallest identifier.
    var first: Int64? {
        var iterator = makeIterator()
        return iterator.next()
    }

    mutating func reserveCapacity(_ minimumCapacity: Int) {
        sorted.reserveCapacity(minimumCapacity)
    }

    /// Whether `id` is in the list.
    func contains(_ id: Int64) -> Bool {
        let position = firstPosition(notBelow: id)
        return position < sorted.count && sorted[position] == id && !isMarked(position)
    }

    /// Adds `id` (nothing happens if it is in the list already).
    mutating func insert(_ id: Int64) {
        guard let last = sorted.last, id <= last else {
            sorted.append(id)
            return
        }
        var position = firstPosition(notBelow: id)
        if sorted[position] == id {
            if isMarked(position) { unmark(position) }
            return
        }
        // Inserting in the middle shifts the list anyway; the marks would have to shift with it.
        if markedCount > 0 {
            dropMarked()
            position = firstPosition(notBelow: id)
        }
        sorted.insert(id, at: position)
    }

    /// Removes `id` (nothing happens if it is not in the list).
    mutating func remove(_ id: Int64) {
        var position = firstPosition(notBelow: id)
        guard position < sorted.count, sorted[position] == id, !isMarked(position) else { return }
        if position == sorted.count - 1 {
            // The last position's mark bit is clear (it was not marked), so no mark moves.
            sorted.removeLast()
            return
        }
        if sorted.count <= Self.shiftingLimit {
            if markedCount > 0 {
                dropMarked()
                position = firstPosition(notBelow: id)
            }
            sorted.remove(at: position)
            return
        }
        mark(position)
        if markedCount * 8 >= sorted.count { dropMarked() }
    }

    private func isMarked(_ position: Int) -> Bool {
        Self.isMarked(position, in: marks)
    }

    /// Whether bit `position` of `marks` is set (bits past its end are clear).
    private static func isMarked(_ position: Int, in marks: ContiguousArray<UInt64>) -> Bool {
        let word = position >> 6
        return word < marks.count && marks[word] & (1 << UInt64(position & 63)) != 0
    }

    private mutating func mark(_ position: Int) {
        let word = position >> 6
        if word >= marks.count { marks.append(contentsOf: repeatElement(0, count: word + 1 - marks.count)) }
        marks[word] |= 1 << UInt64(position & 63)
        markedCount += 1
    }

    private mutating func unmark(_ position: Int) {
        marks[position >> 6] &= ~(1 << UInt64(position & 63))
        markedCount -= 1
        if markedCount == 0 { marks = [] }
    }

    /// Drops the marked identifiers from ``sorted``, keeping the others in order.
    private mutating func dropMarked() {
        var kept = 0
        for position in sorted.indices where !isMarked(position) {
            sorted[kept] = sorted[position]
            kept += 1
        }
        sorted.removeLast(sorted.count - kept)
        marks = []
        markedCount = 0
    }

    /// The position of the first identifier at or above `id` in ``sorted``.
    private func firstPosition(notBelow id: Int64) -> Int {
        var low = 0
        var high = sorted.count
        while low < high {
            let middle = (low + high) / 2
            if sorted[middle] < id { low = middle + 1 } else { high = middle }
        }
        return low
    }

    struct Iterator: IteratorProtocol {
        fileprivate let sorted: ContiguousArray<Int64>
        fileprivate let marks: ContiguousArray<UInt64>
        fileprivate var position = 0

        mutating func next() -> Int64? {
            while position < sorted.count {
                let current = position
                position += 1
                if !IdentifierList.isMarked(current, in: marks) { return sorted[current] }
            }
            return nil
        }
    }

    /// The identifiers in increasing order, as an array.
    var identifiers: [Int64] {
        markedCount == 0 ? Array(sorted) : Array(self)
    }

    /// The identifiers in increasing order.
    func makeIterator() -> Iterator {
        Iterator(sorted: sorted, marks: marks)
    }
}

extension Array where Element == Int64 {
    /// The union of two lists of identifiers in increasing order, in increasing order, each once.
    static func mergingSorted(_ lhs: [Int64], _ rhs: some Sequence<Int64>) -> [Int64] {
        var merged: [Int64] = []
        merged.reserveCapacity(lhs.count + rhs.underestimatedCount)
        var left = 0
        for id in rhs {
            while left < lhs.count && lhs[left] < id {
                merged.append(lhs[left])
                left += 1
            }
            if left < lhs.count && lhs[left] == id { left += 1 }
            merged.append(id)
        }
        merged.append(contentsOf: lhs[left...])
        return merged
    }
}
