extension Store {
    /// What a read-only store mended in memory of files git merged from two compacted copies (see
    /// ``CrossFileReconciliation``), as a sentence; nil when it mended nothing.
    package var inMemoryReconciliationNote: String? {
        withReadState { $0.mend.note }
    }

    /// Commits the ``CrossFileReconciliation`` of a store git merged from two compacted copies, then
    /// writes the manifest again without its mark (``Manifest/needsReconciliation``), with the snapshot
    /// sizes read, so that the next open can trust their headers again.
    ///
    /// Caller holds the writer lock and the exclusive file lock, and has caught up. The manifest is read
    /// again first: another process may have reconciled or compacted since. A crash between the commit
    /// and the manifest leaves the mark, and the next open finds nothing left to mend.
    ///
    /// When the merge base's journal held transactions that both sides folded, their replay
    /// (``BaseJournalReplay``) is committed first, as a transaction of its own.
    ///
    /// - Returns: the transactions that mended the records (none when nothing needed it).
    @discardableResult
    func reconcileMergeLocked(_ journal: inout JournalWriter) throws -> [JournalTransaction] {
        guard let paths, !configuration.readOnly, withReadState({ $0.mend.isPending }) else { return [] }
        let manifest = try Manifest.decode(try fs.readSmallFile(paths.manifest), path: paths.manifest)
        guard manifest.needsReconciliation else {
            withReadState { $0.mend.finish() }
            return []
        }
        var committed: [JournalTransaction] = []
        func commitMend(updated: [StoredRecord], deleted: [DeletedRecord], conflicts: [MergeConflict]) throws {
            var transaction = WriteTransaction(
                base: withState { $0 }, block: nil, knownEntities: nil,
                blobWriter: { _ in throw StorageError(.invalidTransaction, "a merge's reconciliation stores no blob") })
            for record in deleted { try transaction.delete(entity: record.entity, id: record.id) }
            for record in updated { try transaction.update(entity: record.entity, id: record.id, values: record.values) }
            transaction.recordedConflicts = conflicts
            committed.append(try commit(&transaction, author: CrossFileReconciliation.author, journal: &journal))
        }
        let (mergedBase, fileHistory, retained) = withReadState { ($0.mend.mergedBase, $0.mend.baseHistory, $0.retained) }
        if let mergedBase {
            let state = withState { $0 }
            let replay = try BaseJournalReplay(
                state: state, history: fileHistory + retained.filter { $0.sequence > manifest.sequence }, mergedBase: mergedBase,
                compactionPoint: manifest.sequence, schema: MergeSchema(state.schema), historyPath: paths.history)
            if !replay.isEmpty { try commitMend(updated: replay.updates, deleted: replay.deletes, conflicts: replay.conflicts) }
        }
        let base = withState { $0 }
        let reconciliation = CrossFileReconciliation(state: base, schema: MergeSchema(base.schema))
        if !reconciliation.isEmpty {
            try commitMend(updated: reconciliation.updatedRecords, deleted: reconciliation.deletes, conflicts: reconciliation.conflicts)
        }
        var mended = manifest
        mended.needsReconciliation = false
        // Only the sizes of files that are still the ones read: a header is trusted only for those.
        let read = withReadState { $0.snapshotSizes }
        mended.snapshotBytes = [:]
        for (entity, size) in read where try fs.status(atPath: paths.snapshot(entity))?.size == size {
            mended.snapshotBytes[entity] = size
        }
        try fs.replaceFile(at: paths.manifest, with: try mended.encoded())
        withReadState { $0.mend.finish() }
        return committed
    }

    /// ``reconcileMergeLocked(_:)`` for a caller that holds the writer lock and no file lock: takes the
    /// exclusive one and catches up first.
    ///
    /// - Returns: what catching up brought, then the reconciliation's transaction.
    func reconcileMergeIfPending(_ journal: inout JournalWriter) throws -> [JournalTransaction] {
        guard paths != nil, !configuration.readOnly, withReadState({ $0.mend.isPending }) else { return [] }
        try journal.takeFileLock(fs, exclusive: true)
        defer { journal.releaseFileLock(fs) }
        var found = try catchUp(&journal)
        found += try reconcileMergeLocked(&journal)
        return found
    }
}
