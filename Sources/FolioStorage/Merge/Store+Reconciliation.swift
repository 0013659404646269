extension Store {
    /// What a read-only store mended in memory of files git merged from two compacted copies (see
    /// ``CrossFileReconciliation``), as a sentence; nil when it mended nothing.
    package var inMemoryReconciliationNote: String? {
        withReadState { $0.reconciliationNote }
    }

    /// Commits the ``CrossFileReconciliation`` of a store git merged from two compacted copies, then
    /// writes the manifest again without its mark (``Manifest/needsReconciliation``), with the snapshot
    /// sizes read, so that the next open can trust their headers again.
    ///
    /// Caller holds the writer lock and the exclusive file lock, and has caught up. The manifest is read
    /// again first: another process may have reconciled or compacted since. A crash between the commit
    /// and the manifest leaves the mark, and the next open finds nothing left to mend.
    ///
    /// - Returns: the transaction that mended the records, or nil when nothing needed it.
    @discardableResult
    func reconcileMergeLocked(_ journal: inout JournalWriter) throws -> JournalTransaction? {
        guard let paths, !configuration.readOnly, withReadState({ $0.reconciliationPending }) else { return nil }
        let manifest = try Manifest.decode(try fs.readSmallFile(paths.manifest), path: paths.manifest)
        guard manifest.needsReconciliation else {
            withReadState { $0.reconciliationPending = false }
            return nil
        }
        let base = withState { $0 }
        let reconciliation = CrossFileReconciliation(state: base, schema: MergeSchema(base.schema))
        var committed: JournalTransaction? = nil
        if !reconciliation.isEmpty {
            var transaction = WriteTransaction(
                base: base, block: nil, knownEntities: nil,
                blobWriter: { _ in throw StorageError(.invalidTransaction, "a merge's reconciliation stores no blob") })
            for deleted in reconciliation.deletes { try transaction.delete(entity: deleted.entity, id: deleted.id) }
            for record in reconciliation.updatedRecords { try transaction.update(entity: record.entity, id: record.id, values: record.values) }
            transaction.recordedConflicts = reconciliation.conflicts
            committed = try commit(&transaction, author: CrossFileReconciliation.author, journal: &journal)
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
        withReadState { $0.reconciliationPending = false }
        return committed
    }

    /// ``reconcileMergeLocked(_:)`` for a caller that holds the writer lock and no file lock: takes the
    /// exclusive one and catches up first.
    ///
    /// - Returns: what catching up brought, then the reconciliation's transaction.
    func reconcileMergeIfPending(_ journal: inout JournalWriter) throws -> [JournalTransaction] {
        guard paths != nil, !configuration.readOnly, withReadState({ $0.reconciliationPending }) else { return [] }
        try journal.takeFileLock(fs, exclusive: true)
        defer { journal.releaseFileLock(fs) }
        var found = try catchUp(&journal)
        if let committed = try reconcileMergeLocked(&journal) { found.append(committed) }
        return found
    }
}
