import Dispatch
import Foundation

extension Store {
    /// Runs `body` as one transaction and commits it.
    ///
    /// Under the cross-process writer lock: catches up with transactions other processes appended, runs
    /// `body` against that state, validates, appends one journal line, syncs it according to
    /// ``StoreConfiguration/durability``, applies it, and unlocks.
    ///
    /// - Returns: the committed transaction, or `nil` if `body` changed nothing.
    /// - Throws: what `body` throws (nothing is written), or a ``StorageError``:
    ///   ``StorageError/Code/reentrantCall`` when called inside another write's body. After a failed fsync
    ///   under ``StoreConfiguration/Durability/always`` (or a batched fsync) the store refuses writes
    ///   with ``StorageError/Code/storePoisoned`` until it is reopened: the file is then the truth.
    @discardableResult
    public func write(author: String? = nil, _ body: (inout WriteTransaction) throws -> Void) throws -> JournalTransaction? {
        // A `close()` in `body` is kept for here: closing needs the writer lock this write holds.
        defer { if closesAfterWrite.exchange(false, ordering: .relaxed) { close() } }
        return try withWriter("Store.write(author:_:)") { journal in
            try journal.checkWritable(readOnly: configuration.readOnly)
            try loadDeferredRecordsLocked(&journal)
            try journal.takeFileLock(fs, exclusive: true)
            defer { journal.releaseFileLock(fs) }
            _ = try catchUp(&journal)
            // A save while git rewrites the store's files would build on a state git is replacing.
            if waitWhileGitRewritesWorkTree(&journal) { _ = try catchUp(&journal) }
            try reconcileMergeLocked(&journal)
            let paths = self.paths
            let fs = self.fs
            let base = withState { $0 }
            var transaction = WriteTransaction(
                base: base, block: allocationBlock(&journal, counters: base.counters), knownEntities: configuration.knownEntities,
                blobWriter: { [unowned self] data in
                    if let paths { return try BlobStore.write(data, directory: paths.directory, fileSystem: fs) }
                    let hash = SHA256.hexDigest([UInt8](data))
                    self.withReadState { $0.memoryBlobs[hash] = data }
                    return hash
                })
            transaction.reserved = withReadState { $0.reservedIDs }
            try body(&transaction)
            if transaction.isEmpty { return nil }
            let committed = try commit(&transaction, author: author, journal: &journal)
            withReadState { read in
                // Most stores reserve nothing: then no inserted identifier needs looking up.
                guard !read.reservedIDs.isEmpty else { return }
                for record in committed.inserted { read.reservedIDs.remove(record.id) }
            }
            installPendingCompaction(&journal)
            if isCompactionDue() {
                do {
                    if configuration.compactsInBackground { try startBackgroundCompaction(&journal) } else { try compactLocked(&journal) }
                } catch {
                    withReadState { $0.warnings.append("automatic compaction failed: \(error)") }
                }
            }
            return committed
        }
    }

    /// Reserves `count` new identifiers for records this process will insert later (for example objects
    /// created in a model context before it saves). The counter advance is committed and synced now, so
    /// no other process or later session can allocate them; unused reservations are simply skipped.
    ///
    /// - Returns: the reserved identifiers, consecutive.
    package func reserveIDs(_ count: Int) throws -> ClosedRange<Int64> {
        guard count > 0, count <= 1_000_000 else {
            throw StorageError(.invalidTransaction, "reserve between 1 and 1,000,000 identifiers at a time, not \(count)")
        }
        var first: Int64 = 0
        var last: Int64 = 0
        try write(author: nil) { tx in
            first = tx.allocateID()
            last = first
            for _ in 1..<count { last = tx.allocateID() }
        }
        withReadState { read in
            for id in first...last { read.reservedIDs.insert(id) }
        }
        return first...last
    }

    // MARK: Internals

    /// Validates, appends, syncs and applies. Caller holds the writer lock and the exclusive file lock.
    func commit(_ transaction: inout WriteTransaction, author: String?, journal: inout JournalWriter) throws -> JournalTransaction {
        guard transaction.base.lastSequence < SequenceLimits.maximum else {
            throw StorageError(
                .inconsistentStore, "the store is at sequence \(transaction.base.lastSequence), the largest there is; no transaction can follow it")
        }
        let committed = transaction.takeJournalTransaction(
            transactionID: UUID().uuidString, timestamp: Timestamp.truncated(configuration.clock()), author: author)
        // Migrations already rewrote every record of their entities in the transaction's view, and a
        // staging copy's state may hold all of the transaction: that becomes the state, so that a million
        // records are not rewritten a second time.
        let start = transaction.base.lastSequence
        var adopted = transaction.adoptedState
        transaction.adoptedState = nil
        var migratedView = adopted != nil || transaction.migrations.isEmpty ? nil : transaction.base
        // Otherwise the view is no longer needed. Releasing it keeps the state uniquely referenced, so
        // applying the transaction changes it in place instead of copying every table.
        transaction.base = StoreState()
        // Blobs referred to must exist before the transaction that refers to them. The line's records
        // are searched for references as they are written, on the threads that write them.
        var spans: InsertedRecordSpans? = nil
        guard paths != nil || configuration.checksLinesInMemory else {
            withReadState { read in
                Self.apply(committed, adopting: &adopted, from: start, migratedView: &migratedView, to: &read.state)
                read.retained.append(committed)
            }
            return committed
        }
        let hashes = try committed.encodeLine(into: &journal.lineBuffer, spans: &spans, collectingBlobReferences: true)
        for hash in hashes {
            if let paths {
                guard try fs.status(atPath: "\(paths.directory)/\(BlobStore.relativePath(hash))") != nil else {
                    throw StorageError(.blobNotFound, "a record refers to blob \(hash), which was not stored; call putBlob first")
                }
            } else if withReadState({ $0.memoryBlobs[hash] }) == nil {
                throw StorageError(.blobNotFound, "a record refers to blob \(hash), which was not stored; call putBlob first")
            }
        }
        let line = journal.lineBuffer
        guard line.count - 1 <= configuration.maximumLineBytes else {
            throw StorageError(
                .lineTooLong,
                "the transaction's journal line would be \(line.count - 1) bytes, more than the configured maximum of \(configuration.maximumLineBytes) that readers accept; save in smaller transactions",
                file: paths?.journal)
        }
        if let paths {
            try append(line, paths: paths, journal: &journal)
        }
        withReadState { read in
            Self.apply(committed, adopting: &adopted, from: start, migratedView: &migratedView, to: &read.state)
            read.retained.append(committed)
            if paths != nil {
                if let spans { read.insertedSpans[committed.sequence] = spans }
                read.journalEnd += Int64(line.count)
                read.journalLines += 1
            }
        }
        return committed
    }

