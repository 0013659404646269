/// The pairs a load gathered for a field whose keys repeat, by key (see ``FieldIndex``).
struct LoadedGroups {
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
