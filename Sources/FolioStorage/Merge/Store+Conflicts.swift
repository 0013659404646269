extension Store {
    /// Every retained transaction, oldest first: `history.jsonl`'s and the journal's.
    package func retainedHistory() throws -> [JournalTransaction] {
        let statistics = try statistics()
        let after = statistics.lastSequence - min(UInt64(statistics.retainedTransactions), statistics.lastSequence)
        do {
            return try history(after: after)
        } catch let error as StorageError where error.code == .historyExpired {
            return []
        }
    }

    /// A conflict a merge resolved, with the transaction that won it.
    public struct ResolvedConflict: Hashable, Sendable {
        /// The value lost and the one kept.
        public var conflict: MergeConflict
        /// The sequence number of the transaction whose change was kept.
        public var sequence: UInt64
        /// Its identifier.
        public var transactionID: String
    }

    /// The conflicts that merges of this store resolved, oldest first: those recorded in the retained
    /// history and the journal after the last ``clearConflicts()``.
    ///
    /// A merge with a side that had compacted records its conflicts with that side's folded
    /// transactions only as ``JournalTransaction/folded``; they are found here from the retained history
    /// (``FoldedTransactions``), and listed with the merged transaction whose value was kept.
    public func conflicts() throws -> [ResolvedConflict] {
        var found: [ResolvedConflict] = []
        let transactions = try retainedHistory()
        let folded = FoldedConflicts.find(in: transactions)
        for transaction in transactions {
            if transaction.clearsConflicts { found.removeAll() }
            for conflict in transaction.conflicts + (folded[transaction.sequence] ?? []) {
                found.append(ResolvedConflict(conflict: conflict, sequence: transaction.sequence, transactionID: transaction.transactionID))
            }
        }
        return found
    }

    /// Forgets the conflicts ``conflicts()`` lists, by committing a transaction that says so.
    ///
    /// - Returns: the transaction, or nil when there was nothing to forget.
    @discardableResult
    public func clearConflicts(author: String? = nil) throws -> JournalTransaction? {
        guard try !conflicts().isEmpty else { return nil }
        return try write(author: author) { $0.clearsConflicts = true }
    }
}