    /// Applies a just committed transaction to `state`: takes the staging copy's state that holds it
    /// (``WriteTransaction/takeCommits(of:after:)``), or starts from the transaction's migrated view of the
    /// state when there is one. Either is taken (so that it is changed in place) and was made from
    /// `state` at `start` under the same writer lock; one made from another sequence is not used.
    private static func apply(
        _ committed: JournalTransaction, adopting adopted: inout StoreState?, from start: UInt64, migratedView: inout StoreState?,
        to state: inout StoreState
    ) {
        // A staging copy's state, made from `state` under this writer lock and changed by commits after it.
        if let copySequence = adopted?.lastSequence, copySequence > start, start == state.lastSequence {
            state = StoreState()
            adopted?.adopt(committed, stagedAfter: start)
            if let copy = adopted { state = copy }
            adopted = nil
            return
        }
        adopted = nil
        guard let viewSequence = migratedView?.lastSequence, viewSequence == state.lastSequence else {
            migratedView = nil
            _ = state.apply(committed)
            return
        }
        // The old records go first: the two versions of every record are not kept longer than needed.
        state = StoreState()
        _ = migratedView?.apply(committed, migrationsApplied: true)
        if let view = migratedView { state = view }
        migratedView = nil
    }

    /// Appends `line` to the journal, creating the file first if there is none, and moving a torn
    /// tail aside first if there is one.
    private func append(_ line: [UInt8], paths: StorePaths, journal: inout JournalWriter) throws {
        if journal.journalFile == nil {
            let file = try fs.open(paths.journal, .readWriteCreate)
            journal.journalFile = file
            // If this fails, the next catch-up sees the identity change and reloads.
            try fs.syncDirectory(paths.directory)
            let identity = try fs.status(file)
            withReadState { $0.journalIdentity = identity }
        }
        if withReadState({ $0.tailLength }) > 0 {
            try moveTornTail(paths: paths, journal: &journal)
        }
        try journal.append(line, at: withReadState { $0.journalEnd }, fs: fs, durability: configuration.durability)
        // Git replaces files without taking the store's lock: a line written to a journal it had just
        // replaced is in no file, and must not be reported as saved.
        if gitWorkTree(&journal) != nil, let file = journal.journalFile {
            let written = try fs.status(file)
            let current = try fs.status(atPath: paths.journal)
            if current?.inode != written.inode || current?.device != written.device {
                throw StorageError(
                    .filesReplaced,
                    "the journal was replaced (by git?) while this save was written to it, so the save is not in the store; save again",
                    file: paths.journal)
            }
        }
    }

    /// Moves an incomplete last line to `journal.jsonl.corrupt-tail`, then truncates it away.
    func moveTornTail(paths: StorePaths, journal: inout JournalWriter) throws {
        guard let file = journal.journalFile else { return }
        let (journalEnd, tailLength) = withReadState { ($0.journalEnd, $0.tailLength) }
        var tail = [UInt8](repeating: 0, count: Int(tailLength))
        var filled = 0
        while filled < tail.count {
            let count = try tail.withUnsafeMutableBytes { raw in
                try fs.read(file, into: UnsafeMutableRawBufferPointer(rebasing: raw[filled...]), at: journalEnd + Int64(filled))
            }
            if count == 0 { break }
            filled += count
        }
        tail.removeLast(tail.count - filled)
        tail.append(0x0A)
        let side = try fs.open(paths.corruptTail, .readWriteCreate)
        defer { fs.close(side) }
        try fs.writeAll(side, tail, at: try fs.status(side).size)
        try fs.sync(side)
        do {
            try fs.truncate(file, to: journalEnd)
            try fs.sync(file)
        } catch let error as StorageError {
            // The journal's length on disk is now unknown: refuse writes until reopened.
            journal.poisonError = error
            throw error
        }
        withReadState { read in
            read.warnings.append("moved a \(filled)-byte incomplete journal line to \(paths.corruptTail)")
            read.tailLength = 0
        }
    }
}
