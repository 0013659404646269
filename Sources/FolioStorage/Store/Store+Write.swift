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
    /// - Throws: what `body` throws (nothing is written), or a ``StorageError``. After a failed fsync
    ///   under ``StoreConfiguration/Durability/always`` (or a batched fsync) the store refuses writes
    ///   with ``StorageError/Code/storePoisoned`` until it is reopened: the file is then the truth.
    @discardableResult
    public func write(author: String? = nil, _ body: (inout WriteTransaction) throws -> Void) throws -> JournalTransaction? {
        writerLock.lock()
        defer { writerLock.unlock() }
        try checkWritable()
        try loadDeferredRecordsLocked()
        try lockExclusive()
        defer { unlockFile() }
        _ = try catchUp()
        let paths = self.paths
        let fs = self.fs
        var transaction = WriteTransaction(
            base: withState { $0 }, knownEntities: configuration.knownEntities,
            blobWriter: { [unowned self] data in
                if let paths { return try BlobStore.write(data, directory: paths.directory, fileSystem: fs) }
                let hash = SHA256.hexDigest([UInt8](data))
                self.withStateMutation { _ in self.memoryBlobs[hash] = data }
                return hash
            })
        transaction.reserved = withState { _ in reservedIDs }
        try body(&transaction)
        if transaction.isEmpty { return nil }
        let committed = try commit(&transaction, author: author)
        withStateMutation { _ in
            // Most stores reserve nothing: then no inserted identifier needs looking up.
            guard !reservedIDs.isEmpty else { return }
            for record in committed.inserted { reservedIDs.remove(record.id) }
        }
        installPendingCompaction()
        if isCompactionDue() {
            do {
                if configuration.compactsInBackground { try startBackgroundCompaction() } else { try compactLocked() }
            } catch {
                withStateMutation { _ in openWarnings.append("automatic compaction failed: \(error)") }
            }
        }
        return committed
    }

    /// Reserves `count` new identifiers for records this process will insert later (for example objects
    /// created in a model context before it saves). The counter advance is committed and synced now, so
    /// no other process or later session can allocate them; unused reservations are simply skipped.
    ///
    /// - Returns: the reserved identifiers, consecutive.
    public func reserveIDs(_ count: Int) throws -> ClosedRange<Int64> {
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
        withStateMutation { _ in
            for id in first...last { reservedIDs.insert(id) }
        }
        return first...last
    }


    // MARK: Internals

    func checkWritable() throws {
        if isClosed { throw StorageError(.closed, "the store is closed") }
        if configuration.readOnly { throw StorageError(.readOnly, "the store was opened read-only") }
        if let poisonError {
            throw StorageError(
                .storePoisoned,
                "an earlier write failed (\(poisonError.message)); reopen the store to continue from what is on disk",
                file: poisonError.file, errno: poisonError.errno)
        }
    }

    func lockExclusive() throws {
        if let lockFile { _ = try fs.lock(lockFile, exclusive: true, wait: true) }
    }

    func unlockFile() {
        if let lockFile { fs.unlock(lockFile) }
    }

    func withStateMutation<T>(_ body: (inout StoreState) throws -> T) rethrows -> T {
        stateLock.lock()
        defer { stateLock.unlock() }
        return try body(&state)
    }


    /// Validates, appends, syncs and applies. Caller holds the writer lock and the exclusive file lock.
    func commit(_ transaction: inout WriteTransaction, author: String?) throws -> JournalTransaction {
        guard transaction.base.lastSequence < SequenceLimits.maximum else {
            throw StorageError(
                .inconsistentStore, "the store is at sequence \(transaction.base.lastSequence), the largest there is; no transaction can follow it")
        }
        let committed = transaction.takeJournalTransaction(
            transactionID: UUID().uuidString, timestamp: Timestamp.truncated(Date()), author: author)
        // The transaction's view of the state is no longer needed. Releasing it keeps the state uniquely
        // referenced, so applying the transaction changes it in place instead of copying every table.
        transaction.base = StoreState()
        // Blobs referred to must exist before the transaction that refers to them. The line's records
        // are searched for references as they are written, on the threads that write them.
        var spans: InsertedRecordSpans? = nil
        let hashes = try committed.encodeLine(into: &lineBuffer, spans: &spans, collectingBlobReferences: true)
        for hash in hashes {
            if let paths {
                guard try fs.status(atPath: "\(paths.directory)/\(BlobStore.relativePath(hash))") != nil else {
                    throw StorageError(.blobNotFound, "a record refers to blob \(hash), which was not stored; call putBlob first")
                }
            } else if withState({ _ in memoryBlobs[hash] }) == nil {
                throw StorageError(.blobNotFound, "a record refers to blob \(hash), which was not stored; call putBlob first")
            }
        }
        let line = lineBuffer
        guard line.count - 1 <= configuration.maximumLineBytes else {
            throw StorageError(
                .lineTooLong,
                "the transaction's journal line would be \(line.count - 1) bytes, more than the configured maximum of \(configuration.maximumLineBytes) that readers accept; save in smaller transactions",
                file: paths?.journal)
        }
        if let paths {
            try append(line, paths: paths)
        }
        withStateMutation { state in
            _ = state.apply(committed)
            retained.append(committed)
            if paths != nil {
                if let spans { insertedSpans[committed.sequence] = spans }
                journalEnd += Int64(line.count)
                journalLines += 1
            }
        }
        return committed
    }

    private func append(_ line: [UInt8], paths: StorePaths) throws {
        if journalFile == nil {
            let file = try fs.open(paths.journal, .readWriteCreate)
            journalFile = file
            do {
                try fs.syncDirectory(paths.directory)
                let identity = try fs.status(file)
                withStateMutation { _ in journalIdentity = identity }
            } catch {
                // The next catch-up sees the identity change and reloads.
                throw error
            }
        }
        guard let journalFile else { return }
        if tailLength > 0 {
            try moveTornTail(paths: paths, journal: journalFile)
        }
        do {
            try fs.writeAll(journalFile, line, at: journalEnd)
        } catch {
            do {
                try fs.truncate(journalFile, to: journalEnd)
            } catch let truncateError as StorageError {
                poisonError = truncateError
            }
            throw error
        }
        switch configuration.durability {
        case .always:
            do { try fs.sync(journalFile) } catch let error as StorageError {
                poisonError = error
                throw error
            }
        case .batched:
            unsyncedWrites = true
        case .none:
            break
        }
    }

    /// Moves an incomplete last line to `journal.jsonl.corrupt-tail`, then truncates it away.
    func moveTornTail(paths: StorePaths, journal: FileDescriptor) throws {
        var tail = [UInt8](repeating: 0, count: Int(tailLength))
        var filled = 0
        while filled < tail.count {
            let count = try tail.withUnsafeMutableBytes { raw in
                try fs.read(journal, into: UnsafeMutableRawBufferPointer(rebasing: raw[filled...]), at: journalEnd + Int64(filled))
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
            try fs.truncate(journal, to: journalEnd)
            try fs.sync(journal)
        } catch let error as StorageError {
            // The journal's length on disk is now unknown: refuse writes until reopened.
            poisonError = error
            throw error
        }
        withStateMutation { _ in
            openWarnings.append("moved a \(filled)-byte incomplete journal line to \(paths.corruptTail)")
            tailLength = 0
        }
    }

}
