/// The pairs of a sorted index, ordered by key and then identifier, and how changes are applied to
/// them without sorting them all again.
enum SortedEntries {
    typealias Entry = (key: QueryKey, id: Int64)

    /// At most this many changes are made in place, each shifting the entries after it; more are merged
    /// in one pass over all entries.
    static let inPlaceLimit = 4

    /// The index's order: by key, then by identifier.
    static func precedes(_ lhs: Entry, _ rhs: Entry) -> Bool {
        lhs.key < rhs.key || (lhs.key == rhs.key && lhs.id < rhs.id)
    }

    static func same(_ lhs: Entry, _ rhs: Entry) -> Bool {
        lhs.id == rhs.id && lhs.key == rhs.key
    }

    /// Applies pairs added and removed, in the order they changed, to `entries`. Each removal matches an
    /// entry or an earlier addition; the result is as if each change had been made in turn.
    static func apply(additions: [Entry], removals: [Entry], to entries: inout SortedPairs) {
        if additions.count + removals.count <= inPlaceLimit {
            // As counts of each pair: a removal takes back an addition of the same pair if there is one,
            // else the entry.
            var added = additions
            for removal in removals {
                if let match = added.firstIndex(where: { same($0, removal) }) {
                    added.remove(at: match)
                } else {
                    remove(removal, from: &entries)
                }
            }
            for addition in added { entries.insert(addition, at: firstPosition(notBefore: addition, in: entries)) }
            return
        }
        merge(additions: additions.sorted(by: precedes), removals: removals.sorted(by: precedes), into: &entries)
    }

    /// The position of the first entry that does not precede `entry`.
    static func firstPosition(notBefore entry: Entry, in entries: SortedPairs) -> Int {
        var low = 0
        var high = entries.count
        while low < high {
            let middle = (low + high) / 2
            if precedes(entries[middle], entry) { low = middle + 1 } else { high = middle }
        }
        return low
    }

    private static func remove(_ entry: Entry, from entries: inout SortedPairs) {
        let position = firstPosition(notBefore: entry, in: entries)
        if position < entries.count, same(entries[position], entry) { entries.remove(at: position) }
    }

    /// Merges sorted additions into `entries`, leaving out one entry for each of the sorted removals.
    private static func merge(additions: [Entry], removals: [Entry], into entries: inout SortedPairs) {
        var merged = SortedPairs.Builder(expectedCount: max(0, entries.count + additions.count - removals.count))
        var nextRemoval = 0
        func keep(_ entry: Entry) {
            // A removal before this entry matched nothing; the table only reports real ones, so this is
            // only a guard.
            while nextRemoval < removals.count, precedes(removals[nextRemoval], entry) { nextRemoval += 1 }
            if nextRemoval < removals.count, same(removals[nextRemoval], entry) {
                nextRemoval += 1
                return
            }
            merged.append(entry)
        }
        var nextAddition = 0
        for entry in entries {
            while nextAddition < additions.count, precedes(additions[nextAddition], entry) {
                keep(additions[nextAddition])
                nextAddition += 1
            }
            keep(entry)
        }
        while nextAddition < additions.count {
            keep(additions[nextAddition])
            nextAddition += 1
        }
        entries = merged.finish()
    }
}
