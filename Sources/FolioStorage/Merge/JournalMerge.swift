/// Resolves a git merge of `journal.jsonl`: two branches that each appended transactions after a common
/// one, joined with conflict markers (a plain merge) or without them (`merge=union` in `.gitattributes`).
///
/// The transactions of the first branch (git's "ours", written first) keep their sequence numbers. Each
/// later run of transactions that restarts at a sequence already used ("theirs") is replayed after them:
/// renumbered to follow on, its inserted records given fresh identifiers (both branches allocated from the
/// same counter) and every reference to those records — relationship values, updates, deletes — rewritten
/// with the store's schema. Transactions present on both sides (the same transaction identifier) are kept
/// once. The diff3 ancestor of ``ConflictedJournal`` is not needed for this two-way resolution.
package enum JournalMerge {
    /// The merged transactions of `journal`, whose first transaction follows `base`.
    ///
    /// - Throws: ``JournalMergeFailure/missingTransactions(sequence:line:after:)`` when a sequence
    ///   number skips ahead, ``JournalMergeFailure/noSchema`` when records must be renumbered but no
    ///   schema says where the references to them are, ``JournalMergeFailure/migratedStore(line:entity:)``
    ///   when a line of either side or of the common ancestor migrates records.
    package static func merge(_ journal: ConflictedJournal, base: JournalMergeBase) throws(JournalMergeFailure) -> JournalMergeResult {
        var resolutions: [JournalMergeResolution] = []
        if journal.markerLineCount > 0 { resolutions.append(.removedConflictMarkers(count: journal.markerLineCount)) }
        // The first line with a migration, in file order, whichever section it is in.
        let migrated = (journal.entries + journal.ancestorEntries).sorted { $0.line < $1.line }
            .first { !$0.transaction.writtenMigrations.isEmpty }
        if let migrated, let migration = migrated.transaction.writtenMigrations.first {
            throw .migratedStore(line: migrated.line, entity: migration.entity)
        }
        var seenIDs = Set<String>()
        var entries: [ConflictedJournal.Entry] = []
        for entry in journal.entries {
            try check(entry)
            if seenIDs.insert(entry.transaction.transactionID).inserted {
                entries.append(entry)
            } else {
                resolutions.append(.keptOneCopy(transactionID: entry.transaction.transactionID, line: entry.line))
            }
        }

        var schema = MergeSchema(base.schema)
        var merged: [JournalTransaction] = []
        var index = 0
        while index < entries.count {
            let transaction = entries[index].transaction
            let last = merged.last?.sequence
            guard let last, transaction.sequence != last + 1 else {
                if let value = transaction.schema, let info = MergeSchema(value) { schema = info }
                merged.append(transaction)
                index += 1
                continue
            }
            if transaction.sequence > last {
                throw .missingTransactions(sequence: transaction.sequence, line: entries[index].line, after: last)
            }
            // A run that restarts after `runBase`: replay it after the merged transactions.
            let runBase = transaction.sequence - 1
            var run: [JournalTransaction] = []
            while index < entries.count, entries[index].transaction.sequence == transaction.sequence + UInt64(run.count) {
                run.append(entries[index].transaction)
                index += 1
            }
            let baseNextID = merged.last(where: { $0.sequence == runBase })?.nextID ?? base.nextID
            var renumbering = IdentifierRenumbering(next: merged.last?.nextID ?? baseNextID)
            for replayed in run {
                for record in replayed.inserted where record.id >= baseNextID { renumbering.allocate(for: record.id) }
            }
            if !renumbering.isEmpty && schema == nil { throw .noSchema }
            for var replayed in run {
                replayed.sequence = (merged.last?.sequence ?? 0) + 1
                renumbering.rewrite(&replayed, schema: schema)
                replayed.nextID = max(renumbering.next, replayed.nextID)
                if let value = replayed.schema, let info = MergeSchema(value) { schema = info }
                merged.append(replayed)
            }
            resolutions.append(
                .replayed(
                    original: transaction.sequence...(transaction.sequence + UInt64(run.count) - 1), base: runBase,
                    renumbered: (last + 1)...(merged.last?.sequence ?? last + 1), newIdentifiers: renumbering.allocated))
        }
        return JournalMergeResult(transactions: merged, resolutions: resolutions)
    }

    /// Checks the numbers a caller's transaction could hold out of range, as reading a line does, so that
    /// no sequence or identifier arithmetic here can overflow.
    private static func check(_ entry: ConflictedJournal.Entry) throws(JournalMergeFailure) {
        let transaction = entry.transaction
        guard transaction.sequence >= 1, transaction.sequence <= SequenceLimits.maximum else {
            throw .damagedLine(entry.line, "not a journal transaction: \"seq\" must be an integer from 1 to 2^62-1")
        }
        guard transaction.nextID == 0 || IdentifierLimits.isValidCounter(transaction.nextID) else {
            throw .damagedLine(entry.line, "not a journal transaction: \"nextID\" must be an integer from 1 to 2^62")
        }
    }
}
