@_spi(FolioEngine) import FolioStorage

/// The live instances a context holds, by record number.
///
/// Up to ``denseThreshold`` entries they are in a ``RecordNumberTable``: a fetch's few thousand models lie
/// scattered over a large store's numbers, and a ``DenseTable`` would allocate, and soon release, a
/// chunk of slots for nearly each of them. Past it, and for a fetch that will register that many, they
/// are in a `DenseTable`, which holds a million models in a quarter of the memory; the registry goes
/// back to a hash table when a sweep leaves few (``shrinkIfSparse(keeping:)``).
struct ModelRegistry {
    /// The instance of a record, as the context holds it.
    struct Entry {
        var model: AnyObject?
        init(_ model: AnyObject) { self.model = model }
    }

    /// The number of entries past which the registry is a `DenseTable`.
    static let denseThreshold = 1 << 15

    private var small = RecordNumberTable<Entry>()
    private var dense = DenseTable<Entry>()
    /// Whether the entries are in ``dense``.
    private(set) var isDense = false
    /// The numbers registered since the last sweep, and those the sweep kept, so that a sweep looks at
    /// the registered models only, not at every slot of a table as long as the store's highest number.
    /// May name numbers since removed, and a number more than once.
    private var numbers: [Int64] = []
    /// The count at which dead entries are next swept out.
    private var sweepThreshold = 1024

    /// Where an entry holds its model, for ``DenseTable/touch(_:referenceAt:)``.
    private static let modelOffset = MemoryLayout<Entry>.offset(of: \.model) ?? -1

    var count: Int { isDense ? dense.count : small.count }
    var isEmpty: Bool { count == 0 }

    subscript(number: Int64) -> Entry? {
        get { isDense ? dense[number] : small[number] }
        set {
            if isDense {
                dense[number] = newValue
            } else {
                small[number] = newValue
                if small.count > Self.denseThreshold { becomeDense() }
            }
        }
    }

    /// Holds `model` as the instance of `number`; returns whether a sweep is due (``sweep()``):
    /// the registry has doubled since the last one.
    mutating func register(_ model: AnyObject, at number: Int64) -> Bool {
        let isNew: Bool
        if isDense {
            isNew = dense[number] == nil
            dense[number] = Entry(model)
        } else {
            isNew = small.updateValue(Entry(model), forKey: number) == nil
            if isNew && small.count > Self.denseThreshold { becomeDense() }
        }
        if isNew { numbers.append(number) }
        return count >= sweepThreshold
    }

    /// Makes room to register `additional` more models (a fetch's results): sweeps first if that many
    /// would reach the sweep threshold, so that no sweep runs among models that are all alive. Returns
    /// what the sweep read ahead (see ``sweep()``).
    mutating func prepareToRegister(_ additional: Int) -> UInt {
        var touched: UInt = 0
        if count + additional >= sweepThreshold {
            touched = sweep()
            sweepThreshold = max(sweepThreshold, (count + additional) * 2)
        }
        reserveCapacity(additional)
        return touched
    }

    /// Drops the entries whose model nothing but the registry holds. A model with unsaved changes is
    /// also held by its context's change lists, so it stays. Returns what reading the models' headers
    /// ahead read (see ``forEachReadingAhead(_:readAhead:_:)``), for the caller to keep.
    mutating func sweep() -> UInt {
        // In number order, each number once: a dense table is walked forward, touching memory in order.
        numbers.sort()
        var kept: [Int64] = []
        kept.reserveCapacity(count)
        var previous: Int64?
        let walked = numbers
        numbers = []
        // The models were made one fetch or more ago and lie anywhere in memory: each batch's headers
        // are read ahead (as in ``forEachReadingAhead(_:readAhead:_:)``), so that the reference-count
        // checks do not wait for each in turn.
        var touched: UInt = 0
        for start in stride(from: 0, to: walked.count, by: 32) {
            let batch = walked[start..<min(start + 32, walked.count)]
            touched &+= touch(batch)
            for number in batch where number != previous {
                previous = number
                // Checked in place, so that looking does not add a reference of its own.
                if removeValue(forKey: number, where: { isKnownUniquelyReferenced(&$0.model) }) {
                    kept.append(number)
                }
            }
        }
        shrinkIfSparse(keeping: kept)
        numbers = kept
        sweepThreshold = max(1024, count * 2)
        return touched
    }

    /// Makes room for `additional` more entries, in a `DenseTable` when they take the count past
    /// ``denseThreshold``.
    private mutating func reserveCapacity(_ additional: Int) {
        if !isDense && count + additional > Self.denseThreshold { becomeDense() }
        if isDense { dense.reserveCapacity(additional) } else { small.reserveCapacity(count + additional) }
        numbers.reserveCapacity(numbers.count + additional)
    }

    /// Reads the entries of `numbers` ahead of their use (``DenseTable/touch(_:referenceAt:)``); a hash
    /// table's are found by hashing, which reads them anyway.
    private func touch(_ numbers: ArraySlice<Int64>) -> UInt {
        isDense ? dense.touch(numbers, referenceAt: Self.modelOffset) : 0
    }

    /// Removes the entry of `number` if `shouldRemove` returns true for it, passed in place (so that
    /// `isKnownUniquelyReferenced` sees no copy). Returns whether an entry remains.
    mutating func removeValue(forKey number: Int64, where shouldRemove: (inout Entry) -> Bool) -> Bool {
        if isDense { return dense.removeValue(forKey: number, where: shouldRemove) }
        return small.removeValue(forKey: number, where: shouldRemove)
    }

    /// Goes back to a hash table when a sweep left few entries; `numbers` are those it kept.
    private mutating func shrinkIfSparse(keeping numbers: [Int64]) {
        guard isDense, dense.count < Self.denseThreshold / 4 else { return }
        var table = RecordNumberTable<Entry>(minimumCapacity: dense.count)
        for number in numbers { if let entry = dense[number] { table[number] = entry } }
        guard table.count == dense.count else { return }
        small = table
        dense = DenseTable()
        isDense = false
    }

    private mutating func becomeDense() {
        var table = DenseTable<Entry>()
        table.reserveCapacity(small.count)
        var entries: [(number: Int64, entry: Entry)] = []
        entries.reserveCapacity(small.count)
        small.forEach { entries.append(($0, $1)) }
        entries.sort { $0.number < $1.number }
        for (number, entry) in entries { table[number] = entry }
        dense = table
        small = RecordNumberTable()
        isDense = true
    }
}
