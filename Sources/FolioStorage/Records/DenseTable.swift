/// A table from record numbers to values, stored by position for the dense range of numbers a store
/// allocates (1, 2, 3, … and never reused) and in a dictionary for any number far beyond it.
///
/// A store's record numbers are dense, so looking one up is an array access instead of a hash-table
/// probe: neighbouring records are neighbours in memory, and a walk in record-number order touches
/// memory in order. Numbers far above the table's reach (an identifier reserved by another process, a
/// record inserted with an explicit large number) go to the dictionary, so that one large number does
/// not allocate a slot for every number below it.
///
/// The slots come in chunks of ``chunkSize`` numbers, each allocated when a number in it gets a value
/// and released when its last value goes. So a copy of the table is cheap to change (a table shared with
/// a reader, such as a compaction writing a snapshot, copies only the chunks a change touches, not every
/// slot); growing adds chunks instead of moving every slot; and a table that holds only recent numbers
/// (a context that lets go of the models it saved) keeps only their chunks.
@_spi(FolioEngine) public struct DenseTable<Value> {
    /// The slots of numbers `0..<slotCount`, by chunk; nil for a chunk with no values. A number below
    /// `slotCount` is never in `overflow`.
    @usableFromInline var chunks: ContiguousArray<ContiguousArray<Value?>?> = []
    /// The number of values in each chunk.
    @usableFromInline var chunkCounts: ContiguousArray<Int32> = []
    /// The number of chunks allocated.
    @usableFromInline var allocatedChunks = 0
    /// The values of numbers outside the slots.
    @usableFromInline var overflow: [Int64: Value] = [:]
    /// The number of values.
    @inlinable public var count: Int { storedCount }
    @usableFromInline var storedCount = 0
    /// The number of values the table was told to expect (``reserveCapacity(_:)``).
    @usableFromInline var expected = 0

    /// log2 of ``chunkSize``.
    @usableFromInline static var chunkShift: Int { 11 }
    /// The slots in one chunk: small enough that a copied chunk costs little and stays below the
    /// allocator's threshold for mapping memory of its own, large enough that the chunk list is short.
    @usableFromInline static var chunkSize: Int { 1 << chunkShift }

    @inlinable
    public init() {}

    /// The number of slots: numbers `0..<slotCount` are stored by position.
    @inlinable var slotCount: Int { chunks.count << Self.chunkShift }

    /// Whether `number` may take a slot. The chunk list (one word per ``chunkSize`` numbers) may reach
    /// up to twice the chunks that hold values or are expected to, plus 4,096 words, so that it never
    /// holds many more empty places than values.
    @inlinable func fitsSlots(_ number: Int64) -> Bool {
        guard number >= 0 else { return false }
        let expectedChunks = (Swift.max(storedCount, expected) >> Self.chunkShift) + allocatedChunks
        return number >> Int64(Self.chunkShift) < Int64(Swift.max(chunks.count, 2 * expectedChunks + 4096))
    }

    @inlinable
    public subscript(number: Int64) -> Value? {
        get {
            if number >= 0 && number < Int64(slotCount) {
                return chunks[Int(number) >> Self.chunkShift]?[Int(number) & (Self.chunkSize - 1)]
            }
            return overflow.isEmpty ? nil : overflow[number]
        }
        set {
            if number >= 0 && number < Int64(slotCount) {
                set(newValue, at: Int(number))
            } else if let newValue, fitsSlots(number) {
                // Growing may move this very number in from the overflow: `set` counts it once.
                grow(toInclude: number)
                set(newValue, at: Int(number))
            } else if let newValue {
                if overflow.updateValue(newValue, forKey: number) == nil { storedCount += 1 }
            } else if overflow.removeValue(forKey: number) != nil {
                storedCount -= 1
            }
        }
    }

    /// Sets the slot of `position` (below `slotCount`), keeping the counts, allocating its chunk if it
    /// has none and releasing it when its last value goes.
    @inlinable mutating func set(_ newValue: Value?, at position: Int) {
        let chunk = position >> Self.chunkShift
        let offset = position & (Self.chunkSize - 1)
        let had = chunks[chunk]?[offset] != nil
        if !had {
            guard newValue != nil else { return }
            if chunks[chunk] == nil {
                chunks[chunk] = ContiguousArray(repeating: nil, count: Self.chunkSize)
                allocatedChunks += 1
            }
        }
        chunks[chunk]?[offset] = newValue
        let change: Int32 = (newValue != nil ? 1 : 0) - (had ? 1 : 0)
        guard change != 0 else { return }
        storedCount += Int(change)
        chunkCounts[chunk] += change
        if chunkCounts[chunk] == 0 { releaseChunk(chunk) }
    }

