/// The identifiers of one entity's records, kept in increasing order.
///
/// A store hands out identifiers in increasing order, so adding a new record's identifier is an
/// append, where a hash set would hash it and grow by rehashing. Removing one from a long list marks it
/// (a shift would move half the list), and the marked ones are dropped together once they are an
/// eighth of the list.
struct IdentifierList: Sequence, ExpressibleByArrayLiteral {
    /// The identifiers in increasing order, including the ones in ``removed``.
    private var sorted = ContiguousArray<Int64>()
    /// Identifiers of ``sorted`` that are no longer in the list.
    private var removed: Set<Int64> = []
    /// Lists up to this long remove an identifier by shifting the ones after it.
    private static let shiftingLimit = 4096

    init() {}

    init(arrayLiteral elements: Int64...) {
        for id in elements { insert(id) }
    }

    /// The number of identifiers.
    var count: Int { sorted.count - removed.count }

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
        return position < sorted.count && sorted[position] == id && !removed.contains(id)
    }

    /// Adds `id` (nothing happens if it is in the list already).
    mutating func insert(_ id: Int64) {
        if !removed.isEmpty, removed.remove(id) != nil { return }
        guard let last = sorted.last, id <= last else {
            sorted.append(id)
            return
        }
        let position = firstPosition(notBelow: id)
        if sorted[position] != id { sorted.insert(id, at: position) }
    }

    /// Removes `id` (nothing happens if it is not in the list).
    mutating func remove(_ id: Int64) {
        let position = firstPosition(notBelow: id)
        guard position < sorted.count, sorted[position] == id, !removed.contains(id) else { return }
        if position == sorted.count - 1 || sorted.count <= Self.shiftingLimit {
            sorted.remove(at: position)
            return
        }
        removed.insert(id)
        if removed.count * 8 >= sorted.count { dropRemoved() }
    }

    private mutating func dropRemoved() {
        let gone = removed
        sorted.removeAll { gone.contains($0) }
        removed = []
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
        fileprivate let removed: Set<Int64>
        fileprivate var position = 0

        mutating func next() -> Int64? {
            while position < sorted.count {
                let id = sorted[position]
                position += 1
                if removed.isEmpty || !removed.contains(id) { return id }
            }
            return nil
        }
    }

    /// The identifiers in increasing order.
    func makeIterator() -> Iterator {
        Iterator(sorted: sorted, removed: removed)
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
