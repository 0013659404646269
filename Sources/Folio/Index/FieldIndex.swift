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
    /// Whether the index keeps its hash table (see the type's description). Without it, ``sorted``
    /// with ``pendingAdditions`` and ``pendingRemovals`` applied always holds every pair.
    let keepsTable: Bool
    /// While a store loads into an index without a table: its pairs are only gathered, to be sorted once.
    private var isLoading = false
    /// While such a load gathers a field whose keys repeat (at most half its first pairs have a key of
    /// their own): each distinct key's identifiers, in the order they came, so that the sort that ends
    /// the load sorts the distinct keys, not every pair.
    private var loadedGroups: LoadedGroups?
    /// The stored value a record without one for the field is indexed under: the field's declared default.
    private let missing: JSONValue?
    /// The current values of an indexed record, from which the keys the table does not keep are read.
    private let valuesOf: (Int64) -> RecordValues?
    /// For each hash of a key: the one record whose key has it (a record number, never negative), or
    /// the group at position `-1 - slot` of ``groups``.
    private var slots: [KeyHash: Int64] = [:]
    /// The groups the slots point to; the positions in ``freeGroups`` are unused.
    private var groups: [KeyGroup] = []
    private var freeGroups: [Int] = []
    /// The number of distinct keys in the table.
    private var tableKeyCount = 0
    private var sorted = SortedPairs()
    /// Whether ``sorted`` holds every pair once ``pendingAdditions`` and ``pendingRemovals`` are applied;
    /// false until it is first made, and after changes outnumber its pairs (it is then made again).
    private var isSortedKept = false
    /// Pairs the table gained or lost since ``sorted`` was last brought up to date, in the order they
    /// changed. Only pairs the table really gained or lost are kept, so a removal always matches a pair
    /// in ``sorted`` or an earlier addition.
    private var pendingAdditions: [(key: QueryKey, id: Int64)] = []
    private var pendingRemovals: [(key: QueryKey, id: Int64)] = []
    /// How many changes are kept for the sorted pairs, not applied yet, for tests.
    var keptChangeCount: Int { pendingAdditions.count + pendingRemovals.count }
    /// How many times ``sorted`` was made from the whole table, for tests.
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

    /// How keys are hashed: by their own hash, or for tests, by a few of its bits.
    private let hashing: KeyHash.Hashing

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
        self.hashing = hashing
        self.missing = missing
        self.valuesOf = valuesOf
    }

    /// Makes room for `additionalKeys` more keys.
    func reserveCapacity(_ additionalKeys: Int) {
        guard keepsTable else { return }
        slots.reserveCapacity(slots.count + additionalKeys)
    }

    /// How many keys the table holds before it must grow (0 without a table).
    var keyCapacity: Int { slots.capacity }

    /// The number of distinct keys.
    var keyCount: Int {
        keepsTable ? tableKeyCount : keyCounts().count
    }

    /// Sizes the table for `total` records from the keys the first `sampled` of them gave, when at
    /// least half of those records had a key of their own: a nearly unique field (a date, a name) then
    /// gets its table once, instead of growing it by doubling, which allocates and fills every smaller
    /// table on the way. A field with fewer distinct values (a city, a category) is left to grow: its
    /// keys stop multiplying long before its records do.
    func reserveCapacity(forRecords total: Int, afterSampling sampled: Int) {
        guard keepsTable else { return }
        guard sampled > 0, total > sampled, tableKeyCount * 2 >= sampled else {
            // Keys that repeat: sorting the groups' keys is cheaper than sorting every record's pair.
            loadedEntries = nil
            return
        }
        slots.reserveCapacity(Int((Double(tableKeyCount) * Double(total) / Double(sampled)).rounded(.up)))
        loadedEntries?.reserveCapacity(total)
    }

    func removeAll() {
        nonCanonicalStringIDs = []
        slots = [:]
        groups = []
        freeGroups = []
        tableKeyCount = 0
        forgetSorted()
        loadedEntries = nil
        loadedGroups = nil
        isLoading = false
    }

    /// Starts keeping each inserted key for the sorted entries (see ``loadedEntries``): a declared index
    /// about to be filled by a store's open, whose ``sortedEntries()`` then sorts them and stops.
    func beginLoading(expectedRecords: Int) {
        guard isDeclared else { return }
        guard keepsTable else {
            // Into an empty index: the pairs are sorted once, when the load asks for them.
            isLoading = true
            pendingAdditions.reserveCapacity(expectedRecords)
            return
        }
        forgetSorted()
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
            if loadedGroups != nil {
                loadedGroups?.append(key, id)
                return
            }
            pendingAdditions.append((key, id))
            if isLoading, pendingAdditions.count == SortedPairs.Builder.sample, sorted.isEmpty, pendingRemovals.isEmpty {
                loadedGroups = LoadedGroups(ifKeysRepeatIn: pendingAdditions)
                if loadedGroups != nil { pendingAdditions = [] }
            }
            settleIfOutnumbered()
            return
        }
        loadedEntries?.append((key, id))
        // One hash lookup: the slot is changed in place through the dictionary's accessor.
        if insert(id, key, into: &slots[KeyHash(key, hashing)]), isSortedKept {
            pendingAdditions.append((key, id))
            dropSortedIfOutnumbered()
        }
    }

    /// Adds the pair to the table; false if it was there already.
    private func insert(_ id: Int64, _ key: QueryKey, into slot: inout Int64?) -> Bool {
        guard let current = slot else {
            slot = id >= 0 ? id : makeGroup(KeyGroup(key, [id]))
            tableKeyCount += 1
            return true
        }
        if current >= 0 {
            if current == id {
                loadedEntries = nil  // inserted again: the kept pairs now hold it twice
                return false
            }
            let existing = keyOfRecord(current)
            if existing == key {
                slot = makeGroup(KeyGroup(key, [current, id]))
            } else {
                var group = KeyGroup(existing, [current])
                group.append(key, [id])
                slot = makeGroup(group)
                tableKeyCount += 1
            }
            return true
        }
        let position = Self.groupPosition(current)
        if let member = groups[position].keys.firstIndex(of: key) {
            let before = groups[position].ids[member].count
            groups[position].ids[member].insert(id)
            return groups[position].ids[member].count != before
        }
        groups[position].append(key, [id])
        tableKeyCount += 1
        return true
    }

    /// Removes the record, indexed under `values`. Without a table, the index trusts the rule
    /// ``RecordIndex`` follows: only a pair the index holds is removed.
    func remove(_ id: Int64, _ values: RecordValues) {
        let key = keyOf(values)
        if case .string = key, !nonCanonicalStringIDs.isEmpty { nonCanonicalStringIDs.remove(id) }
        guard keepsTable else {
            pendingRemovals.append((key, id))
            settleIfOutnumbered()
            return
        }
        loadedEntries = nil
        if remove(id, key, from: &slots[KeyHash(key, hashing)]), isSortedKept {
            pendingRemovals.append((key, id))
            dropSortedIfOutnumbered()
        }
    }

    /// Removes the pair from the table; false if it was not there.
    private func remove(_ id: Int64, _ key: QueryKey, from slot: inout Int64?) -> Bool {
        guard let current = slot else { return false }
        if current >= 0 {
            guard current == id else { return false }
            slot = nil
            tableKeyCount -= 1
            return true
        }
        let position = Self.groupPosition(current)
        guard let member = groups[position].keys.firstIndex(of: key) else { return false }
        let before = groups[position].ids[member].count
        groups[position].ids[member].remove(id)
        guard groups[position].ids[member].count != before else { return false }
        if groups[position].ids[member].isEmpty {
            groups[position].remove(at: member)
            tableKeyCount -= 1
        }
        let group = groups[position]
        if group.keys.isEmpty {
            freeGroup(position)
            slot = nil
        } else if group.keys.count == 1, group.ids[0].count == 1, let only = group.ids[0].first, only >= 0 {
            // One key of one record left: back in the slot, its key read back from the record (which,
            // not being the one changed, is indexed under its current values).
            freeGroup(position)
            slot = only
        }
        return true
    }

    /// The identifiers of the records whose value is `key`, in increasing order.
    func lookup(_ key: QueryKey) -> IdentifierList {
        guard keepsTable else {
            applyPendingChanges()
            return IdentifierList(sorted: sorted.ids[sorted.positions(of: key)])
        }
        guard let slot = slots[KeyHash(key, hashing)] else { return [] }
        if slot >= 0 {
            return keyOfRecord(slot) == key ? [slot] : []
        }
        let group = groups[Self.groupPosition(slot)]
        guard let member = group.keys.firstIndex(of: key) else { return [] }
        return group.ids[member]
    }

    /// For each key: one of its records and how many there are.
    func keyCounts() -> [(id: Int64, count: Int)] {
        guard keepsTable else {
            applyPendingChanges()
            var counts: [(id: Int64, count: Int)] = []
            sorted.forEachRun { _, positions in counts.append((sorted.ids[positions.lowerBound], positions.count)) }
            return counts
        }
        var counts: [(id: Int64, count: Int)] = []
        counts.reserveCapacity(tableKeyCount)
        for slot in slots.values {
            if slot >= 0 {
                counts.append((slot, 1))
                continue
            }
            for ids in groups[Self.groupPosition(slot)].ids {
                if let first = ids.first { counts.append((first, ids.count)) }
            }
        }
        return counts
    }

    /// Every pair of the table, by key and then identifier.
    func sortedEntries() -> SortedPairs {
        if isSortedKept || !keepsTable {
            applyPendingChanges()
            return sorted
        }
        sortedRebuilds += 1
        if var entries = loadedEntries {
            loadedEntries = nil
            entries.sort(by: Self.precedes)
            sorted = SortedPairs(entries)
            isSortedKept = true
            return sorted
        }
        // Sort the distinct keys, then list each key's identifiers: cheaper than sorting every pair when
        // keys repeat, and the same when they do not.
        var keys: [(key: QueryKey, slot: Int64, member: Int)] = []
        keys.reserveCapacity(tableKeyCount)
        var total = 0
        for slot in slots.values {
            if slot >= 0 {
                keys.append((keyOfRecord(slot), slot, 0))
                total += 1
                continue
            }
            let group = groups[Self.groupPosition(slot)]
            for (member, key) in group.keys.enumerated() {
                keys.append((key, slot, member))
                total += group.ids[member].count
            }
        }
        keys.sort { $0.key < $1.key }
        var entries = SortedPairs.Builder(expectedCount: total)
        for (key, slot, member) in keys {
            if slot >= 0 {
                entries.append((key, slot))
            } else {
                for id in groups[Self.groupPosition(slot)].ids[member] { entries.append((key, id)) }
            }
        }
        sorted = entries.finish()
        isSortedKept = true
        return sorted
    }

    /// Brings ``sorted`` up to date with the pairs changed since it last was.
    private func applyPendingChanges() {
        isLoading = false
        if let groups = loadedGroups {
            // Only made into an empty index: the groups are all its pairs but the changes kept since.
            loadedGroups = nil
            sorted = groups.sortedPairs()
        }
        guard !pendingAdditions.isEmpty || !pendingRemovals.isEmpty else { return }
        // Many additions of a field whose keys repeat: put them in order by key first, so that the sorts
        // below find them sorted and compare each pair about once.
        if pendingAdditions.count > SortedPairs.Builder.sample, let groups = LoadedGroups(grouping: pendingAdditions) {
            if sorted.isEmpty, pendingRemovals.isEmpty {
                sorted = groups.sortedPairs()
                pendingAdditions = []
                return
            }
            pendingAdditions = Array(groups.sortedPairs())
        }
        if sorted.isEmpty, pendingRemovals.isEmpty {
            // A load: the gathered pairs are sorted in place, then kept in columns.
            pendingAdditions.sort(by: Self.precedes)
            sorted = SortedPairs(pendingAdditions)
            pendingAdditions = []
            return
        }
        SortedEntries.apply(additions: pendingAdditions, removals: pendingRemovals, to: &sorted)
        pendingAdditions = []
        pendingRemovals = []
    }

    /// Stops keeping ``sorted`` once more pairs changed than it holds: making it again then costs about
    /// what the merge would, and the changes kept meanwhile would outgrow it.
    private func dropSortedIfOutnumbered() {
        if pendingAdditions.count + pendingRemovals.count > sorted.count + 4_096 { forgetSorted() }
    }

    /// Without a table, applies the changes kept once the removals among them outnumber the sorted
    /// pairs (never while a load gathers them). Additions alone are new records, at most one pair each,
    /// so what is kept stays in proportion to the index; a run of inserts sorts its pairs once, at the
    /// next read, instead of merging them again and again.
    private func settleIfOutnumbered() {
        if !isLoading, pendingRemovals.count > sorted.count + 4_096 { applyPendingChanges() }
    }

    private func forgetSorted() {
        sorted = SortedPairs()
        isSortedKept = false
        pendingAdditions = []
        pendingRemovals = []
    }

    private static func precedes(_ lhs: (key: QueryKey, id: Int64), _ rhs: (key: QueryKey, id: Int64)) -> Bool {
        SortedEntries.precedes(lhs, rhs)
    }

    // MARK: Groups

    private static func groupPosition(_ slot: Int64) -> Int {
        Int(-1 - slot)
    }

    /// Stores `group` and returns the slot that points to it.
    private func makeGroup(_ group: KeyGroup) -> Int64 {
        let position: Int
        if let free = freeGroups.popLast() {
            groups[free] = group
            position = free
        } else {
            groups.append(group)
            position = groups.count - 1
        }
        return -1 - Int64(position)
    }

    private func freeGroup(_ position: Int) {
        groups[position] = KeyGroup()
        freeGroups.append(position)
    }
}

