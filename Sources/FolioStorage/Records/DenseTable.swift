/// A table from record numbers to values, stored by position for the dense ranges of numbers a store
/// allocates (1, 2, 3, … and never reused) and in a dictionary for numbers too sparse for that.
///
/// A store's record numbers are dense, so looking one up is an array access instead of a hash-table
/// probe: neighbouring records are neighbours in memory, and a walk in record-number order touches
/// memory in order. Sparse numbers (an identifier reserved by another process, a record inserted with
/// an explicit large number, a few thousand records picked from a million) go to the dictionary, so
/// that a few numbers do not allocate slots for all the numbers around them.
///
/// The slots come in chunks of ``chunkSize`` numbers, and the chunks in pages of ``pageSize``. A chunk
/// is allocated when a number in it gets a value, if the table's slots then stay within twice its
/// values (plus some room), and released when its last value goes. So a copy of the table is cheap to
/// change: a table shared with a reader (the container's index holds the version of the store's table
/// it describes; a compaction writes a snapshot from one) copies only the page and the chunk a change
/// touches and the short list of pages, not every slot or every chunk's reference, which is what a
/// single save into a store of millions of records costs. Growing adds chunks instead of moving every
/// slot, and a table that holds only recent numbers (a context that lets go of the models it saved)
/// keeps only their chunks.
@_spi(FolioEngine) public struct DenseTable<Value> {
    /// ``pageSize`` consecutive chunks and the number of values in each. Pages made together share one
    /// list of nils until a chunk of theirs is allocated.
    @usableFromInline struct Page {
        /// The chunks; nil for a chunk not allocated.
        @usableFromInline var chunks: ContiguousArray<ContiguousArray<Value?>?>
        /// The number of values in each chunk.
        @usableFromInline var counts: ContiguousArray<Int32>

        @inlinable init() {
            chunks = ContiguousArray(repeating: nil, count: DenseTable.pageSize)
            counts = ContiguousArray(repeating: 0, count: DenseTable.pageSize)
        }

        /// Sets slot `offset` of allocated chunk `index`, keeping its count, and releases the chunk when
        /// its last value goes. Returns the change in the number of values and whether the chunk went.
        @inlinable mutating func set(_ newValue: Value?, at offset: Int, inChunk index: Int) -> (change: Int32, released: Bool) {
            let length = chunks[index]?.count ?? 0
            if offset >= length {
                // Past the chunk's end, where numbers given out in order always land: appended.
                guard let newValue else { return (0, false) }
                if offset == length && offset < chunks[index]?.capacity ?? 0 {
                    chunks[index]?.append(newValue)
                } else {
                    var slots = chunks[index].take() ?? []
                    DenseTable.makeRoom(in: &slots, toAppendAt: offset)
                    slots.append(newValue)
                    chunks[index] = slots
                }
                counts[index] += 1
                return (1, false)
            }
            let had = chunks[index]?[offset] != nil
            if !had && newValue == nil { return (0, false) }
            chunks[index]?[offset] = newValue
            let change: Int32 = (newValue != nil ? 1 : 0) - (had ? 1 : 0)
            counts[index] += change
            guard counts[index] == 0 else { return (change, false) }
            chunks[index] = nil
            return (change, true)
        }
    }

    /// The pages of the chunks of slots of numbers `base..<base + slotCount`. The value of a number is in
    /// its chunk if that is allocated, and in `overflow` otherwise.
    @usableFromInline var pages: ContiguousArray<Page> = []
    /// The number of the first slot: the start of the identifier block (see `IdentifierBlocks`) of the
    /// first number given a chunk, so that a clone's identifiers, dense within its block, are slots too.
    @usableFromInline var base: Int64 = 0
    /// The number of chunks allocated.
    @usableFromInline var allocatedChunks = 0
    /// The values of numbers whose chunk is not allocated.
    @usableFromInline var overflow: [Int64: Value] = [:]
    /// The number of values.
    @inlinable public var count: Int { storedCount }
    @usableFromInline var storedCount = 0
    /// The number of values the table was told to expect (``reserveCapacity(_:)``).
    @usableFromInline var expected = 0
    /// ``expected``, for the checks that a count read from a file reserves no more than the file holds.
    package var expectedCount: Int { expected }

    /// log2 of ``chunkSize``.
    @usableFromInline static var chunkShift: Int { 8 }
    /// The slots in one chunk: few, so that a copied chunk costs little.
    @usableFromInline static var chunkSize: Int { 1 << chunkShift }
    /// log2 of ``pageSize``.
    @usableFromInline static var pageShift: Int { 8 }
    /// The chunks in one page: as many as the slots in a chunk, so that a change of a shared table
    /// copies about as much of the page as of the chunk, and the page list is short (one page for
    /// 65,536 numbers).
    @usableFromInline static var pageSize: Int { 1 << pageShift }

