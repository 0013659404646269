import FolioStorage

extension ModelContainer {
    /// A journal transaction as a history transaction of this container's models. Changes to entities
    /// the schema does not know are left out.
    func historyTransaction(_ journal: JournalTransaction) -> DefaultHistoryTransaction {
        var changes: [HistoryChange] = []
        var changeNumber = 0
        func identifier(_ entity: String, _ id: Int64) -> PersistentIdentifier {
            PersistentIdentifier(entityName: entity, storeIdentifier: storeIdentifier, recordNumber: id)
        }
        for record in journal.inserted {
            guard let type = schema.entitiesByName[record.entity]?.modelType else { continue }
            changeNumber += 1
            changes.append(
                .insert(Self.makeInsert(type, identifier(record.entity, record.id), changeNumber, journal.sequence, record.values.dictionary)))
        }
        for record in journal.updated {
            guard let type = schema.entitiesByName[record.entity]?.modelType else { continue }
            changeNumber += 1
            changes.append(
                .update(Self.makeUpdate(type, identifier(record.entity, record.id), changeNumber, journal.sequence, record.values.dictionary)))
        }
        for record in journal.deleted {
            guard let type = schema.entitiesByName[record.entity]?.modelType else { continue }
            changeNumber += 1
            changes.append(.delete(Self.makeDelete(type, identifier(record.entity, record.id), changeNumber, journal.sequence, record.tombstone)))
        }
        return DefaultHistoryTransaction(
            storeIdentifier: storeIdentifier, transactionIdentifier: journal.sequence, journalIdentifier: journal.transactionID,
            token: DefaultHistoryToken(storeIdentifier: storeIdentifier, sequence: journal.sequence, journalIdentifier: journal.transactionID),
            author: journal.author,
            changes: changes, timestamp: journal.timestamp)
    }

    private static func makeInsert<M: PersistentModel>(
        _ type: M.Type, _ id: PersistentIdentifier, _ change: Int, _ sequence: UInt64,
        _ values: [String: JSONValue]
    ) -> any HistoryInsert {
        DefaultHistoryInsert<M>(
            changedPersistentIdentifier: id, changeIdentifier: change, transactionIdentifier: sequence,
            values: HistoryValues(storedValues: values))
    }

    private static func makeUpdate<M: PersistentModel>(
        _ type: M.Type, _ id: PersistentIdentifier, _ change: Int, _ sequence: UInt64,
        _ values: [String: JSONValue]
    ) -> any HistoryUpdate {
        let table = M._folioKeyPathTable
        let keyPaths: [any PartialKeyPath<M> & Sendable] = values.keys.sorted().compactMap { name in
            guard let keyPath = table.first(where: { $0.1 == name })?.0 as? PartialKeyPath<M> else { return nil }
            // Key paths are immutable; the existential has the layout of the reference.
            return unsafeBitCast(keyPath, to: (any PartialKeyPath<M> & Sendable).self)
        }
        return DefaultHistoryUpdate<M>(
            changedPersistentIdentifier: id, changeIdentifier: change, transactionIdentifier: sequence,
            updatedAttributes: keyPaths, changedValues: HistoryValues(storedValues: values))
    }

    private static func makeDelete<M: PersistentModel>(
        _ type: M.Type, _ id: PersistentIdentifier, _ change: Int, _ sequence: UInt64,
        _ values: [String: JSONValue]
    ) -> any HistoryDelete {
        DefaultHistoryDelete<M>(
            changedPersistentIdentifier: id, changeIdentifier: change, transactionIdentifier: sequence,
            tombstone: HistoryTombstone(values: HistoryValues(storedValues: values)))
    }

    /// Checks that `token` still names the position it was taken at, so that reading on from it misses
    /// nothing: the transaction at its sequence is the one it was taken at, and the store has not gone
    /// back to before it.
    ///
    /// - Throws: ``FolioError/Code/historyExpired`` when a merge renumbered the transactions since the
    ///   token was taken (git merges number each side's new transactions on from the merge base), or
    ///   when the store's files were replaced by older ones (a checkout or a reset).
    func checkPosition(of token: DefaultHistoryToken) throws {
        guard token.storeIdentifier == storeIdentifier, token.sequence > 0 else { return }
        let last = store.lastSequence
        if token.sequence > last {
            throw FolioError(
                .historyExpired,
                "History token \(token) is after the store's last transaction, #\(last): its files were replaced by older ones (a git checkout or reset); fetch the current state again and continue from the newest token"
            )
        }
        guard let taken = token.journalIdentifier else { return }
        let current: String?
        do {
            current = try store.retainedTransactionID(at: token.sequence)
        } catch {
            throw FolioError(.storage, "The history could not be read", underlying: error)
        }
        // A transaction no longer retained is the expiry check's to report.
        if let current, current != taken {
            throw FolioError(
                .historyExpired,
                "History token \(token) now names another transaction: a merge (git) renumbered the store's history since it was taken, and reading on from it could skip transactions its holder never saw; fetch the current state again and continue from the newest token"
            )
        }
    }