/// A key's hash, worked out once: the table stores it in place of the key, compares it before reading
/// any key, and rehashes this integer, not every string, when it grows.
struct KeyHash: Hashable {
    let value: Int

    /// Which hash a key gets.
    enum Hashing {
        /// The key's own hash.
        case standard
        /// Only the lowest bits of it, so that different keys share hashes: for tests of the paths
        /// that keep such keys apart, which 64-bit hashes almost never take.
        case keepingLowBits(Int)
    }

    init(_ key: QueryKey, _ hashing: Hashing) {
        switch hashing {
        case .standard: value = key.hashValue
        case .keepingLowBits(let bits): value = key.hashValue & ((1 << bits) - 1)
        }
    }

    /// The table's hash of the key: the key's own hash, worked out once, mixed with the table's seed.
    ///
    /// Without this, each probe and each move while the table grows runs the standard hasher (SipHash)
    /// over the integer again, which is most of what building a large index costs. The stored hash
    /// already comes from the standard hasher (seeded per process); the mix below is a bijection of
    /// `hash ^ seed`, so tables with different seeds still order their keys differently, as the
    /// standard library's tables rely on.
    func _rawHashValue(seed: Int) -> Int {
        var mixed = UInt64(truncatingIfNeeded: value ^ seed)
        mixed ^= mixed >> 33
        mixed &*= 0xff51_afd7_ed55_8ccd
        mixed ^= mixed >> 33
        mixed &*= 0xc4ce_b9fe_1a85_ec53
        mixed ^= mixed >> 33
        return Int(truncatingIfNeeded: mixed)
    }
}

