import FolioStorage

/// A store's retained transactions and, for each record, the positions of those that changed it: what
/// the record page and the log pages read, kept up to date by reading only newer transactions.
struct RecordHistoryIndex: Sendable {
    /// Every retained transaction, oldest first.
    private(set) var transactions: [JournalTransaction] = []
    /// The positions in ``transactions`` of each record's changes, ascending.
    private var positions: [Int64: [Int]] = [:]
    /// The store's last sequence when the index was last brought up to date; nil before the first time.
    private var covered: UInt64?

    /// Brings the index up to the store's current state: the transactions after the last it read, or,
    /// when compaction dropped some it holds or those after it, the whole retained history again.
    ///
    /// - Complexity: O(changes in new transactions), or O(changes in the retained history).
    mutating func update(from store: Store) throws {
        let last = store.lastSequence
        if covered == last { return }
        if let covered, let first = transactions.first, first.sequence >= store.oldestRetainedSequence,
            let newer = try? store.history(after: covered)
        {
            append(newer)
        } else {
            self = RecordHistoryIndex()
            append(try store.retainedHistory())
        }
        covered = last
    }

    private mutating func append(_ newer: [JournalTransaction]) {
        for transaction in newer {
            let position = transactions.count
            transactions.append(transaction)
            var seen = Set<Int64>()
            for id in transaction.inserted.map(\.id) + transaction.updated.map(\.id) + transaction.deleted.map(\.id) where seen.insert(id).inserted {
                positions[id, default: []].append(position)
            }
        }
    }

    /// The retained transactions that changed record `id`, oldest first, each with its change.
    func history(of id: Int64) -> [RecordDetails.HistoryEntry] {
        (positions[id] ?? []).compactMap { position in
            let transaction = transactions[position]
            return LogCommand.change(of: id, in: transaction).map { RecordDetails.HistoryEntry(transaction: transaction, change: $0) }
        }
    }
}