    @inlinable
    public init() {}

    /// The number of chunks the page list covers.
    @inlinable var chunkSlotCount: Int { pages.count << Self.pageShift }

    /// The number of slots the page list covers.
    @inlinable var slotCount: Int { chunkSlotCount << Self.chunkShift }

    /// The length of chunk `chunk`, if it is allocated; read in place.
    @inlinable func length(ofChunk chunk: Int) -> Int? {
        pages[chunk >> Self.pageShift].chunks[chunk & (Self.pageSize - 1)]?.count
    }

    /// The value in slot `offset` of chunk `chunk` (allocated, and at least that long); read in place.
    @inlinable func value(inChunk chunk: Int, at offset: Int) -> Value? {
        pages[chunk >> Self.pageShift].chunks[chunk & (Self.pageSize - 1)]?[offset]
    }

    /// The chunk of `number` and its place in it, if the page list covers it (allocated or not).
    @inlinable func slot(of number: Int64) -> (chunk: Int, offset: Int)? {
        let position = number &- base
        guard position >= 0 && position < Int64(slotCount) else { return nil }
        return slot(ofPosition: Int(position))
    }

    /// The slot base a table with no chunks yet takes for `number`: the start of its 2^32-number block.
    @inlinable static func blockBase(of number: Int64) -> Int64 { number & ~0xFFFF_FFFF }

    /// The chunk of `position` and its place in it.
    @inlinable func slot(ofPosition position: Int) -> (chunk: Int, offset: Int) {
        (position >> Self.chunkShift, position & (Self.chunkSize - 1))
    }

    /// Whether the chunk of `number` may be allocated: the slots must stay within twice the values held
    /// or expected, plus 4,096, and the pages (a word and a count per chunk, allocated or not) within
    /// 4,096 chunks plus one per value.
    @inlinable func mayAllocateChunk(of number: Int64) -> Bool {
        let position = number &- (pages.isEmpty ? Self.blockBase(of: number) : base)
        guard number >= 0 && position >= 0 else { return false }
        let values = Swift.max(storedCount + 1, expected)
        let chunk = position >> Int64(Self.chunkShift)
        return (allocatedChunks + 1) << Self.chunkShift <= 2 * values + 4096
            && chunk < Int64(Swift.max(chunkSlotCount, 4096 + values))
    }

    @inlinable
    public subscript(number: Int64) -> Value? {
        get {
            // Read through the chunk in place: binding the chunk would copy a reference to it.
            if let (chunk, offset) = slot(of: number) {
                let page = chunk >> Self.pageShift, index = chunk & (Self.pageSize - 1)
                if let length = pages[page].chunks[index]?.count {
                    return offset < length ? pages[page].chunks[index]?[offset] : nil
                }
            }
            return overflow.isEmpty ? nil : overflow[number]
        }
        set {
            if let (chunk, _) = slot(of: number), length(ofChunk: chunk) != nil {
                set(newValue, at: Int(number &- base))
            } else if let newValue, mayAllocateChunk(of: number) {
                if pages.isEmpty { base = Self.blockBase(of: number) }
                allocateChunk(of: Int(number &- base))
                set(newValue, at: Int(number &- base))
            } else if let newValue {
                if overflow.updateValue(newValue, forKey: number) == nil { storedCount += 1 }
            } else if overflow.removeValue(forKey: number) != nil {
                storedCount -= 1
            }
        }
    }

    /// Reads, for each of `numbers` whose value is in a chunk, the slot and the first word of the object
    /// that the reference `referenceOffset` bytes into the value points to, retaining nothing. Returns a
    /// sum of what was read, which the caller keeps somewhere so that the reads are not optimized away.
    ///
    /// This is a prefetch, for a loop about to read those values and retain what they refer to. A retain
    /// is an atomic operation that waits for its object's cache line before anything after it runs, so
    /// a loop over records spread through memory waits for each line in turn; plain reads issued ahead
    /// let the processor fetch many lines at once, and the retains then find them in the cache.
    ///
    /// - Parameter referenceOffset: the offset in `Value` of a stored strong reference to a native Swift
    ///   object (such as an array's storage), from `MemoryLayout.offset(of:)`.
    @inlinable
    public func touch(_ numbers: some Sequence<Int64>, referenceAt referenceOffset: Int) -> UInt {
        guard referenceOffset >= 0, referenceOffset + MemoryLayout<UInt>.size <= MemoryLayout<Value>.size else { return 0 }
        var sum: UInt = 0
        pages.withUnsafeBufferPointer { pageList in
            for number in numbers {
                guard let (chunk, offset) = slot(of: number) else { continue }
                pageList[chunk >> Self.pageShift].chunks[chunk & (Self.pageSize - 1)]?.withUnsafeBufferPointer { slots in
                    guard offset < slots.count, let base = slots.baseAddress, slots[offset] != nil else { return }
                    let bits = UnsafeRawPointer(base + offset).load(fromByteOffset: referenceOffset, as: UInt.self)
                    if let object = UnsafeRawPointer(bitPattern: bits) { sum &+= object.load(as: UInt.self) }
                }
            }
        }
        return sum
    }

