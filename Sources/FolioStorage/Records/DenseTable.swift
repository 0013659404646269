/// A table from record numbers to values, stored by position for the dense range of numbers a store
/// allocates (1, 2, 3, … and never reused) and in a dictionary for any number far beyond it.
///
/// A store's record numbers are dense, so looking one up is an array access instead of a hash-table
/// probe: neighbouring records are neighbours in memory, and a walk in record-number order touches
/// memory in order. Numbers far above the table's size (an identifier reserved by another process, a
/// record inserted with an explicit large number) go to the dictionary, so that one large number does
/// not allocate a slot for every number below it.
@_spi(FolioEngine) public struct DenseTable<Value> {
    /// The values of numbers `0..<slots.count`, by number. A number below `slots.count` is never in
    /// `overflow`.
    @usableFromInline var slots: ContiguousArray<Value?> = []
    /// The values of numbers outside the slots.
    @usableFromInline var overflow: [Int64: Value] = [:]
    /// The number of values.
    @inlinable public var count: Int { storedCount }
    @usableFromInline var storedCount = 0
    /// The number of values the table was told to expect (``reserveCapacity(_:)``).
    @usableFromInline var expected = 0

    @inlinable
    public init() {}

    /// Whether `number` may take a slot: numbers up to twice the values held or expected (plus some
    /// room) do, so that the slots never hold many more empty places than values.
    @inlinable func fitsSlots(_ number: Int64) -> Bool {
        number >= 0 && number < Int64(Swift.max(slots.count, 2 * Swift.max(storedCount, expected) + 4096))
    }

    @inlinable
    public subscript(number: Int64) -> Value? {
        get {
            if number >= 0 && number < Int64(slots.count) { return slots[Int(number)] }
            return overflow.isEmpty ? nil : overflow[number]
        }
        set {
            if number >= 0 && number < Int64(slots.count) {
                let had = slots[Int(number)] != nil
                slots[Int(number)] = newValue
                storedCount += (newValue != nil ? 1 : 0) - (had ? 1 : 0)
            } else if let newValue, fitsSlots(number) {
                // Growing may move this very number in from the overflow: count it once.
                grow(toInclude: number)
                let had = slots[Int(number)] != nil
                slots[Int(number)] = newValue
                if !had { storedCount += 1 }
            } else if let newValue {
                if overflow.updateValue(newValue, forKey: number) == nil { storedCount += 1 }
            } else if overflow.removeValue(forKey: number) != nil {
                storedCount -= 1
            }
        }
    }

    /// Removes and returns the value of `number`.
    @discardableResult
    @inlinable
    public mutating func removeValue(forKey number: Int64) -> Value? {
        guard let value = self[number] else { return nil }
        self[number] = nil
        return value
    }

    /// Makes room for `additional` more numbers after the highest without reallocating.
    @inlinable
    public mutating func reserveCapacity(_ additional: Int) {
        expected = Swift.max(expected, count + additional)
        // Grown geometrically: many small reservations (one per transaction or fetch) must not
        // reallocate the slots each time.
        let needed = slots.count + additional
        if needed > slots.capacity { slots.reserveCapacity(Swift.max(needed, 2 * slots.capacity)) }
    }

    /// Removes the value of `number` if `shouldRemove` returns true for it, passed in place (so that a
    /// check such as `isKnownUniquelyReferenced` sees no copy of it). Returns whether a value remains.
    @inlinable
    public mutating func removeValue(forKey number: Int64, where shouldRemove: (inout Value) -> Bool) -> Bool {
        if number >= 0 && number < Int64(slots.count) {
            guard slots[Int(number)] != nil else { return false }
            guard shouldRemove(&slots[Int(number)]!) else { return true }
            slots[Int(number)] = nil
        } else {
            guard let position = overflow.index(forKey: number) else { return false }
            guard shouldRemove(&overflow.values[position]) else { return true }
            overflow.remove(at: position)
        }
        storedCount -= 1
        return false
    }

    @inlinable
    public var isEmpty: Bool { count == 0 }

    @inlinable
    public mutating func removeAll() {
        slots = []
        overflow = [:]
        storedCount = 0
        expected = 0
    }

    /// Extends the slots past `number`, moving in any overflow values they now cover.
    @inlinable mutating func grow(toInclude number: Int64) {
        let newCount = Swift.max(Int(number) + 1, slots.count + slots.count / 2)
        slots.append(contentsOf: repeatElement(nil, count: newCount - slots.count))
        guard !overflow.isEmpty else { return }
        for (moved, value) in overflow where moved >= 0 && moved < Int64(newCount) {
            slots[Int(moved)] = value
            overflow[moved] = nil
        }
    }
}

@_spi(FolioEngine) extension DenseTable: Sendable where Value: Sendable {}

@_spi(FolioEngine) extension DenseTable: Sequence {
    /// The numbers and values: the slots in number order, then the overflow in no particular order.
    public struct Iterator: IteratorProtocol {
        @usableFromInline let slots: ContiguousArray<Value?>
        @usableFromInline var position = 0
        @usableFromInline var overflow: Dictionary<Int64, Value>.Iterator

        @inlinable init(slots: ContiguousArray<Value?>, overflow: Dictionary<Int64, Value>.Iterator) {
            self.slots = slots
            self.overflow = overflow
        }

        @inlinable public mutating func next() -> (key: Int64, value: Value)? {
            while position < slots.count {
                defer { position += 1 }
                if let value = slots[position] { return (Int64(position), value) }
            }
            return overflow.next()
        }
    }

    @inlinable public func makeIterator() -> Iterator {
        Iterator(slots: slots, overflow: overflow.makeIterator())
    }

    @inlinable
    public var underestimatedCount: Int { count }

    /// Calls `body` with each number and value in increasing number order. The numbers outside the
    /// slots are sorted first; in a store's tables there are none or a few.
    @inlinable
    public func forEachInNumberOrder(_ body: (Int64, Value) throws -> Void) rethrows {
        let outside = overflow.isEmpty ? [] : overflow.keys.sorted()
        // Negative numbers come before the slots, numbers past them after.
        let firstAfterSlots = outside.firstIndex { $0 >= 0 } ?? outside.endIndex
        for number in outside[..<firstAfterSlots] {
            if let value = overflow[number] { try body(number, value) }
        }
        for position in slots.indices {
            if let value = slots[position] { try body(Int64(position), value) }
        }
        for number in outside[firstAfterSlots...] {
            if let value = overflow[number] { try body(number, value) }
        }
    }
}
