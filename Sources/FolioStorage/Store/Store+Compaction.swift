import Foundation

extension Store {
    /// Rewrites the snapshots to the current state, keeps the retained history, empties the journal and
    /// removes unreferenced blobs.
    ///
    /// Crash-safe at every step: each file is replaced by writing a temporary file, syncing it, renaming
    /// it over the old one and syncing the directory, in an order (snapshots, history, manifest, journal)
    /// such that a crash between any two steps opens to the same state.
    ///
    /// Waits first for an automatic compaction running in the background (see
    /// ``StoreConfiguration/compactsInBackground``), and afterwards for the snapshot caches it makes
    /// due, so that a process that compacts and exits leaves them written.
    public func compact() throws {
        defer { cacheBuilds.wait() }
        try waitForBackgroundCompaction(before: "Store.compact()")
        try withWriter("Store.compact()") { journal in
            try journal.checkWritable(readOnly: configuration.readOnly)
            try loadDeferredRecordsLocked(&journal)
            try checkNoRecordsAwaitingStage()
            guard paths != nil else {
                let kept = try retainedHistory(withReadState { $0.retained })
                withReadState { $0.retained = kept.map(\.transaction) }
                return
            }
            try journal.takeFileLock(fs, exclusive: true)
            defer { journal.releaseFileLock(fs) }
            _ = try catchUp(&journal)
            // Snapshots written from unmended records would keep a merge's dangling references for good.
            try reconcileMergeLocked(&journal)
            try compactLocked(&journal)
        }
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
    /// none past the point where the walk stops. Transactions from `keepingFrom` on are kept whatever the
    /// policy says (``CompactionPlan/keepsHistoryFrom``).
    func retainedHistory(
        _ transactions: [JournalTransaction], now: Date? = nil, stored: [UInt64: StoredLine] = [:], keepingFrom: UInt64? = nil
    ) throws -> [RetainedTransaction] {
        let policy = configuration.historyRetention
        let now = now ?? configuration.clock()
        let oldest = policy.maximumAge.map { now.addingTimeInterval(-$0) }
        let maximumCount = policy.maximumCount ?? Int.max
        var kept: [RetainedTransaction] = []
        var bytes: Int64 = 0
        for transaction in transactions.reversed() {
            let required = keepingFrom.map { transaction.sequence >= $0 } ?? false
            if !required {
                if kept.count >= maximumCount { break }
                if let oldest, transaction.timestamp < oldest { continue }
            }
            let storedLine = stored[transaction.sequence]
            let encoded = storedLine == nil ? try transaction.encodedLine() : nil
            bytes += Int64(encoded?.count ?? (storedLine?.length ?? 0) + 1)
            if !required, let maximumBytes = policy.maximumBytes, bytes > maximumBytes { break }
            kept.append(RetainedTransaction(transaction: transaction, encoded: encoded, stored: storedLine))
        }
        return kept.reversed()
    }

    /// Compacts, start to finish. Caller holds the writer lock and the exclusive file lock, and has
    /// caught up.
    ///
    /// If a step fails, the files are in one of the safe intermediate states; the store forgets its
    /// journal position so that the next operation reloads from the files.
    ///
    /// - Parameter historyFloor: when set, transactions up to and including this sequence are removed
    ///   from the history before the retention policy is applied (``deleteHistory(through:)``).
    func compactLocked(_ journal: inout JournalWriter, droppingHistoryThrough historyFloor: UInt64? = nil) throws {
        guard let paths else { return }
        let plan: CompactionPlan
        do {
            plan = try makeCompactionPlan(&journal, droppingHistoryThrough: historyFloor)
        } catch {
            forgetJournalPosition(&journal)
            throw error
        }
        let prepared = try prepareCompaction(plan, paths: paths)
        try installCompaction(prepared, plan: plan, paths: paths, journal: &journal)
    }

    /// What a compaction will write, taken from the current state. Caller holds the writer lock and the
    /// exclusive file lock, and has caught up.
    ///
    /// Syncs the journal first, whatever the durability policy: the journal must be durable before any
    /// snapshot that contains its transactions is, or a power cut could leave snapshots ahead of it.
    func makeCompactionPlan(_ journal: inout JournalWriter, droppingHistoryThrough historyFloor: UInt64?) throws -> CompactionPlan {
        if let journalFile = journal.journalFile {
            try fs.sync(journalFile)
            journal.unsyncedWrites = false
        }
        let inGitWorkTree = gitWorkTree(&journal) != nil
        return withReadState { read in
            var plan = CompactionPlan(
                state: read.state,
                retained: read.retained, historyFileLoaded: read.historyFileLoaded, historyFloor: historyFloor,
                snapshotBases: read.snapshotBases, snapshotConflicts: read.snapshotConflicts, journalIdentity: read.journalIdentity,
                journalEnd: read.journalEnd,
                journalLines: read.journalLines, insertedSpans: read.insertedSpans)
            if inGitWorkTree { plan.keepsHistoryFrom = read.manifestSequence + 1 }
            return plan
        }
    }

    /// Forgets where the journal ends, so that the next operation reloads the store from its files
    /// (after a compaction step failed half way).
    func forgetJournalPosition(_ journal: inout JournalWriter) {
        if let file = journal.journalFile { fs.close(file) }
        journal.journalFile = nil
        withReadState { $0.journalIdentity = nil }
    }

    /// The snapshot file of `entity` on disk, written at `base`, with the identifiers that transactions
    /// `base + 1 ... sequence` touched; `nil` unless every one of those transactions is in `transactions`,
    /// and `nil` when one of them migrates the entity (which changes every record).
    func earlierSnapshot(
        of entity: String, at base: UInt64, through sequence: UInt64, paths: StorePaths, transactions: [JournalTransaction]
    ) -> SnapshotFile.EarlierFile? {
        var expected = base + 1
        var changed = Set<Int64>()
        for transaction in transactions.drop(while: { $0.sequence <= base }) {
            guard transaction.sequence == expected else { return nil }
            expected += 1
            // A migration rewrites every record of its entity: no line of the earlier file is current.
            if transaction.migrations.contains(where: { $0.entity == entity && !$0.isEmpty }) { return nil }
            for record in transaction.inserted where record.entity == entity { changed.insert(record.id) }
            for record in transaction.updated where record.entity == entity { changed.insert(record.id) }
            for record in transaction.deleted where record.entity == entity { changed.insert(record.id) }
        }
        guard expected == sequence + 1 else { return nil }
        return SnapshotFile.EarlierFile(path: paths.snapshot(entity), sequence: base, changedIDs: changed)
    }

    /// Removes temporary files: leftovers of interrupted replacements, and those of compactions that
    /// another process (or this one) is preparing, which cannot be installed any more once this one
    /// has been. Caller holds the writer lock and the exclusive file lock.
    func removeTemporaryFiles(_ paths: StorePaths) throws {
        var folders = [paths.directory, paths.snapshots, paths.cacheDirectory]
        for shard in try fs.contentsOfDirectory(paths.blobs) { folders.append("\(paths.blobs)/\(shard)") }
        for folder in folders {
            for name in try fs.contentsOfDirectory(folder) where FileSystemNames.isTemporary(name) {
                try fs.unlink("\(folder)/\(name)")
            }
        }
    }
}
