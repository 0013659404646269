import Foundation

extension StoreLoader {
    /// The records of the store in `paths` as they were after transaction `sequence`, built by the
    /// phases of a normal load without writing anything.
    ///
    /// From the compaction point (the manifest's `sequence`) on, the snapshots plus the journal's
    /// transactions up to `sequence` (``JournalPhase`` stopping there). Before it, the snapshots rolled
    /// back through the retained history's values (``HistoryRollback``): how far back that reaches
    /// depends on what ``StoreConfiguration/historyRetention`` kept at the last compaction.
    ///
    /// Every problem of the files throws, as when opening. A manifest that asks for a git merge's mend
    /// gets it in memory, as a read-only open does, and reaches back to the compaction point only.
    ///
    /// - Throws: ``StorageError/Code/historyExpired`` naming the oldest reachable sequence when
    ///   `sequence` is older; ``StorageError/Code/missingSequence`` when the store has not reached it.
    static func state(asOf sequence: UInt64, _ paths: StorePaths, configuration: StoreConfiguration) throws -> StoreState {
        var configuration = configuration
        configuration.readOnly = true
        let fs = configuration.fileSystem
        try StoreFileSafety.check(paths, fileSystem: fs)
        let context = LoadContext(paths: paths, configuration: configuration, checkingBlobReferences: false, unsafePaths: [])
        let report: (StorageError) throws -> Void = { throw $0 }
        guard let manifest = try ManifestPhase.read(context, report: report) else {
            // No store yet: empty as of sequence 0, and nothing after.
            guard sequence == 0 else { throw StorageError(.missingSequence, "the store has no transaction \(sequence) yet: it has none", file: paths.manifest) }
            return StoreState()
        }
        var loaded = LoadedStore()
        loaded.manifest = manifest
        loaded.state = ManifestPhase.initialState(manifest)
        let snapshots = try SnapshotPhase.read(into: &loaded.state, context, report: report)
        loaded.snapshotConflicts = snapshots.conflicts
        let journal = try JournalPhase.replay(
            onto: &loaded.state, manifest: manifest, bases: snapshots.bases, context, through: max(sequence, manifest.sequence), report: report)
        loaded.take(journal)
        try reportDisagreements(loaded.state, snapshots: snapshots, journal: journal, context: context, report: report)
        let last = max(journal.lastSequence, manifest.sequence)
        guard sequence <= last else {
            throw StorageError(.missingSequence, "the store has no transaction \(sequence) yet: its last is \(last)", file: paths.journal)
        }
        let fileHistory = try HistoryPhase.read(paths, configuration: configuration, report: report)
        loaded.history = HistoryPhase.combining(history: fileHistory, journal: journal.transactions)
        try loaded.mendMerge(paths, configuration: configuration, historyFileRead: true, report: report)
        guard sequence < manifest.sequence else { return loaded.state }
        let rollback = HistoryRollback(history: loaded.history, compactionPoint: manifest.sequence)
        let oldest = manifest.needsReconciliation ? manifest.sequence : rollback.oldestReachable
        guard sequence >= oldest else {
            throw StorageError(
                .historyExpired,
                "the store can go back to sequence \(oldest) but not to \(sequence): the transactions that would rebuild it are no longer retained (a compaction keeps what historyRetention allows)",
                file: paths.history)
        }
        rollback.rollBack(&loaded.state, to: sequence)
        return loaded.state
    }
}

/// The records of a store as they were after one transaction (see ``Store/records(asOf:at:configuration:)``).
package struct PastRecords: Sendable {
    /// The records; their ``StoreRecords/lastSequence`` is the transaction asked for.
    package let records: StoreRecords
    /// The store's metadata slot after that transaction.
    package let schema: JSONValue?
}

extension Store {
    /// The records of the store in `directory` as they were after transaction `sequence`, read from its
    /// files without opening the store, taking its lock or writing anything.
    ///
    /// - Throws: ``StorageError/Code/historyExpired`` naming the oldest sequence the retained history
    ///   reaches when `sequence` is older; ``StorageError/Code/missingSequence`` when the store has not
    ///   reached `sequence`; any error opening the store would throw for damaged files.
    package static func records(
        asOf sequence: UInt64, at directory: URL, configuration: StoreConfiguration = StoreConfiguration()
    ) throws -> PastRecords {
        let state = try StoreLoader.state(asOf: sequence, StorePaths(directory: directory.path), configuration: configuration)
        return PastRecords(records: state.version, schema: state.schema)
    }
}