/// The keys of one hash that a ``FieldIndex`` keeps with their records: usually one key of several
/// records (a value the field repeats), rarely several keys whose hashes are the same.
struct KeyGroup {
    /// The keys, each with its records at the same position of ``ids``.
    private(set) var keys: [QueryKey] = []
    var ids: [IdentifierList] = []

    init() {}

    init(_ key: QueryKey, _ ids: IdentifierList) {
        append(key, ids)
    }

    mutating func append(_ key: QueryKey, _ ids: IdentifierList) {
        keys.append(key)
        self.ids.append(ids)
    }

    mutating func remove(at member: Int) {
        keys.remove(at: member)
        ids.remove(at: member)
    }
}

/// The pairs a load gathered for a field whose keys repeat, by key (see ``FieldIndex``).
private struct LoadedGroups {
    private var positions: [QueryKey: Int] = [:]
    private var keys: [QueryKey] = []
    private var ids: [[Int64]] = []
    private var count = 0

    /// The groups of `pairs`, or nil when more than half of them have a key of their own.
    init?(ifKeysRepeatIn pairs: [(key: QueryKey, id: Int64)]) {
        for pair in pairs {
            append(pair.key, pair.id)
            if keys.count * 2 > pairs.count { return nil }
        }
    }

    mutating func append(_ key: QueryKey, _ id: Int64) {
        count += 1
        if let position = positions[key] {
            ids[position].append(id)
        } else {
            positions[key] = keys.count
            keys.append(key)
            ids.append([id])
        }
    }

    /// The groups of all of `pairs`, when at most half of their first ``SortedPairs/Builder/sample``
    /// have a key of their own; nil otherwise.
    init?(grouping pairs: [(key: QueryKey, id: Int64)]) {
        guard LoadedGroups(ifKeysRepeatIn: Array(pairs.prefix(SortedPairs.Builder.sample))) != nil else { return nil }
        for pair in pairs { append(pair.key, pair.id) }
    }

    /// Every pair, in the index's order.
    func sortedPairs() -> SortedPairs {
        var builder = SortedPairs.Builder(expectedCount: count)
        for position in keys.indices.sorted(by: { keys[$0] < keys[$1] }) {
            var group = ids[position]
            // A load comes in record order; any other order is sorted here.
            if zip(group, group.dropFirst()).contains(where: { $0 > $1 }) { group.sort() }
            for id in group { builder.append((keys[position], id)) }
        }
        return builder.finish()
    }
}
