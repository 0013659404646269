/// The hash table of a ``FieldIndex``: for each key's hash, the one record whose key has it, or a
/// ``KeyGroup`` of the keys of several records (or of keys whose hashes collide).
///
/// It does not keep a key of one record: the record's value is the key, read back through `keyOf`
/// when a lookup or an insert needs to compare. That relies on the rule ``FieldIndex`` states: every
/// record in the table is indexed under the values the record index holds for it.
struct FieldKeyTable {
    /// For each hash of a key: the one record whose key has it (a record number, never negative), or
    /// the group at position `-1 - slot` of ``groups``.
    private var slots: [KeyHash: Int64] = [:]
    /// The groups the slots point to.
    private var groups = Groups()
    /// The number of distinct keys.
    private(set) var keyCount = 0
    /// How keys are hashed: by their own hash, or for tests, by a few of their bits.
    let hashing: KeyHash.Hashing

    init(hashing: KeyHash.Hashing) {
        self.hashing = hashing
    }

    /// What an insert found.
    enum Insertion {
        /// The pair is new.
        case added
        /// The pair was there already, as the key's only record.
        case presentAlone
        /// The pair was there already, in a group.
        case presentInGroup
    }

    /// How many keys the table holds before it must grow.
    var capacity: Int { slots.capacity }
    /// How many hashes the table holds: at most ``keyCount``.
    var slotCount: Int { slots.count }

    /// Makes room for `slots` hashes in all.
    mutating func reserveCapacity(_ slots: Int) {
        self.slots.reserveCapacity(slots)
    }

    mutating func removeAll() {
        self = FieldKeyTable(hashing: hashing)
    }

    /// Adds the pair.
    ///
    /// - Complexity: one hash lookup: the slot is changed in place through the dictionary's accessor.
    mutating func insert(_ id: Int64, _ key: QueryKey, keyOf: (Int64) -> QueryKey) -> Insertion {
        switch Self.insert(id, key, into: &slots[KeyHash(key, hashing)], groups: &groups, keyOf: keyOf) {
        case .addedKey:
            keyCount += 1
            return .added
        case .addedToKey: return .added
        case .presentAlone: return .presentAlone
        case .presentInGroup: return .presentInGroup
        }
    }

    /// What an insert into one slot did, for the table's count of keys.
    private enum SlotInsertion {
        case addedKey, addedToKey, presentAlone, presentInGroup
    }

    /// Adds the pair to the slot of its hash.
    private static func insert(
        _ id: Int64, _ key: QueryKey, into slot: inout Int64?, groups: inout Groups,
        keyOf: (Int64) -> QueryKey
    ) -> SlotInsertion {
        guard let current = slot else {
            slot = id >= 0 ? id : groups.make(KeyGroup(key, [id]))
            return .addedKey
        }
        if current >= 0 {
            if current == id { return .presentAlone }
            let existing = keyOf(current)
            if existing == key {
                slot = groups.make(KeyGroup(key, [current, id]))
                return .addedToKey
            }
            var group = KeyGroup(existing, [current])
            group.append(key, [id])
            slot = groups.make(group)
            return .addedKey
        }
        let position = Groups.position(current)
        if let member = groups.list[position].keys.firstIndex(of: key) {
            let before = groups.list[position].ids[member].count
            groups.list[position].ids[member].insert(id)
            return groups.list[position].ids[member].count != before ? .addedToKey : .presentInGroup
        }
        groups.list[position].append(key, [id])
        return .addedKey
    }

    /// Removes the pair; false if it was not there.
    mutating func remove(_ id: Int64, _ key: QueryKey) -> Bool {
        let (removed, keyGone) = Self.remove(id, key, from: &slots[KeyHash(key, hashing)], groups: &groups)
        if keyGone { keyCount -= 1 }
        return removed
    }

    /// Removes the pair from the slot of its hash: whether it was there, and whether its key went with it.
    private static func remove(_ id: Int64, _ key: QueryKey, from slot: inout Int64?, groups: inout Groups) -> (removed: Bool, keyGone: Bool) {
        guard let current = slot else { return (false, false) }
        if current >= 0 {
            guard current == id else { return (false, false) }
            slot = nil
            return (true, true)
        }
        let position = Groups.position(current)
        guard let member = groups.list[position].keys.firstIndex(of: key) else { return (false, false) }
        let before = groups.list[position].ids[member].count
        groups.list[position].ids[member].remove(id)
        guard groups.list[position].ids[member].count != before else { return (false, false) }
        var keyGone = false
        if groups.list[position].ids[member].isEmpty {
            groups.list[position].remove(at: member)
            keyGone = true
        }
        let group = groups.list[position]
        if group.keys.isEmpty {
            groups.free(position)
            slot = nil
        } else if group.keys.count == 1, group.ids[0].count == 1, let only = group.ids[0].first, only >= 0 {
            // One key of one record left: back in the slot, its key read back from the record (which,
            // not being the one changed, is indexed under its current values).
            groups.free(position)
            slot = only
        }
        return (true, keyGone)
    }

    /// The identifiers of the records whose key is `key`, in increasing order.
    func lookup(_ key: QueryKey, keyOf: (Int64) -> QueryKey) -> IdentifierList {
        guard let slot = slots[KeyHash(key, hashing)] else { return [] }
        if slot >= 0 {
            return keyOf(slot) == key ? [slot] : []
        }
        let group = groups.list[Groups.position(slot)]
        guard let member = group.keys.firstIndex(of: key) else { return [] }
        return group.ids[member]
    }

    /// For each key: one of its records and how many there are.
    func keyCounts() -> [(id: Int64, count: Int)] {
        var counts: [(id: Int64, count: Int)] = []
        counts.reserveCapacity(keyCount)
        for slot in slots.values {
            if slot >= 0 {
                counts.append((slot, 1))
                continue
            }
            for ids in groups.list[Groups.position(slot)].ids {
                if let first = ids.first { counts.append((first, ids.count)) }
            }
        }
        return counts
    }

    /// Every pair, by key and then identifier: the distinct keys sorted, then each key's identifiers
    /// listed, which is cheaper than sorting every pair when keys repeat, and the same when they do not.
    func sortedPairs(keyOf: (Int64) -> QueryKey) -> SortedPairs {
        var keys: [(key: QueryKey, slot: Int64, member: Int)] = []
        keys.reserveCapacity(keyCount)
        var total = 0
        for slot in slots.values {
            if slot >= 0 {
                keys.append((keyOf(slot), slot, 0))
                total += 1
                continue
            }
            let group = groups.list[Groups.position(slot)]
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
                for id in groups.list[Groups.position(slot)].ids[member] { entries.append((key, id)) }
            }
        }
        return entries.finish()
    }

    /// The groups slots point to; the positions in ``free`` are unused.
    private struct Groups {
        var list: [KeyGroup] = []
        private var unused: [Int] = []

        /// The position in ``list`` of the group a negative slot points to.
        static func position(_ slot: Int64) -> Int {
            Int(-1 - slot)
        }

        /// Stores `group` and returns the slot that points to it.
        mutating func make(_ group: KeyGroup) -> Int64 {
            let position: Int
            if let free = unused.popLast() {
                list[free] = group
                position = free
            } else {
                list.append(group)
                position = list.count - 1
            }
            return -1 - Int64(position)
        }

        mutating func free(_ position: Int) {
            list[position] = KeyGroup()
            unused.append(position)
        }
    }
}
