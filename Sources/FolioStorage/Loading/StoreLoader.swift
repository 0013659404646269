/// Rebuilds a store's state from its directory, in phases that each read one kind of file:
/// ``ManifestPhase``, ``SnapshotPhase``, ``HistoryPhase``, ``JournalPhase``, then the checks that span
/// them (``reportDisagreements(_:snapshots:journal:report:)``) and the mend of a git merge
/// (``LoadedStore/mendMerge(_:historyFileRead:report:)``).
enum StoreLoader {
    /// Loads the store in `paths`.
    ///
    /// - Parameter report: called with every problem; throwing from it stops loading (what `open` does).
    ///   Returning continues past the problem where possible (what verification does).
    /// - Parameter checkingBlobReferences: also report malformed blob references in records (what
    ///   verification does; opening leaves that to the read of the blob, which checks the hash).
    static func load(
        _ paths: StorePaths, configuration: StoreConfiguration, includeHistoryFile: Bool = true,
        checkingBlobReferences: Bool = false, report: (StorageError) throws -> Void
    ) throws -> LoadedStore {
        let context = LoadContext(
            paths: paths, configuration: configuration, checkingBlobReferences: checkingBlobReferences,
            unsafePaths: try StoreFileSafety.unsafePaths(paths, fileSystem: configuration.fileSystem, report: report))
        var loaded = LoadedStore()
        guard let manifest = try ManifestPhase.read(context, report: report) else { return loaded }
        loaded.manifest = manifest
        loaded.state = ManifestPhase.initialState(manifest)
        let snapshots = try SnapshotPhase.read(into: &loaded.state, context, report: report)
        loaded.snapshotConflicts = snapshots.conflicts
        loaded.snapshotSizes = snapshots.sizes
        let historyFile =
            includeHistoryFile && context.isSafe(paths.history) ? try HistoryPhase.read(paths, configuration: configuration, report: report) : []
        let journal = try JournalPhase.replay(onto: &loaded.state, manifest: manifest, bases: snapshots.bases, context, report: report)
        loaded.take(journal)
        try reportDisagreements(loaded.state, snapshots: snapshots, journal: journal, context: context, report: report)
        loaded.snapshotBases = snapshots.bases
        loaded.history = historyFile.isEmpty ? journal.transactions : HistoryPhase.combining(history: historyFile, journal: journal.transactions)
        try loaded.mendMerge(paths, configuration: configuration, historyFileRead: includeHistoryFile, report: report)
        return loaded
    }

    /// The checks that span the phases, after the journal: every snapshot's sequence is one the
    /// journal reached, and the identifier counters are past every snapshot record's identifier.
    ///
    /// - Parameter state: the records after ``JournalPhase``.
    static func reportDisagreements(
        _ state: StoreState, snapshots: SnapshotPhase, journal: JournalPhase, context: LoadContext, report: (StorageError) throws -> Void
    ) throws {
        for (entity, base) in snapshots.bases where base > state.lastSequence {
            try report(
                StorageError(
                    .inconsistentStore,
                    "snapshot is at sequence \(base) but the journal ends at \(state.lastSequence); journal transactions are missing",
                    file: context.paths.snapshot(entity), line: 1, offset: 0))
        }
        if let highest = snapshots.highestID, highest.id >= journal.highestNextID {
            try report(
                StorageError(
                    .inconsistentStore,
                    "record \(highest.id) is at or past the next identifier, \(journal.highestNextID) (manifest member \"nextID\" and the journal's \"nextID\"); a new record would reuse its identifier: restore the manifest from the same commit or backup as the snapshots",
                    file: highest.path))
        }
    }
}

/// Names of files the engine treats specially.
enum FileSystemNames {
    static func isTemporary(_ name: String) -> Bool { name.contains(".tmp-") }
}