    @inlinable mutating func releaseChunk(_ chunk: Int) {
        chunks[chunk] = nil
        allocatedChunks -= 1
    }

    /// Removes and returns the value of `number`.
    @discardableResult
    @inlinable
    public mutating func removeValue(forKey number: Int64) -> Value? {
        guard let value = self[number] else { return nil }
        self[number] = nil
        return value
    }

    /// Makes room for `additional` more numbers after the highest.
    @inlinable
    public mutating func reserveCapacity(_ additional: Int) {
        expected = Swift.max(expected, count + additional)
        let chunksNeeded = (slotCount + additional + Self.chunkSize - 1) >> Self.chunkShift
        if chunksNeeded > chunks.capacity {
            let capacity = Swift.max(chunksNeeded, 2 * chunks.capacity)
            chunks.reserveCapacity(capacity)
            chunkCounts.reserveCapacity(capacity)
        }
    }

    /// Removes the value of `number` if `shouldRemove` returns true for it, passed in place (so that a
    /// check such as `isKnownUniquelyReferenced` sees no copy of it). Returns whether a value remains.
    @inlinable
    public mutating func removeValue(forKey number: Int64, where shouldRemove: (inout Value) -> Bool) -> Bool {
        if number >= 0 && number < Int64(slotCount) {
            let chunk = Int(number) >> Self.chunkShift
            let offset = Int(number) & (Self.chunkSize - 1)
            guard chunks[chunk]?[offset] != nil else { return false }
            guard shouldRemove(&chunks[chunk]![offset]!) else { return true }
            set(nil, at: Int(number))
            return false
        }
        guard let position = overflow.index(forKey: number) else { return false }
        guard shouldRemove(&overflow.values[position]) else { return true }
        overflow.remove(at: position)
        storedCount -= 1
        return false
    }

    @inlinable
    public var isEmpty: Bool { count == 0 }

    @inlinable
    public mutating func removeAll() {
        chunks = []
        chunkCounts = []
        allocatedChunks = 0
        overflow = [:]
        storedCount = 0
        expected = 0
    }

    /// Extends the chunk list past `number`, moving in any overflow values it now covers.
    @inlinable mutating func grow(toInclude number: Int64) {
        let oldCount = slotCount
        let chunksNeeded = (Int(number) >> Self.chunkShift) + 1
        chunks.append(contentsOf: repeatElement(nil, count: chunksNeeded - chunks.count))
        chunkCounts.append(contentsOf: repeatElement(0, count: chunksNeeded - chunkCounts.count))
        guard !overflow.isEmpty else { return }
        for (moved, value) in overflow where moved >= Int64(oldCount) && moved < Int64(slotCount) {
            overflow[moved] = nil
            storedCount -= 1
            set(value, at: Int(moved))
        }
    }
}

@_spi(FolioEngine) extension DenseTable: Sendable where Value: Sendable {}

@_spi(FolioEngine) extension DenseTable: Sequence {
    /// The numbers and values: the slots in number order, then the overflow in no particular order.
    public struct Iterator: IteratorProtocol {
        @usableFromInline let chunks: ContiguousArray<ContiguousArray<Value?>?>
        @usableFromInline var position = 0
        @usableFromInline var overflow: Dictionary<Int64, Value>.Iterator

        @inlinable init(chunks: ContiguousArray<ContiguousArray<Value?>?>, overflow: Dictionary<Int64, Value>.Iterator) {
            self.chunks = chunks
            self.overflow = overflow
        }

        @inlinable public mutating func next() -> (key: Int64, value: Value)? {
            let end = chunks.count << DenseTable.chunkShift
            while position < end {
                guard let chunk = chunks[position >> DenseTable.chunkShift] else {
                    position = (position >> DenseTable.chunkShift + 1) << DenseTable.chunkShift
                    continue
                }
                defer { position += 1 }
                if let value = chunk[position & (DenseTable.chunkSize - 1)] {
                    return (Int64(position), value)
                }
            }
            return overflow.next()
        }
    }

    @inlinable public func makeIterator() -> Iterator {
        Iterator(chunks: chunks, overflow: overflow.makeIterator())
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
        for (chunkNumber, chunk) in chunks.enumerated() {
            guard let chunk else { continue }
            let first = chunkNumber << Self.chunkShift
            for offset in chunk.indices {
                if let value = chunk[offset] { try body(Int64(first + offset), value) }
            }
        }
        for number in outside[firstAfterSlots...] {
            if let value = overflow[number] { try body(number, value) }
        }
    }
}
