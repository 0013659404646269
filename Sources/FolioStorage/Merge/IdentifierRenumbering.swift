/// New identifiers for the records a replayed branch inserted, allocated in order from the merged
/// journal's counter, and the rewriting of a transaction's records and references to use them.
struct IdentifierRenumbering {
    /// The next identifier to allocate.
    private(set) var next: Int64
    private var mapping: [Int64: Int64] = [:]
    private var first: Int64?

    init(next: Int64) {
        self.next = next
    }

    /// A rewriting of the identifiers `mapping` names (its keys) into others (its values), allocating none.
    init(mapping: [Int64: Int64]) {
        self.next = 0
        self.mapping = mapping
    }

    /// Whether no identifier was renumbered.
    var isEmpty: Bool { mapping.isEmpty }

    /// The identifiers allocated, if any; they are contiguous.
    var allocated: ClosedRange<Int64>? { first.map { $0...(next - 1) } }

    /// Gives `id` the next identifier, unless it has one already.
    mutating func allocate(for id: Int64) {
        guard mapping[id] == nil else { return }
        mapping[id] = next
        if first == nil { first = next }
        next += 1
    }

    /// Rewrites the identifiers of `transaction`'s records, and the relationship values (`schema` says
    /// which; none without one) of their values and tombstones; each list stays sorted by identifier.
    func rewrite(_ transaction: inout JournalTransaction, schema: MergeSchema?) {
        transaction.inserted = transaction.inserted.map { rewritten($0, schema: schema) }.sorted { $0.id < $1.id }
        transaction.updated = transaction.updated.map { rewritten($0, schema: schema) }.sorted { $0.id < $1.id }
        transaction.deleted = transaction.deleted.map { record in
            var record = record
            record.id = mapping[record.id] ?? record.id
            for name in schema?.relationships(of: record.entity) ?? [] {
                if let value = record.tombstone[name] { record.tombstone[name] = rewritten(value) }
            }
            return record
        }.sorted { $0.id < $1.id }
    }

    func rewritten(_ record: StoredRecord, schema: MergeSchema?) -> StoredRecord {
        var record = record
        record.id = mapping[record.id] ?? record.id
        for name in schema?.relationships(of: record.entity) ?? [] {
            if let value = record.values[name] { record.values[name] = rewritten(value) }
        }
        return record
    }

    /// A relationship value with renumbered targets: an identifier, or an array of them.
    private func rewritten(_ value: JSONValue) -> JSONValue {
        switch value {
        case .int(let target): return .int(mapping[target] ?? target)
        case .array(let targets): return .array(targets.map { $0.intValue.map { .int(mapping[$0] ?? $0) } ?? $0 })
        default: return value
        }
    }
}
