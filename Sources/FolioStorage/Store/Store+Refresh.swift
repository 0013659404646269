import Foundation

extension Store {
    /// A reload of the store's files after something replaced them (another process's compaction, or
    /// git: a checkout, merge, pull or reset), and what it brought.
    package struct Reload: Sendable {
        /// How many reloads this store has made: 0 before the first.
        package var number: UInt64 = 0
        /// The transactions the reloaded files hold that this store did not know, oldest first.
        package var arrived: [JournalTransaction] = []
        /// The store's last sequence right before and right after the reload.
        package var previousLastSequence: UInt64 = 0
        package var lastSequence: UInt64 = 0
        /// Whether the files lack transactions the store had before: no list of arrivals describes the change.
        package var lostTransactions = false
    }

    /// The last reload of replaced files.
    package var lastReload: Reload { withReadState { $0.lastReload } }

    /// Catches up with transactions other processes appended, returning them (oldest first).
    ///
    /// If another process compacted the store meanwhile, the store reloads its files and takes the
    /// transactions it had not seen from retained history; any that retention already dropped are not
    /// returned (the state is still complete: compare ``lastSequence`` with the last one returned).
    @discardableResult
    public func refresh() throws -> [JournalTransaction] {
        try withWriter("Store.refresh()") { journal in
            try journal.checkOpen()
            guard paths != nil else { return [] }
            try loadDeferredRecordsLocked(&journal)
            var arrived: [JournalTransaction]
            do {
                try journal.takeFileLock(fs, exclusive: false)
                defer { journal.releaseFileLock(fs) }
                arrived = try catchUp(&journal)
            }
            // Files git merged from two compacted copies are mended before anything reads them.
            arrived += try reconcileMergeIfPending(&journal)
            return arrived
        }
    }

    /// Reads what other processes appended (or reloads after they compacted). Caller holds a file lock.
    func catchUp(_ journal: inout JournalWriter) throws -> [JournalTransaction] {
        guard let paths else { return [] }
        var current = try fs.status(atPath: paths.journal)
        let (journalIdentity, journalEnd, journalLines, tailLength) = withReadState {
            ($0.journalIdentity, $0.journalEnd, $0.journalLines, $0.tailLength)
        }
        // What changed may be git rewriting the work tree: read it once git is done.
        if withReadState({ $0.journalChanged(current: current) }), waitWhileGitRewritesWorkTree(&journal) {
            current = try fs.status(atPath: paths.journal)
        }
        let replaced: Bool
        if let current, let known = journalIdentity {
            replaced = current.inode != known.inode || current.device != known.device || current.size < journalEnd
        } else {
            // No journal known: reload if one exists now (created by another process, or after a failed
            // compaction made this store forget its position).
            // Also reload if a known journal disappeared (`git clean`): the snapshots are then the truth.
            replaced = current != nil || journalIdentity != nil
        }
        if replaced {
            let oldLast = lastSequence
            // A git merge renumbers: a transaction new to this store may take a sequence it had seen.
            let (known, knownFrom, journalIDs) = withReadState { read in
                (
                    Set(read.retained.map(\.transactionID)), read.retained.first?.sequence ?? oldLast + 1,
                    Set(read.retained.filter { $0.sequence > read.manifestSequence }.map(\.transactionID))
                )
            }
            let loaded = try StoreLoader.load(paths, configuration: configuration, includeHistoryFile: false, report: { throw $0 })
            withReadState { $0.install(loaded) }
            try openJournal(&journal)
            let firstInJournal = loaded.history.first?.sequence ?? (loaded.state.lastSequence + 1)
            if firstInJournal > oldLast + 1 {
                // Another process compacted transactions this store had not seen: take them from history.
                try loadHistoryFileIfNeeded()
            }
            // The journal's transactions this store knew may now be in history (another compaction).
            if !journalIDs.isSubset(of: withReadState({ Set($0.retained.map(\.transactionID)) })) { try loadHistoryFileIfNeeded() }
            return withReadState { read in
                let arrived = read.retained.filter {
                    $0.sequence > oldLast || ($0.sequence >= knownFrom && !known.contains($0.transactionID))
                }
                // Files that lack a transaction this store had (a checkout of another branch, a reset)
                // changed in ways no list of new transactions describes.
                let ids = Set(read.retained.map(\.transactionID))
                read.lastReload = Reload(
                    number: read.lastReload.number + 1, arrived: arrived, previousLastSequence: oldLast, lastSequence: read.state.lastSequence,
                    lostTransactions: read.state.lastSequence < oldLast || !journalIDs.isSubset(of: ids))
                return arrived
            }
        }
        guard let current, let journalFile = journal.journalFile, current.size != journalEnd + tailLength || tailLength > 0 else { return [] }
        var newState = withState { $0 }
        var fresh: [JournalTransaction] = []
        let result = try JournalReader.read(
            fs, journalFile, from: journalEnd, firstLineNumber: journalLines + 1,
            maximumLineBytes: configuration.maximumLineBytes, report: { throw $0 }
        ) {
            transaction, line in
            let expected = newState.lastSequence + 1
            if transaction.sequence != expected {
                throw StorageError(
                    transaction.sequence < expected ? .duplicateSequence : .missingSequence,
                    "expected sequence \(expected) but found \(transaction.sequence)", file: paths.journal, line: line.number,
                    offset: line.offset)
            }
            if let known = configuration.knownEntities, let unknown = transaction.entitiesNeedingKnown.first(where: { !known.contains($0) }) {
                throw StorageError(
                    .unknownEntity, "record of unknown entity \"\(unknown)\"", file: paths.journal, line: line.number, offset: line.offset)
            }
            if let problem = newState.apply(transaction).first {
                throw StorageError(
                    .inconsistentStore, "transaction \(transaction.sequence) \(problem)", file: paths.journal, line: line.number, offset: line.offset)
            }
            fresh.append(transaction)
        }
        withReadState { read in
            read.state = newState
            read.retained.append(contentsOf: fresh)
            read.journalEnd = result.validEnd
            read.journalLines = result.lineCount
            read.tailLength = result.tailLength
        }
        return fresh
    }
}
