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