    /// Sets the slot of `position`, whose chunk is allocated, keeping the counts; releases the chunk
    /// when its last value goes.
    @inlinable mutating func set(_ newValue: Value?, at position: Int) {
        let (chunk, offset) = slot(ofPosition: position)
        let (change, released) = pages[chunk >> Self.pageShift].set(newValue, at: offset, inChunk: chunk & (Self.pageSize - 1))
        storedCount += Int(change)
        if released { allocatedChunks -= 1 }
    }

    /// Readies a chunk for a value appended at `offset`, at or past its end: the slots before `offset`
    /// are filled with nil. A chunk is only as long as its highest value needs, so that a small table (a
    /// transaction of one record) does not make and clear a whole chunk; its capacity grows
    /// geometrically, up to ``chunkSize``.
    @inlinable static func makeRoom(in slots: inout ContiguousArray<Value?>, toAppendAt offset: Int) {
        let capacity = slots.capacity
        if offset >= capacity {
            slots.reserveCapacity(Swift.min(Self.chunkSize, Swift.max(offset + 1, 2 * capacity)))
        }
        if offset > slots.count {
            slots.append(contentsOf: repeatElement(nil, count: offset - slots.count))
        }
    }

    /// Allocates the chunk of `position` (empty until a value is set in it), extending the page list to
    /// it, and moves into it the values of its numbers from the overflow.
    @inlinable mutating func allocateChunk(of position: Int) {
        let chunk = slot(ofPosition: position).chunk
        let page = chunk >> Self.pageShift, index = chunk & (Self.pageSize - 1)
        if page >= pages.count {
            pages.append(contentsOf: repeatElement(Page(), count: page + 1 - pages.count))
        }
        pages[page].chunks[index] = ContiguousArray()
        allocatedChunks += 1
        guard !overflow.isEmpty else { return }
        let first = base + Int64(chunk << Self.chunkShift)
        let numbers = first..<first + Int64(Self.chunkSize)
        let moving =
            overflow.count <= Self.chunkSize
            ? overflow.keys.filter { numbers.contains($0) }
            : numbers.filter { overflow[$0] != nil }
        for number in moving {
            guard let value = overflow.removeValue(forKey: number) else { continue }
            storedCount -= 1
            set(value, at: Int(number &- base))
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

    /// Makes room for `additional` more numbers after the highest.
    @inlinable
    public mutating func reserveCapacity(_ additional: Int) {
        expected = Swift.max(expected, count + additional)
        let pagesNeeded = (slotCount + additional + (Self.chunkSize << Self.pageShift) - 1) >> (Self.chunkShift + Self.pageShift)
        if pagesNeeded > pages.capacity {
            pages.reserveCapacity(Swift.max(pagesNeeded, 2 * pages.capacity))
        }
    }

    /// Removes the value of `number` if `shouldRemove` returns true for it, passed in place (so that a
    /// check such as `isKnownUniquelyReferenced` sees no copy of it). Returns whether a value remains.
    @inlinable
    public mutating func removeValue(forKey number: Int64, where shouldRemove: (inout Value) -> Bool) -> Bool {
        if let (chunk, offset) = slot(of: number), let length = length(ofChunk: chunk) {
            let page = chunk >> Self.pageShift, index = chunk & (Self.pageSize - 1)
            guard offset < length, pages[page].chunks[index]?[offset] != nil else { return false }
            guard shouldRemove(&pages[page].chunks[index]![offset]!) else { return true }
            set(nil, at: Int(number &- base))
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
        pages = []
        base = 0
        allocatedChunks = 0
        overflow = [:]
        storedCount = 0
        expected = 0
    }
}

@_spi(FolioEngine) extension DenseTable: Sendable where Value: Sendable {}
extension DenseTable.Page: Sendable where Value: Sendable {}

@_spi(FolioEngine) extension DenseTable: Sequence {
    /// The numbers and values: the slots in number order, then the overflow in no particular order.
    public struct Iterator: IteratorProtocol {
        @usableFromInline let table: DenseTable
        @usableFromInline var position = 0
        @usableFromInline var overflow: Dictionary<Int64, Value>.Iterator

        @inlinable init(table: DenseTable) {
            self.table = table
            self.overflow = table.overflow.makeIterator()
        }

        @inlinable public mutating func next() -> (key: Int64, value: Value)? {
            let end = table.slotCount
            while position < end {
                let chunkNumber = position >> DenseTable.chunkShift
                let offset = position & (DenseTable.chunkSize - 1)
                // Past the chunk's end, or no chunk: on to the next chunk.
                guard let length = table.length(ofChunk: chunkNumber), offset < length else {
                    position = (chunkNumber + 1) << DenseTable.chunkShift
                    continue
                }
                defer { position += 1 }
                if let value = table.value(inChunk: chunkNumber, at: offset) { return (table.base + Int64(position), value) }
            }
            return overflow.next()
        }
    }

    @inlinable public func makeIterator() -> Iterator {
        Iterator(table: self)
    }

    @inlinable
    public var underestimatedCount: Int { count }

    /// Moves every value out of the table, in increasing number order, and leaves the table empty.
    ///
    /// The values are moved, not copied: a table that holds the only copy of each value (a write
    /// transaction's inserted records, handed to the transaction it commits) gives them up without a
    /// retain and a release of each.
    public mutating func removeAllInNumberOrder() -> [Value] {
        var pages: ContiguousArray<Page> = []
        var overflow: [Int64: Value] = [:]
        swap(&pages, &self.pages)
        swap(&overflow, &self.overflow)
        var values: [Value] = []
        values.reserveCapacity(storedCount)
        let base = self.base
        var chunksLeft = allocatedChunks
        self.base = 0
        allocatedChunks = 0
        storedCount = 0
        let outside = overflow.isEmpty ? [] : overflow.keys.sorted()
        var nextOutside = 0
        // No number in the overflow lies in an allocated chunk: those before a chunk come before it.
        func takeOutside(before limit: Int64) {
            while nextOutside < outside.count && outside[nextOutside] < limit {
                if let value = overflow.removeValue(forKey: outside[nextOutside]) { values.append(value) }
                nextOutside += 1
            }
        }
        // Only up to the last allocated chunk: a transaction's one record is in the first of a page's.
        for chunkNumber in 0..<(pages.count << Self.pageShift) where chunksLeft > 0 {
            let page = chunkNumber >> Self.pageShift, index = chunkNumber & (Self.pageSize - 1)
            guard pages[page].chunks[index] != nil, var chunk = pages[page].chunks[index].take() else { continue }
            chunksLeft -= 1
            takeOutside(before: base + Int64(chunkNumber << Self.chunkShift))
            chunk.withUnsafeMutableBufferPointer { slots in
                guard let base = slots.baseAddress else { return }
                // Moved from the slot with a pointer and appended as is: a value bound out of
                // `take()` was retained for the array and released from the binding.
                for offset in slots.indices where slots[offset] != nil {
                    let slot = base + offset
                    values.append(slot.move().unsafelyUnwrapped)
                    slot.initialize(to: nil)
                }
            }
        }
        for number in outside[nextOutside...] {
            if let value = overflow.removeValue(forKey: number) { values.append(value) }
        }
        return values
    }

    /// Changes, in place, each value for which `needsChange` is true, in no particular order.
    @inlinable
    public mutating func updateEach(where needsChange: (Value) -> Bool, _ change: (inout Value) -> Void) {
        for page in pages.indices {
            for index in pages[page].chunks.indices where pages[page].chunks[index] != nil {
                for offset in 0..<(pages[page].chunks[index]?.count ?? 0) {
                    guard var value = pages[page].chunks[index]?[offset], needsChange(value) else { continue }
                    change(&value)
                    pages[page].chunks[index]?[offset] = value
                }
            }
        }
        for index in overflow.values.indices where needsChange(overflow.values[index]) {
            change(&overflow.values[index])
        }
    }

    /// Calls `body` with each number and value in increasing number order. The numbers in the overflow
    /// are sorted first; in a store's tables there are none or a few.
    @inlinable
    public func forEachInNumberOrder(_ body: (Int64, Value) throws -> Void) rethrows {
        let outside = overflow.isEmpty ? [] : overflow.keys.sorted()
        var nextOutside = 0
        // No number in the overflow lies in an allocated chunk: those before a chunk come before it.
        func callOutside(before limit: Int64) throws {
            while nextOutside < outside.count && outside[nextOutside] < limit {
                if let value = overflow[outside[nextOutside]] { try body(outside[nextOutside], value) }
                nextOutside += 1
            }
        }
        for (pageNumber, page) in pages.enumerated() {
            for (index, chunk) in page.chunks.enumerated() {
                guard let chunk else { continue }
                let first = base + Int64(((pageNumber << Self.pageShift) + index) << Self.chunkShift)
                try callOutside(before: first)
                for offset in chunk.indices {
                    if let value = chunk[offset] { try body(first + Int64(offset), value) }
                }
            }
        }
        for number in outside[nextOutside...] {
            if let value = overflow[number] { try body(number, value) }
        }
    }
}
