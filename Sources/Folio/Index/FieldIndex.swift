@_spi(FolioEngine) import FolioStorage

/// The index on one field of one entity: a hash table from key to identifiers, and the same pairs in
/// key order; or, for a declared `#Index` on a field that is not unique, only the pairs in key order.
///
/// A field that is unique, or indexed only for a `#Unique`, keeps the table: every insert checks it.
/// A declared index on another field answers an equality by binary search in its sorted pairs, which
/// it keeps anyway for ranges and ordering: the rule is one structure per question asked of it, so a
/// field that needs no uniqueness check pays for no table.
///
/// The sorted pairs are made on first use; from then on each change is kept as a pair to add or remove,
/// and the next read merges the kept pairs into the sorted ones in one pass (or, for a few, inserts and
/// removes them in place by binary search) instead of sorting every pair again.
///
/// The table keeps a key's hash and, for a key of one record, that record's number: two words an
/// entry. It does not keep the key itself, which is the indexed record's value; a lookup that finds a
/// record reads its value back to compare. Keys of several records, and keys whose hashes collide, live
/// in a ``KeyGroup`` that keeps its keys. The rule: the common case (one record a key) stores nothing
/// the record does not already hold.
///
/// Reading keys back relies on one rule, which ``RecordIndex`` follows: whenever a record is inserted,
/// every record already in the table is indexed under the values the record index holds for it. So a
/// change removes the record with its old values, stores its new values, and only then inserts it again.
final class FieldIndex {
    let field: String
    let conversion: QueryKey.Conversion
    /// Whether the field is unique (`.unique` or a one-field `#Unique`): about one key per record.
    let isUnique: Bool
    /// Whether the model declares `#Index` on the field (otherwise it is indexed for uniqueness only).
    let isDeclared: Bool
    /// Whether the index keeps its hash table (see the type's description). Without it, ``pairs``
    /// always holds every pair.
    let keepsTable: Bool
    /// The stored value a record without one for the field is indexed under: the field's declared default.
    private let missing: JSONValue?
    /// The current values of an indexed record, from which the keys the table does not keep are read.
    private let valuesOf: (Int64) -> RecordValues?
    private var table: FieldKeyTable
    private var pairs = SortedFieldPairs()
    /// How many changes are kept for the sorted pairs, not applied yet, for tests.
    var keptChangeCount: Int { pairs.pendingCount }
    /// How many times the sorted pairs were made from the whole table, for tests.
    private(set) var sortedRebuilds = 0
    /// While a store loads, for a declared index whose keys are (nearly) all different: each key as it
    /// was worked out for the table, with its record. The sorted entries are then these, sorted, instead
    /// of every key being read back from its record and converted again, in hash order. Nil otherwise,
    /// and from the first removal on.
    private var loadedEntries: [(key: QueryKey, id: Int64)]?

    /// The records whose key is a string not in its canonical composition (NFC), usually none (see
    /// ``candidatesOutOfOrder(for:)``).
    private var nonCanonicalStringIDs: Set<Int64> = []

    /// The records a range lookup from `bound` must add to those its positions give: for a string bound,
    /// the records whose string is not canonical, which Swift's `<` (the predicate's) may order
    /// differently from the index (see ``StringOrder``); the predicate then decides for them.
    func candidatesOutOfOrder(for bound: QueryKey) -> Set<Int64> {
        if case .string = bound { return nonCanonicalStringIDs }
        return []
    }

    init(
        field: String, conversion: QueryKey.Conversion, isUnique: Bool, isDeclared: Bool,
        hashing: KeyHash.Hashing = .standard, missing: JSONValue? = nil,
        valuesOf: @escaping (Int64) -> RecordValues?
    ) {
        self.field = field
        self.conversion = conversion
        self.isUnique = isUnique
        self.isDeclared = isDeclared
        self.keepsTable = isUnique || !isDeclared
        self.table = FieldKeyTable(hashing: hashing)
        self.missing = missing
        self.valuesOf = valuesOf
    }

    /// Makes room for `additionalKeys` more keys.
    func reserveCapacity(_ additionalKeys: Int) {
        guard keepsTable else { return }
        table.reserveCapacity(table.slotCount + additionalKeys)
    }

    /// How many keys the table holds before it must grow (0 without a table).
    var keyCapacity: Int { table.capacity }

    /// The number of distinct keys.
    var keyCount: Int {
        keepsTable ? table.keyCount : keyCounts().count
    }

