/// The pairs of a ``FieldIndex`` in key order, with the changes made since they were last brought up
/// to date, applied at the next read: merged in one pass (or, for a few, inserted and removed in
/// place by binary search) instead of every pair being sorted again.
///
/// An index with a table keeps them once asked for (``isKept``) and may drop them when changes
/// outnumber them; an index without one always holds every pair here, gathered while a load runs
/// (by key, in ``LoadedGroups``, when keys repeat) and sorted once when the load ends.
struct SortedFieldPairs {
    private var sorted = SortedPairs()
    /// Whether ``sorted`` with the pending changes applied holds every pair; for an index with a table,
    /// false until they are first made, and after changes outnumber them (they are then made again).
    private(set) var isKept = false
    /// Pairs gained or lost since ``sorted`` was last brought up to date, in the order they changed.
    /// Only real gains and losses are kept, so a removal always matches a pair in ``sorted`` or an
    /// earlier addition.
    private var pendingAdditions: [(key: QueryKey, id: Int64)] = []
    private var pendingRemovals: [(key: QueryKey, id: Int64)] = []
    /// While a load gathers the pairs of an index without a table: they are only gathered, to be
    /// sorted once.
    private var isLoading = false
    /// While such a load gathers a field whose keys repeat (at most half its first pairs have a key of
    /// their own): each distinct key's identifiers, in the order they came, so that the sort that ends
    /// the load sorts the distinct keys, not every pair.
    private var loadedGroups: LoadedGroups?

    /// How many changes are kept, not applied yet, for tests.
    var pendingCount: Int { pendingAdditions.count + pendingRemovals.count }

    /// Starts a load into an empty index without a table.
    mutating func beginLoading(expectedPairs: Int) {
        isLoading = true
        pendingAdditions.reserveCapacity(expectedPairs)
    }

    /// Every pair, brought up to date.
    mutating func current() -> SortedPairs {
        applyPendingChanges()
        return sorted
    }

    /// Keeps `pairs`, made from the whole table, as every pair.
    mutating func keep(_ pairs: SortedPairs) {
        sorted = pairs
        isKept = true
    }

    /// Drops the pairs and the pending changes (an index with a table makes them again when asked).
    mutating func forget() {
        sorted = SortedPairs()
        isKept = false
        pendingAdditions = []
        pendingRemovals = []
    }

    /// Forgets everything, a load in progress included.
    mutating func removeAll() {
        forget()
        loadedGroups = nil
        isLoading = false
    }

    // MARK: Changes of an index with a table

    /// A pair the table gained, while the pairs are kept.
    mutating func keptPairAdded(_ key: QueryKey, _ id: Int64) {
        pendingAdditions.append((key, id))
        forgetIfOutnumbered()
    }

    /// A pair the table lost, while the pairs are kept.
    mutating func keptPairRemoved(_ key: QueryKey, _ id: Int64) {
        pendingRemovals.append((key, id))
        forgetIfOutnumbered()
    }

    /// Stops keeping the pairs once more changed than they hold: making them again then costs about
    /// what the merge would, and the changes kept meanwhile would outgrow them.
    private mutating func forgetIfOutnumbered() {
        if pendingAdditions.count + pendingRemovals.count > sorted.count + 4_096 { forget() }
    }

    // MARK: Changes of an index without a table

    /// A pair of an index without a table.
    mutating func add(_ key: QueryKey, _ id: Int64) {
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
    }

    /// A pair an index without a table loses. It trusts the rule ``RecordIndex`` follows: only a pair
    /// the index holds is removed.
    mutating func remove(_ key: QueryKey, _ id: Int64) {
        pendingRemovals.append((key, id))
        settleIfOutnumbered()
    }

    /// Applies the changes kept once the removals among them outnumber the sorted pairs (never while a
    /// load gathers them). Additions alone are new records, at most one pair each, so what is kept
    /// stays in proportion to the index; a run of inserts sorts its pairs once, at the next read,
    /// instead of merging them again and again.
    private mutating func settleIfOutnumbered() {
        if !isLoading, pendingRemovals.count > sorted.count + 4_096 { applyPendingChanges() }
    }

    /// Brings ``sorted`` up to date with the pairs changed since it last was.
    private mutating func applyPendingChanges() {
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
            pendingAdditions.sort(by: SortedEntries.precedes)
            sorted = SortedPairs(pendingAdditions)
            pendingAdditions = []
            return
        }
        SortedEntries.apply(additions: pendingAdditions, removals: pendingRemovals, to: &sorted)
        pendingAdditions = []
        pendingRemovals = []
    }
}
