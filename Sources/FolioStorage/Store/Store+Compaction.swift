import Foundation

extension Store {
    /// Rewrites the snapshots to the current state, keeps the retained history, empties the journal and
    /// removes unreferenced blobs.
    ///
    /// Crash-safe at every step: each file is replaced by writing a temporary file, syncing it, renaming
    /// it over the old one and syncing the directory, in an order (snapshots, history, manifest, journal)
    /// such that a crash between any two steps opens to the same state.
    public func compact() throws {
        writerLock.lock()
        defer { writerLock.unlock() }
        try checkWritable()
        try loadDeferredRecordsLocked()
        guard paths != nil else {
            let kept = try retainedHistory(withState { _ in retained })
            withStateMutation { _ in retained = kept.map(\.transaction) }
            return
        }
        try lockExclusive()
        defer { unlockFile() }
        _ = try catchUp()
        try compactLocked()
    }

    /// A transaction the retention policy keeps, with where its journal line comes from.
    struct RetainedTransaction {
        let transaction: JournalTransaction
        /// The line, when it was encoded; `nil` when it is copied from ``stored``.
        let encoded: [UInt8]?
        /// Where the same line already is on disk (history or journal file).
        let stored: StoredLine?
    }

    /// The transactions of `transactions` (oldest first) that the retention policy keeps, oldest first.
    ///
    /// Walks back from the newest: skips transactions older than `maximumAge`, and stops after
    /// `maximumCount` kept transactions or at the first one whose line would take the kept lines past
    /// `maximumBytes` (that one and every older one are dropped, so the history stays contiguous).
    /// A transaction whose line is in `stored` is not encoded; any other is encoded at most once, and
    /// none past the point where the walk stops.
    func retainedHistory(
        _ transactions: [JournalTransaction], now: Date = Date(), stored: [UInt64: StoredLine] = [:]
    ) throws -> [RetainedTransaction] {
        let policy = configuration.historyRetention
        let oldest = policy.maximumAge.map { now.addingTimeInterval(-$0) }
        let maximumCount = policy.maximumCount ?? Int.max
        var kept: [RetainedTransaction] = []
        var bytes: Int64 = 0
        for transaction in transactions.reversed() {
            if kept.count >= maximumCount { break }
            if let oldest, transaction.timestamp < oldest { continue }
            let storedLine = stored[transaction.sequence]
            let encoded = storedLine == nil ? try transaction.encodedLine() : nil
            bytes += Int64(encoded?.count ?? (storedLine?.length ?? 0) + 1)
            if let maximumBytes = policy.maximumBytes, bytes > maximumBytes { break }
            kept.append(RetainedTransaction(transaction: transaction, encoded: encoded, stored: storedLine))
        }
        return kept.reversed()
    }

    /// Compacts. Caller holds the writer lock and the exclusive file lock, and has caught up.
    ///
    /// If a step fails, the files are in one of the safe intermediate states; the store forgets its
    /// journal position so that the next operation reloads from the files.
    ///
    /// - Parameter historyFloor: when set, transactions up to and including this sequence are removed
    ///   from the history before the retention policy is applied (``deleteHistory(through:)``).
    func compactLocked(droppingHistoryThrough historyFloor: UInt64? = nil) throws {
        do {
            try compactSteps(droppingHistoryThrough: historyFloor)
        } catch {
            if let journalFile { fs.close(journalFile) }
            journalFile = nil
            withStateMutation { _ in journalIdentity = nil }
            throw error
        }
    }

