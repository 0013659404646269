@_spi(FolioEngine) import FolioStorage

/// The live instances a context holds, by record number.
///
/// Up to ``denseThreshold`` entries they are in a hash table: a fetch's few thousand models lie
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

    private var small: [Int64: Entry] = [:]
    private var dense = DenseTable<Entry>()
    /// Whether the entries are in ``dense``.
    private(set) var isDense = false

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

    /// Holds `model` as the instance of `number`; returns whether `number` had none.
    mutating func register(_ model: AnyObject, at number: Int64) -> Bool {
        if isDense {
            let isNew = dense[number] == nil
            dense[number] = Entry(model)
            return isNew
        }
        let isNew = small.updateValue(Entry(model), forKey: number) == nil
        if isNew && small.count > Self.denseThreshold { becomeDense() }
        return isNew
    }

    /// Makes room for `additional` more entries, in a `DenseTable` when they take the count past
    /// ``denseThreshold``.
    mutating func reserveCapacity(_ additional: Int) {
        if !isDense && count + additional > Self.denseThreshold { becomeDense() }
        if isDense { dense.reserveCapacity(additional) } else { small.reserveCapacity(count + additional) }
    }

    /// Reads the entries of `numbers` ahead of their use (``DenseTable/touch(_:referenceAt:)``); a hash
    /// table's are found by hashing, which reads them anyway.
    func touch(_ numbers: ArraySlice<Int64>) -> UInt {
        isDense ? dense.touch(numbers, referenceAt: Self.modelOffset) : 0
    }

    /// Removes the entry of `number` if `shouldRemove` returns true for it, passed in place (so that
    /// `isKnownUniquelyReferenced` sees no copy). Returns whether an entry remains.
    mutating func removeValue(forKey number: Int64, where shouldRemove: (inout Entry) -> Bool) -> Bool {
        if isDense { return dense.removeValue(forKey: number, where: shouldRemove) }
        guard let index = small.index(forKey: number) else { return false }
        guard shouldRemove(&small.values[index]) else { return true }
        small.remove(at: index)
        return false
    }

    /// Goes back to a hash table when a sweep left few entries; `numbers` are those it kept.
    mutating func shrinkIfSparse(keeping numbers: [Int64]) {
        guard isDense, dense.count < Self.denseThreshold / 4 else { return }
        var table: [Int64: Entry] = [:]
        table.reserveCapacity(dense.count)
        for number in numbers { if let entry = dense[number] { table[number] = entry } }
        guard table.count == dense.count else { return }
        small = table
        dense = DenseTable()
        isDense = false
    }

    private mutating func becomeDense() {
        var table = DenseTable<Entry>()
        table.reserveCapacity(small.count)
        for number in small.keys.sorted() { table[number] = small[number] }
        dense = table
        small = [:]
        isDense = true
    }
}