    /// The retained transactions after `sequence`, as history transactions.
    ///
    /// - Throws: ``FolioError/Code/historyExpired`` when some of them were already removed.
    func historyTransactions(after sequence: UInt64) throws -> [DefaultHistoryTransaction] {
        do {
            return try store.history(after: sequence).map(historyTransaction)
        } catch let error as StorageError where error.code == .historyExpired {
            throw FolioError(
                .historyExpired,
                "The history after transaction \(sequence) is no longer retained (the oldest kept is \(store.oldestRetainedSequence)); fetch the current state again and continue from the newest token",
                underlying: error)
        }
    }
}

extension ModelContext {
    /// The transactions of the store's persistent history that match the descriptor, oldest first
    /// unless the descriptor sorts them otherwise.
    ///
    /// - Throws: ``FolioError/Code/historyExpired`` when the predicate asks for transactions after a
    ///   token older than the retained history (see ``ModelConfiguration/historyRetention``): the reader
    ///   must fetch the current state again and continue from the newest token.
    public func fetchHistory<T: HistoryTransaction>(_ descriptor: HistoryDescriptor<T>) throws -> [T] {
        guard T.self == DefaultHistoryTransaction.self else {
            throw FolioError(.invalidFetchDescriptor, "Folio's history is made of DefaultHistoryTransaction")
        }
        return try container.lock.withLock(refusingReentry: "ModelContext.fetchHistory(_:)") { state in
            try container.syncIndex(in: &state, fromDisk: true)
            let oldest = container.store.oldestRetainedSequence
            if let predicate = descriptor.predicate {
                for token in Self.tokens(in: predicate.expression) where token.storeIdentifier == container.storeIdentifier {
                    if token.sequence + 1 < oldest {
                        throw FolioError(
                            .historyExpired,
                            "History after \(token) is no longer retained (the oldest kept transaction is #\(oldest)); fetch the current state again and continue from the newest token"
                        )
                    }
                    try container.checkPosition(of: token)
                }
            }
            var transactions = try container.historyTransactions(after: oldest > 0 ? oldest - 1 : 0).compactMap { $0 as? T }
            if let predicate = descriptor.predicate {
                transactions = try transactions.filter { try predicate.evaluate($0) }
            }
            if !descriptor.sortBy.isEmpty {
                transactions.sort(using: descriptor.sortBy)
            }
            if descriptor.fetchLimit > 0, transactions.count > descriptor.fetchLimit {
                transactions = Array(transactions.prefix(descriptor.fetchLimit))
            }
            return transactions
        }
    }

    /// Deletes the history transactions that match the descriptor and every older one (history is a
    /// log: Folio removes it from the oldest end). The models are not affected.
    public func deleteHistory<T: HistoryTransaction>(_ descriptor: HistoryDescriptor<T>) throws {
        let matching = try fetchHistory(descriptor).compactMap { $0 as? DefaultHistoryTransaction }
        guard let newest = matching.map(\.transactionIdentifier).max() else { return }
        return try container.lock.withLock(refusingReentry: "ModelContext.deleteHistory(_:)") { state in
            do {
                try container.store.deleteHistory(through: newest)
            } catch {
                throw FolioError(.storage, "The history could not be deleted", underlying: error)
            }
            try container.syncIndex(in: &state, fromDisk: true)
        }
    }

    /// The history tokens a predicate compares against.
    static func tokens(in expression: Any) -> [DefaultHistoryToken] {
        var tokens: [DefaultHistoryToken] = []
        func walk(_ value: Any, _ depth: Int) {
            guard depth < 64 else { return }
            if let token = value as? DefaultHistoryToken {
                tokens.append(token)
                return
            }
            for child in Mirror(reflecting: value).children { walk(child.value, depth + 1) }
        }
        walk(expression, 0)
        return tokens
    }
}