    private func compactSteps(droppingHistoryThrough historyFloor: UInt64?) throws {
        guard let paths else { return }
        let state = withState { $0 }
        let sequence = state.lastSequence
        // 0. Leftovers of interrupted replacements (only writers create them, and we hold the lock).
        try removeTemporaryFiles(paths)
        // The journal must be durable before any snapshot that contains its transactions is, whatever
        // the durability policy: otherwise a power cut could leave snapshots ahead of the journal.
        if let journalFile {
            try fs.sync(journalFile)
            unsyncedWrites = false
        }
        // 1. Snapshots whose entity changed since it was last written.
        var emptied: [String] = []
        var newBases = snapshotBases
        let entities = Set(state.entities.keys).union(snapshotBases.keys)
        if !entities.isEmpty, try fs.status(atPath: paths.snapshots) == nil {
            try fs.makeDirectory(paths.snapshots)
            try fs.syncDirectory(paths.directory)
        }
        for entity in entities.sorted() {
            let records = state.entities[entity] ?? [:]
            let modified = state.lastModified[entity] ?? sequence
            if records.isEmpty {
                if snapshotBases[entity] == nil { continue }
                emptied.append(entity)
            }
            if snapshotBases[entity] == modified { continue }
            // Written in pieces, never whole in memory: copied from the earlier file where it can be,
            // otherwise (or if that turns out not to be possible half way) encoded from memory.
            var written = false
            if let base = snapshotBases[entity], !records.isEmpty,
                let earlier = earlierSnapshot(of: entity, at: base, through: sequence, paths: paths)
            {
                do {
                    try fs.replaceFile(at: paths.snapshot(entity)) { output in
                        let fs = self.fs
                        guard try SnapshotFile.write(
                            entity: entity, sequence: modified, records: records, reusing: earlier, fileSystem: fs, to: output)
                        else { throw SnapshotFile.CannotReuse() }
                    }
                    written = true
                } catch is SnapshotFile.CannotReuse {}
            }
            if !written {
                try fs.replaceFile(at: paths.snapshot(entity)) { output in
                    try SnapshotFile.write(entity: entity, sequence: modified, records: records, to: output)
                }
            }
            newBases[entity] = modified
        }
        withStateMutation { _ in snapshotBases = newBases }
        // 2. Retained history: the kept transactions' lines, oldest first, copied or encoded once.
        try loadHistoryFileIfNeeded()
        let candidates = withState { _ in historyFloor.map { floor in retained.filter { $0.sequence > floor } } ?? retained }
        let kept = try writeHistoryFile(candidates, paths: paths)
        // 3. Manifest: the snapshots now stand at `sequence`.
        var snapshotBytes: [String: Int64] = [:]
        for entity in newBases.keys where !emptied.contains(entity) {
            if let status = try fs.status(atPath: paths.snapshot(entity)) { snapshotBytes[entity] = status.size }
        }
        try fs.replaceFile(
            at: paths.manifest,
            with: Manifest(sequence: sequence, nextID: state.nextID, schema: state.schema, snapshotBytes: snapshotBytes).encoded())
        // 4. Journal: empty (everything is in the snapshots). Other processes see its new identity and reload.
        try fs.replaceFile(at: paths.journal, with: [])
        try openJournal()
        withStateMutation { _ in
            retained = kept
            journalEnd = 0
            journalLines = 0
            tailLength = 0
        }
        // 5. Snapshot files of entities with no records left (safe only now that the journal is empty).
        if !emptied.isEmpty {
            for entity in emptied { try fs.unlink(paths.snapshot(entity)) }
            try fs.syncDirectory(paths.snapshots)
            withStateMutation { _ in for entity in emptied { snapshotBases[entity] = nil } }
        }
        // 6. Blobs nothing refers to any more (a store without blobs has nothing to look for).
        let shards = try fs.contentsOfDirectory(paths.blobs)
        if shards.isEmpty { return }
        var referenced = state.referencedBlobs()
        for transaction in kept {
            for record in transaction.inserted + transaction.updated { BlobStore.collectReferences(in: record.values, into: &referenced) }
            for record in transaction.deleted { BlobStore.collectReferences(in: record.tombstone, into: &referenced) }
        }
        for shard in shards {
            let shardPath = "\(paths.blobs)/\(shard)"
            for name in try fs.contentsOfDirectory(shardPath) where !referenced.contains(name) {
                try fs.unlink("\(shardPath)/\(name)")
            }
        }
    }

    /// The snapshot file of `entity` on disk, written at `base`, with the identifiers that transactions
    /// `base + 1 ... sequence` touched; `nil` unless every one of those transactions is retained in memory.
    func earlierSnapshot(of entity: String, at base: UInt64, through sequence: UInt64, paths: StorePaths) -> SnapshotFile.EarlierFile? {
        let transactions = withState { _ in retained }
        var expected = base + 1
        var changed = Set<Int64>()
        for transaction in transactions.drop(while: { $0.sequence <= base }) {
            guard transaction.sequence == expected else { return nil }
            expected += 1
            for record in transaction.inserted where record.entity == entity { changed.insert(record.id) }
            for record in transaction.updated where record.entity == entity { changed.insert(record.id) }
            for record in transaction.deleted where record.entity == entity { changed.insert(record.id) }
        }
        guard expected == sequence + 1 else { return nil }
        return SnapshotFile.EarlierFile(path: paths.snapshot(entity), sequence: base, changedIDs: changed)
    }

    private func removeTemporaryFiles(_ paths: StorePaths) throws {
        var folders = [paths.directory, paths.snapshots]
        for shard in try fs.contentsOfDirectory(paths.blobs) { folders.append("\(paths.blobs)/\(shard)") }
        for folder in folders {
            for name in try fs.contentsOfDirectory(folder) where FileSystemNames.isTemporary(name) {
                try fs.unlink("\(folder)/\(name)")
            }
        }
    }
}