    /// Sizes the table for `total` records from the keys the first `sampled` of them gave, when at
    /// least half of those records had a key of their own: a nearly unique field (a date, a name) then
    /// gets its table once, instead of growing it by doubling, which allocates and fills every smaller
    /// table on the way. A field with fewer distinct values (a city, a category) is left to grow: its
    /// keys stop multiplying long before its records do.
    func reserveCapacity(forRecords total: Int, afterSampling sampled: Int) {
        guard keepsTable else { return }
        guard sampled > 0, total > sampled, table.keyCount * 2 >= sampled else {
            // Keys that repeat: sorting the groups' keys is cheaper than sorting every record's pair.
            loadedEntries = nil
            return
        }
        table.reserveCapacity(Int((Double(table.keyCount) * Double(total) / Double(sampled)).rounded(.up)))
        loadedEntries?.reserveCapacity(total)
    }

    func removeAll() {
        nonCanonicalStringIDs = []
        table.removeAll()
        pairs.removeAll()
        loadedEntries = nil
    }

    /// Starts keeping each inserted key for the sorted entries (see ``loadedEntries``): a declared index
    /// about to be filled by a store's open, whose ``sortedEntries()`` then sorts them and stops.
    func beginLoading(expectedRecords: Int) {
        guard isDeclared else { return }
        guard keepsTable else {
            // Into an empty index: the pairs are sorted once, when the load asks for them.
            pairs.beginLoading(expectedPairs: expectedRecords)
            return
        }
        pairs.forget()
        loadedEntries = []
        loadedEntries?.reserveCapacity(isUnique ? expectedRecords : 0)
    }

    /// The key `values` are indexed under.
    private func keyOf(_ values: RecordValues?) -> QueryKey {
        guard let values else { return .null }
        return QueryKey(values[field] ?? missing, conversion)
    }

    /// The key of an indexed record, read back from its values.
    private func keyOfRecord(_ id: Int64) -> QueryKey {
        keyOf(valuesOf(id))
    }

    func insert(_ id: Int64, _ values: RecordValues) {
        let key = keyOf(values)
        if case .string(let text) = key, !text.isASCII, !StringOrder.isCanonical(text.value) { nonCanonicalStringIDs.insert(id) }
        guard keepsTable else {
            pairs.add(key, id)
            return
        }
        loadedEntries?.append((key, id))
        switch table.insert(id, key, keyOf: keyOfRecord) {
        case .added:
            if pairs.isKept { pairs.keptPairAdded(key, id) }
        case .presentAlone, .presentInGroup:
            loadedEntries = nil  // inserted again: the kept pairs now hold it twice
        }
    }

    /// Removes the record, indexed under `values`. Without a table, the index trusts the rule
    /// ``RecordIndex`` follows: only a pair the index holds is removed.
    func remove(_ id: Int64, _ values: RecordValues) {
        let key = keyOf(values)
        if case .string = key, !nonCanonicalStringIDs.isEmpty { nonCanonicalStringIDs.remove(id) }
        guard keepsTable else {
            pairs.remove(key, id)
            return
        }
        loadedEntries = nil
        if table.remove(id, key), pairs.isKept { pairs.keptPairRemoved(key, id) }
    }

    /// The identifiers of the records whose value is `key`, in increasing order.
    func lookup(_ key: QueryKey) -> IdentifierList {
        guard keepsTable else {
            let sorted = pairs.current()
            return IdentifierList(sorted: sorted.ids[sorted.positions(of: key)])
        }
        return table.lookup(key, keyOf: keyOfRecord)
    }

    /// For each key: one of its records and how many there are.
    func keyCounts() -> [(id: Int64, count: Int)] {
        guard keepsTable else {
            let sorted = pairs.current()
            var counts: [(id: Int64, count: Int)] = []
            sorted.forEachRun { _, positions in counts.append((sorted.ids[positions.lowerBound], positions.count)) }
            return counts
        }
        return table.keyCounts()
    }

    /// Every pair of the table, by key and then identifier.
    func sortedEntries() -> SortedPairs {
        if pairs.isKept || !keepsTable { return pairs.current() }
        sortedRebuilds += 1
        if var entries = loadedEntries {
            loadedEntries = nil
            entries.sort(by: SortedEntries.precedes)
            pairs.keep(SortedPairs(entries))
        } else {
            pairs.keep(table.sortedPairs(keyOf: keyOfRecord))
        }
        return pairs.current()
    }
}
