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
        try past(asOf: sequence, paths, configuration: configuration).state
    }

    /// ``state(asOf:_:configuration:)``, with the retained history up to and including `sequence`
    /// (``LoadedStore/history``, the history file's and the journal's): what a store that saw only the
    /// transactions up to `sequence` would return from ``Store/history(after:)``, as far back as the
    /// files still hold it.
    static func past(asOf sequence: UInt64, _ paths: StorePaths, configuration: StoreConfiguration) throws -> LoadedStore {
        guard var files = try readForPast(paths, configuration: configuration, through: sequence) else {
            // No store yet: empty as of sequence 0, and nothing after.
            guard sequence == 0 else {
                throw StorageError(.missingSequence, "the store has no transaction \(sequence) yet: it has none", file: paths.manifest)
            }
            return LoadedStore()
        }
        guard sequence <= files.last else {
            throw StorageError(.missingSequence, "the store has no transaction \(sequence) yet: its last is \(files.last)", file: paths.journal)
        }
        let compactionPoint = files.loaded.manifest.sequence
        guard sequence < compactionPoint else {
            files.loaded.history.removeAll { $0.sequence > sequence }
            return files.loaded
        }
        let rollback = HistoryRollback(history: files.loaded.history, compactionPoint: compactionPoint)
        let oldest = files.loaded.manifest.needsReconciliation ? compactionPoint : rollback.oldestReachable
        guard sequence >= oldest else {
            throw StorageError(
                .historyExpired,
                "the store can go back to sequence \(oldest) but not to \(sequence): the transactions that would rebuild it are no longer retained (a compaction keeps what historyRetention allows)",
                file: paths.history)
        }
        rollback.rollBack(&files.loaded.state, to: sequence)
        files.loaded.history.removeAll { $0.sequence > sequence }
        return files.loaded
    }

    /// The oldest and the newest sequence ``past(asOf:_:configuration:)`` can rebuild the store in
    /// `paths` at: `(0, 0)` for a directory that holds no store yet.
    static func reach(_ paths: StorePaths, configuration: StoreConfiguration) throws -> (oldest: UInt64, last: UInt64) {
        guard let files = try readForPast(paths, configuration: configuration, through: .max) else { return (0, 0) }
        let manifest = files.loaded.manifest
        if manifest.needsReconciliation || manifest.sequence == 0 { return (manifest.sequence, files.last) }
        return (HistoryRollback(history: files.loaded.history, compactionPoint: manifest.sequence).oldestReachable, files.last)
    }

    /// The snapshots with the journal's transactions up to `sequence` (at least up to the compaction
    /// point) applied, every retained transaction, and the store's last sequence; nil when `paths` holds
    /// no manifest. Reads as a read-only open does, and writes nothing.
    private static func readForPast(
        _ paths: StorePaths, configuration: StoreConfiguration, through sequence: UInt64
    ) throws -> (loaded: LoadedStore, last: UInt64)? {
        var configuration = configuration
        configuration.readOnly = true
        let fs = configuration.fileSystem
        try StoreFileSafety.check(paths, fileSystem: fs)
        let context = LoadContext(paths: paths, configuration: configuration, checkingBlobReferences: false, unsafePaths: [])
        let report: (StorageError) throws -> Void = { throw $0 }
        guard let manifest = try ManifestPhase.read(context, report: report) else { return nil }
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
        let fileHistory = try HistoryPhase.read(paths, configuration: configuration, report: report)
        loaded.history = HistoryPhase.combining(history: fileHistory, journal: journal.transactions)
        try loaded.mendMerge(paths, configuration: configuration, historyFileRead: true, report: report)
        return (loaded, last)
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
