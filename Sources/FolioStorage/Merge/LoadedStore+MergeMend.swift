import Foundation

/// The step after loading that mends what git did to a store merged from two compacted copies.
extension LoadedStore {
    /// Decides what a git merge of two compacted copies needs mended, after the other phases.
    ///
    /// - Input: a complete load (records, history, snapshot conflicts, the journal's compaction mark)
    ///   of a manifest that asks for a mend (``Manifest/needsReconciliation``) or snapshots that record
    ///   conflicts.
    /// - Output: when the mark names a merge base whose journal both sides folded, the history lines
    ///   its replay needs (``MergeMend/baseHistory``) and the snapshot conflicts that replay decides
    ///   removed. Then, for a manifest asking for a mend: a read-only store's records mended in memory
    ///   (``reconcileInMemory(replaying:)``), or a writable store's mend left pending
    ///   (``MergeMend/isPending``) for `Store.open` to commit.
    /// - Invariant: nothing is written; a load of a manifest that asks for no mend and of snapshots that
    ///   record no conflicts is left as it is.
    ///
    /// - Parameter historyFileRead: whether ``history`` already holds `history.jsonl`'s transactions;
    ///   otherwise the file is read here when the replay needs it.
    mutating func mendMerge(
        _ paths: StorePaths, configuration: StoreConfiguration, historyFileRead: Bool, report: (StorageError) throws -> Void
    ) throws {
        // A merge of two copies that compacted a base with transactions in its journal: the replay of
        // that journal decides what the snapshot merge guessed (see ``BaseJournalReplay``).
        var replay: BaseJournalReplay? = nil
        if let mergedBase = mend.mergedBase, manifest.needsReconciliation || !snapshotConflicts.isEmpty {
            mend.baseHistory =
                historyFileRead
                ? history.filter { $0.sequence <= manifest.sequence }
                : try HistoryPhase.read(paths, configuration: configuration, report: report)
            do {
                replay = try baseJournalReplay(mergedBase, compactionPoint: manifest.sequence, historyPath: paths.history)
                snapshotConflicts = replay?.superseding(snapshotConflicts) ?? snapshotConflicts
            } catch let error as StorageError {
                try report(error)
            }
        }
        if manifest.needsReconciliation {
            if configuration.readOnly { reconcileInMemory(replaying: replay) } else { mend.isPending = true }
        }
    }

    /// Applies the ``CrossFileReconciliation`` a git-merged manifest asks for to the records in memory,
    /// without a transaction: what a read-only store shows of a merge it cannot write to.
    /// A ``BaseJournalReplay`` comes first.
    mutating func reconcileInMemory(replaying replay: BaseJournalReplay?) {
        var parts: [String] = []
        if let replay, !replay.isEmpty {
            applyInMemory(updated: replay.updates, deleted: replay.deletes)
            mend.lostInMemory += replay.conflicts
            parts.append(replay.summary)
        }
        let reconciliation = CrossFileReconciliation(state: state, schema: MergeSchema(state.schema))
        if !reconciliation.isEmpty {
            applyInMemory(updated: reconciliation.updatedRecords, deleted: reconciliation.deletes)
            mend.lostInMemory += reconciliation.conflicts
            parts.append(reconciliation.summary)
        }
        guard !parts.isEmpty else { return }
        let note =
            "git merged the snapshot files one by one; mended in memory: \(parts.joined(separator: "; ")). The next writable open commits the mend (folio conflicts lists what it dropped)"
        mend.note = note
        warnings.append(note)
    }

    /// Applies changes to the records without a transaction.
    private mutating func applyInMemory(updated: [StoredRecord], deleted: [DeletedRecord]) {
        let changes = JournalTransaction(
            sequence: state.lastSequence, transactionID: "", timestamp: Timestamp.truncated(Date()), author: CrossFileReconciliation.author,
            inserted: [], updated: updated, deleted: deleted, nextID: state.nextID)
        _ = state.apply(changes, globalBase: state.lastSequence)
    }

    /// The ``BaseJournalReplay`` of the loaded records, from the history file's lines and the journal's.
    func baseJournalReplay(_ mergedBase: MergedBase, compactionPoint: UInt64, historyPath: String) throws -> BaseJournalReplay {
        try BaseJournalReplay(
            state: state, history: mend.baseHistory + history.filter { $0.sequence > compactionPoint }, mergedBase: mergedBase,
            compactionPoint: compactionPoint, schema: MergeSchema(state.schema), historyPath: historyPath)
    }
}
