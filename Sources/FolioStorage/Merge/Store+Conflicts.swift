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
        /// For a value of a record a merge kept for a migration's custom stage (``AwaitingStage``):
        /// whether the record still awaits it or which transaction carried it; nil for any other.
        public var stage: StageState? = nil
    }

    /// Where a record a merge kept for a migration's custom stage stands.
    public enum StageState: Hashable, Sendable {
        /// It awaits an open with the migration plan.
        case awaiting
        /// The transaction with this identifier carried it through the plan's stages.
        case carried(by: String)
    }

    /// The conflicts that merges of this store resolved, oldest first: those recorded in the retained
    /// history and the journal after the last ``clearConflicts()``.
    ///
    /// A merge with a side that had compacted records its conflicts with that side's folded
    /// transactions only as ``JournalTransaction/folded``; they are found here from the retained history
    /// (``FoldedTransactions``), and listed with the merged transaction whose value was kept. A merge of
    /// two compacted sides records its conflicts in the snapshot headers, with the header's sequence;
    /// the transaction that wrote a lost value is looked up in the retained history (empty when it is
    /// no longer retained). A store git merged from two compacted copies lists what its
    /// reconciliation dropped (see ``CrossFileReconciliation``) with the transaction that committed it;
    /// a read-only store that applied it in memory lists it with an empty transaction identifier.
    public func conflicts() throws -> [ResolvedConflict] {
        try loadRecords()
        var found: [ResolvedConflict] = []
        let transactions = try retainedHistory()
        let folded = FoldedConflicts.find(in: transactions)
        var inHeaders = snapshotHeaderConflicts(in: transactions)[...]
        for transaction in transactions {
            while let next = inHeaders.first, next.sequence < transaction.sequence {
                found.append(next)
                inHeaders = inHeaders.dropFirst()
            }
            if transaction.clearsConflicts { found.removeAll() }
            for var conflict in transaction.conflicts + (folded[transaction.sequence] ?? []) {
                // A merge's reconciliation cannot tell which transaction wrote a reference it dropped.
                if conflict.lostTransaction.isEmpty { conflict.lostTransaction = Self.writer(of: conflict, in: transactions) ?? "" }
                found.append(ResolvedConflict(conflict: conflict, sequence: transaction.sequence, transactionID: transaction.transactionID))
            }
        }
        // A read-only store shows a git merge mended in memory; its transaction is committed later.
        let (inMemory, last) = withReadState { ($0.mend.lostInMemory, $0.state.lastSequence) }
        let mended = inMemory.map { conflict in
            var conflict = conflict
            conflict.lostTransaction = Self.writer(of: conflict, in: transactions) ?? ""
            return ResolvedConflict(conflict: conflict, sequence: last, transactionID: "")
        }
        return Self.markingStage(found + inHeaders + mended, in: transactions)
    }

    /// `conflicts` with the records merges kept for a custom stage marked as awaiting it or carried.
    private static func markingStage(_ conflicts: [ResolvedConflict], in transactions: [JournalTransaction]) -> [ResolvedConflict] {
        guard transactions.contains(where: { $0.awaitingStage != nil }) else { return conflicts }
        var carriedBy: [String: String] = [:]
        for transaction in transactions { for line in transaction.stageCarried { carriedBy[line] = transaction.transactionID } }
        struct Key: Hashable {
            var entity: String
            var id: Int64
        }
        var states: [Key: StageState] = [:]
        for transaction in transactions {
            guard let awaiting = transaction.awaitingStage else { continue }
            let state = carriedBy[transaction.transactionID].map { StageState.carried(by: $0) } ?? .awaiting
            for record in awaiting.inserted { states[Key(entity: record.entity, id: record.id)] = state }
        }
        return conflicts.map { resolved in
            var resolved = resolved
            resolved.stage = states[Key(entity: resolved.conflict.entity, id: resolved.conflict.id)]
            return resolved
        }
    }

    /// The conflicts the snapshot headers record, each at its header's sequence, by sequence, entity,
    /// record and member; `transactions` (the retained ones) name the transactions involved.
    private func snapshotHeaderConflicts(in transactions: [JournalTransaction]) -> [ResolvedConflict] {
        let (recorded, bases) = withReadState { ($0.snapshotConflicts, $0.snapshotBases) }
        guard !recorded.isEmpty else { return [] }
        let byID = Dictionary(transactions.map { ($0.sequence, $0.transactionID) }, uniquingKeysWith: { first, _ in first })
        var found: [ResolvedConflict] = []
        for (entity, conflicts) in recorded.sorted(by: { $0.key < $1.key }) {
            let sequence = bases[entity] ?? 0
            for var conflict in conflicts {
                if conflict.lostTransaction.isEmpty { conflict.lostTransaction = Self.writer(of: conflict, in: transactions) ?? "" }
                found.append(ResolvedConflict(conflict: conflict, sequence: sequence, transactionID: byID[sequence] ?? ""))
            }
        }
        return found.enumerated().sorted { ($0.element.sequence, $0.offset) < ($1.element.sequence, $1.offset) }.map(\.element)
    }

    /// The newest of `transactions` that inserted or updated the conflict's record with its lost value.
    private static func writer(of conflict: MergeConflict, in transactions: [JournalTransaction]) -> String? {
        func wrote(_ record: StoredRecord) -> Bool {
            record.id == conflict.id && record.entity == conflict.entity && record.values[conflict.member] == conflict.lost
        }
        return transactions.last { $0.inserted.contains(where: wrote) || $0.updated.contains(where: wrote) }?.transactionID
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
