import Foundation

/// What loading a store directory produced.
struct LoadedStore {
    var state = StoreState()
    var manifest = Manifest()
    /// Retained history and journal transactions, ascending and contiguous.
    var history: [JournalTransaction] = []
    /// The journal's identity when it was read (nil: no journal file yet).
    var journalStatus: FileStatus? = nil
    /// Offset after the last complete journal line.
    var journalValidEnd: Int64 = 0
    /// Complete lines in the journal.
    var journalLines = 0
    /// Bytes after the last complete journal line (a torn append).
    var tailLength: Int64 = 0
    /// Warnings to surface (torn tails ignored, ...).
    var warnings: [String] = []
    /// The header sequence of each snapshot file on disk.
    var snapshotBases: [String: UInt64] = [:]
    /// The conflicts snapshot headers record (see ``SnapshotFile/Header/conflicts``), by entity.
    var snapshotConflicts: [String: [MergeConflict]] = [:]
    /// The size of each snapshot file read, by entity.
    var snapshotSizes: [String: Int64] = [:]
    /// What the files need mended after a git merge, and what a read-only load mended in memory.
    var mend = MergeMend()
}

/// Rebuilds a store's state from its directory: manifest, snapshots, history, journal.
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
        let fs = configuration.fileSystem
        var loaded = LoadedStore()
        let unsafe = try StoreFileSafety.unsafePaths(paths, fileSystem: fs, report: report)
        if unsafe.contains(paths.manifest) { return loaded }
        guard try fs.status(atPath: paths.manifest) != nil else {
            let names = try fs.contentsOfDirectory(paths.directory)
            let storeFiles = names.filter { ["journal.jsonl", "history.jsonl", "snapshots"].contains($0) }
            if !storeFiles.isEmpty {
                try report(
                    StorageError(
                        .missingManifest,
                        "manifest.json is missing but \(storeFiles.joined(separator: ", ")) exist; restore the manifest from git or a backup",
                        file: paths.manifest))
            }
            return loaded
        }
        loaded.manifest = try Manifest.decode(try fs.readSmallFile(paths.manifest), path: paths.manifest)
        let manifest = loaded.manifest
        loaded.state.lastSequence = manifest.sequence
        loaded.state.counters = manifest.counters
        loaded.state.schema = manifest.schema

        func checkEntity(_ entity: String, file: String, line: Int, offset: Int64) throws -> Bool {
            if !EntityName.isValid(entity) {
                try report(StorageError(.malformedLine, "\"\(entity)\" is not a valid entity name", file: file, line: line, offset: offset))
                return false
            }
            if let known = configuration.knownEntities, !known.contains(entity) {
                try report(
                    StorageError(
                        .unknownEntity,
                        "record of unknown entity \"\(entity)\"; add it to the schema or open with a configuration that knows it",
                        file: file, line: line, offset: offset))
                return false
            }
            return true
        }

        /// Scans a file, reporting a line longer than the limit (which ends the file's scan) like any
        /// other problem; `nil` after such a line.
        func scanLines(_ file: FileDescriptor, _ body: (ScannedLine) throws -> Void) throws -> ScanResult? {
            do {
                return try LineScanner.scan(fs, file, maximumLineBytes: configuration.maximumLineBytes, body)
            } catch let error as StorageError where error.code == .lineTooLong && error.file == file.path {
                try report(error)
                return nil
            }
        }

        // Snapshots.
        var bases: [String: UInt64] = [:]
        // The highest record identifier in a snapshot, which the counters must be past.
        var highestSnapshotID: (id: Int64, path: String)? = nil
        let snapshotNames = unsafe.contains(paths.snapshots) ? [] : try fs.contentsOfDirectory(paths.snapshots)
        for name in snapshotNames where name.hasSuffix(".jsonl") && !FileSystemNames.isTemporary(name) {
            let entity = String(name.dropLast(6))
            let path = "\(paths.snapshots)/\(name)"
            if unsafe.contains(path) { continue }
            let file = try fs.open(path, .read)
            defer { fs.close(file) }
            // No count read from the file sizes memory beyond what the file can hold.
            let fileSize = try fs.status(file).size
            var header: SnapshotFile.Header? = nil
            let position = loaded.state.position(ofEntity: entity)
            var previousID: Int64? = nil
            let reader = JSONReader()
            var entityAccepted = true
            let scanned = try scanLines(file) { line in
                do {
                    let fast = line.number > 1 && header != nil ? try SnapshotFile.fastRecord(line.bytes) : nil
                    let members = fast == nil ? try LineFraming.decode(line.bytes, reader: reader) : [:]
                    if line.number == 1 {
                        let decoded = try SnapshotFile.decodeHeader(members)
                        guard decoded.entity == entity else {
                            throw StorageError(.malformedLine, "header names entity \"\(decoded.entity)\" but the file is \(name)")
                        }
                        entityAccepted = try checkEntity(entity, file: path, line: 1, offset: 0)
                        header = decoded
                        if !decoded.conflicts.isEmpty { loaded.snapshotConflicts[entity] = decoded.conflicts }
                        loaded.state.reserveCapacity(min(decoded.records, SnapshotFile.maximumRecordCount(inFileOfSize: fileSize)))
                        return
                    }
                    guard header != nil else { return }
                    let (id, values) = try fast ?? SnapshotFile.decodeRecord(members)
                    guard IdentifierLimits.isValid(id) else {
                        throw StorageError(.malformedLine, "record identifier \(id) is out of range (1…2^62-1)")
                    }
                    if let previousID, id <= previousID {
                        throw StorageError(
                            .inconsistentStore,
                            id == previousID ? "record \(id) appears twice" : "record \(id) is out of order (after \(previousID))")
                    }
                    previousID = id
                    if id > highestSnapshotID?.id ?? 0 { highestSnapshotID = (id, path) }
                    if checkingBlobReferences, let problem = BlobStore.malformedReference(in: values) {
                        throw StorageError(.blobNotFound, "record \(id) \(problem)")
                    }
                    if !entityAccepted { return }
                    if let owner = loaded.state.insert(id: id, entity: position, values: values) {
                        throw StorageError(.inconsistentStore, "identifier \(id) is also used by entity \(owner)")
                    }
                    loaded.state.counters.note(id &+ 1)
                } catch var error as StorageError {
                    error.file = path
                    error.line = line.number
                    error.offset = line.offset + (error.offset ?? 0)
                    try report(error)
                }
            }
            guard let result = scanned else { continue }
            if result.tailLength > 0 {
                try report(
                    StorageError(
                        .malformedLine, "snapshot ends in an incomplete line (\(result.tailLength) bytes); restore it from git or a backup",
                        file: path, line: result.lineCount + 1, offset: result.validEnd))
            }
            guard let header else {
                if result.lineCount == 0 && result.tailLength == 0 {
                    try report(StorageError(.malformedLine, "snapshot file is empty (no header line)", file: path, line: 1, offset: 0))
                }
                continue
            }
            if header.records != result.lineCount - 1 {
                try report(
                    StorageError(
                        .inconsistentStore,
                        "header says \(header.records) records but the file has \(result.lineCount - 1); the file was truncated or edited",
                        file: path, line: 1, offset: 0))
            }
            loaded.state.lastModified[entity] = header.sequence
            loaded.snapshotSizes[entity] = fileSize
            bases[entity] = header.sequence
        }

        // Retained history (already contained in the snapshots: never applied). Loaded lazily by stores.
        var historyBySequence: [UInt64: JournalTransaction] = [:]
        if includeHistoryFile && !unsafe.contains(paths.history) {
            for transaction in try loadHistoryFile(paths, configuration: configuration, report: report) {
                historyBySequence[transaction.sequence] = transaction
            }
        }

        // Journal.
        var highestNextID = manifest.nextID
        if !unsafe.contains(paths.journal), try fs.status(atPath: paths.journal) != nil {
            let file = try fs.open(paths.journal, .read)
            defer { fs.close(file) }
            loaded.journalStatus = try fs.status(file)
            var previous: UInt64? = nil
            var badLineBefore = false
            let reporting: (StorageError) throws -> Void = { error in
                badLineBefore = true
                try report(error)
            }
            var lastLine: (sequence: UInt64, line: Int)? = nil
            let scanned: ScanResult?
            do {
                scanned = try JournalReader.read(
                    fs, file, maximumLineBytes: configuration.maximumLineBytes, report: reporting
                ) { transaction, line in
                    let sequence = transaction.sequence
                    if sequence > lastLine?.sequence ?? 0 { lastLine = (sequence, line.number) }
                    highestNextID = max(highestNextID, transaction.nextID)
                    if let previous {
                        if sequence <= previous {
                            try report(
                                StorageError(
                                    .duplicateSequence,
                                    "sequence \(sequence) comes after \(previous): the journal was merged or edited; keep one copy of each transaction",
                                    file: paths.journal, line: line.number, offset: line.offset))
                            return
                        }
                        if sequence != previous + 1 && !badLineBefore {
                            try report(
                                StorageError(
                                    .missingSequence,
                                    "sequence \(sequence) follows \(previous): transactions \(previous + 1)…\(sequence - 1) are missing; restore them from git or a backup",
                                    file: paths.journal, line: line.number, offset: line.offset))
                        }
                    } else if sequence > manifest.sequence + 1 {
                        try report(
                            StorageError(
                                .missingSequence,
                                "the journal starts at sequence \(sequence) but the snapshots end at \(manifest.sequence); transactions are missing",
                                file: paths.journal, line: line.number, offset: line.offset))
                    }
                    badLineBefore = false
                    let isFirst = previous == nil
                    previous = sequence
                    if transaction.isCompactionMark {
                        if !isFirst || sequence > manifest.sequence {
                            try report(
                                StorageError(
                                    .inconsistentStore,
                                    isFirst
                                        ? "the journal's compaction mark says the snapshots hold transaction \(sequence), but manifest member \"sequence\" says \(manifest.sequence): restore the manifest and the journal from the same commit or backup"
                                        : "a compaction mark (\"compacted\":true) may only be the journal's first line",
                                    file: paths.journal, line: line.number, offset: line.offset))
                        }
                        loaded.mend.mergedBase = transaction.mergedBase
                        return
                    }
                    for entity in transaction.entitiesNeedingKnown {
                        _ = try checkEntity(entity, file: paths.journal, line: line.number, offset: line.offset)
                    }
                    if checkingBlobReferences {
                        for record in transaction.inserted + transaction.updated {
                            if let problem = BlobStore.malformedReference(in: record.values) {
                                try report(
                                    StorageError(
                                        .blobNotFound, "transaction \(sequence), record \(record.id) \(problem)", file: paths.journal,
                                        line: line.number, offset: line.offset))
                            }
                        }
                    }
                    let problems = loaded.state.apply(
                        transaction, entityBase: { bases[$0] ?? manifest.sequence }, globalBase: manifest.sequence)
                    for problem in problems {
                        try report(
                            StorageError(
                                .inconsistentStore, "transaction \(sequence) \(problem)", file: paths.journal, line: line.number,
                                offset: line.offset))
                    }
                    historyBySequence[sequence] = transaction
                }
            } catch let error as StorageError where error.code == .lineTooLong && error.file == file.path {
                try report(error)
                scanned = nil
            }
            // A journal holds the transactions after the manifest's sequence (and, after an interrupted
            // compaction, the ones before it): a journal ending before the manifest lost transactions,
            // and a write after it would leave a gap.
            if let lastLine, lastLine.sequence < manifest.sequence {
                try report(
                    StorageError(
                        .inconsistentStore,
                        "the journal ends at sequence \(lastLine.sequence) but manifest member \"sequence\" says the snapshots are at \(manifest.sequence); the manifest or the journal does not belong to this store: restore both from the same commit or backup",
                        file: paths.journal, line: lastLine.line))
            }
            if let result = scanned {
                loaded.journalValidEnd = result.validEnd
                loaded.journalLines = result.lineCount
                loaded.tailLength = result.tailLength
                if result.tailLength > 0 {
                    if result.tailLength > configuration.maximumTornTailBytes {
                        try report(
                            StorageError(
                                .tailTooLarge,
                                "the journal ends in \(result.tailLength) bytes that are not a complete line, more than the \(configuration.maximumTornTailBytes)-byte limit for a torn append; run `folio verify`",
                                file: paths.journal, line: result.lineCount + 1, offset: result.validEnd))
                    } else {
                        loaded.warnings.append(
                            "\(paths.journal):\(result.lineCount + 1) (byte \(result.validEnd)): ignored an incomplete last line of \(result.tailLength) bytes (an interrupted append); it will be moved to journal.jsonl.corrupt-tail on the next write")
                    }
                }
            }
        }
        for (entity, base) in bases where base > loaded.state.lastSequence {
            try report(
                StorageError(
                    .inconsistentStore,
                    "snapshot is at sequence \(base) but the journal ends at \(loaded.state.lastSequence); journal transactions are missing",
                    file: paths.snapshot(entity), line: 1, offset: 0))
        }
        if let highestSnapshotID, highestSnapshotID.id >= highestNextID {
            try report(
                StorageError(
                    .inconsistentStore,
                    "record \(highestSnapshotID.id) is at or past the next identifier, \(highestNextID) (manifest member \"nextID\" and the journal's \"nextID\"); a new record would reuse its identifier: restore the manifest from the same commit or backup as the snapshots",
                    file: highestSnapshotID.path))
        }
        loaded.snapshotBases = bases
        loaded.history = historyBySequence.keys.sorted().compactMap { historyBySequence[$0] }
        // A merge of two copies that compacted a base with transactions in its journal: the replay of
        // that journal decides what the snapshot merge guessed (see ``BaseJournalReplay``).
        var replay: BaseJournalReplay? = nil
        if let mergedBase = loaded.mend.mergedBase, manifest.needsReconciliation || !loaded.snapshotConflicts.isEmpty {
            loaded.mend.baseHistory = includeHistoryFile
                ? loaded.history.filter { $0.sequence <= manifest.sequence }
                : try loadHistoryFile(paths, configuration: configuration, report: report)
            do {
                replay = try loaded.baseJournalReplay(mergedBase, compactionPoint: manifest.sequence, historyPath: paths.history)
                loaded.snapshotConflicts = replay?.superseding(loaded.snapshotConflicts) ?? loaded.snapshotConflicts
            } catch let error as StorageError {
                try report(error)
            }
        }
        if manifest.needsReconciliation {
            if configuration.readOnly { loaded.reconcileInMemory(replaying: replay) } else { loaded.mend.isPending = true }
        }
        return loaded
    }
}

extension LoadedStore {
    /// Applies the ``CrossFileReconciliation`` a git-merged manifest asks for to the records in memory,
    /// without a transaction: what a read-only store shows of a merge it cannot write to.
    /// A ``BaseJournalReplay`` comes first.
    mutating func reconcileInMemory(replaying replay: BaseJournalReplay?) {
        var parts: [String] = []
        if let replay, !replay.isEmpty {
            applyInMemory(updated: replay.updates, deleted: replay.deletes)
            mend.lostInMemory += replay.conflicts
            parts.append(replay.summary)
        }
        let reconciliation = CrossFileReconciliation(state: state, schema: MergeSchema(state.schema))
        if !reconciliation.isEmpty {
            applyInMemory(updated: reconciliation.updatedRecords, deleted: reconciliation.deletes)
            mend.lostInMemory += reconciliation.conflicts
            parts.append(reconciliation.summary)
        }
        guard !parts.isEmpty else { return }
        let note = "git merged the snapshot files one by one; mended in memory: \(parts.joined(separator: "; ")). The next writable open commits the mend (folio conflicts lists what it dropped)"
        mend.note = note
        warnings.append(note)
    }

    /// Applies changes to the records without a transaction.
    private mutating func applyInMemory(updated: [StoredRecord], deleted: [DeletedRecord]) {
        let changes = JournalTransaction(
            sequence: state.lastSequence, transactionID: "", timestamp: Timestamp.truncated(Date()), author: CrossFileReconciliation.author,
            inserted: [], updated: updated, deleted: deleted, nextID: state.nextID)
        _ = state.apply(changes, globalBase: state.lastSequence)
    }

    /// The ``BaseJournalReplay`` of the loaded records, from the history file's lines and the journal's.
    func baseJournalReplay(_ mergedBase: MergedBase, compactionPoint: UInt64, historyPath: String) throws -> BaseJournalReplay {
        try BaseJournalReplay(
            state: state, history: mend.baseHistory + history.filter { $0.sequence > compactionPoint }, mergedBase: mergedBase,
            compactionPoint: compactionPoint, schema: MergeSchema(state.schema), historyPath: historyPath)
    }
}

extension StoreLoader {
    /// Reads `history.jsonl`: the retained transactions already folded into the snapshots.
    static func loadHistoryFile(
        _ paths: StorePaths, configuration: StoreConfiguration, report: (StorageError) throws -> Void
    ) throws -> [JournalTransaction] {
        let fs = configuration.fileSystem
        guard try fs.status(atPath: paths.history) != nil else { return [] }
        let file = try fs.open(paths.history, .read)
        defer { fs.close(file) }
        var previous: UInt64? = nil
        var transactions: [JournalTransaction] = []
        let result: ScanResult
        do {
            result = try JournalReader.read(fs, file, maximumLineBytes: configuration.maximumLineBytes, report: report) { transaction, line in
                if let previous, transaction.sequence != previous + 1 {
                    try report(
                        StorageError(
                            transaction.sequence <= previous ? .duplicateSequence : .missingSequence,
                            "history sequence \(transaction.sequence) follows \(previous)", file: paths.history, line: line.number,
                            offset: line.offset))
                }
                previous = transaction.sequence
                transactions.append(transaction)
            }
        } catch let error as StorageError where error.code == .lineTooLong && error.file == file.path {
            try report(error)
            return transactions
        }
        if result.tailLength > 0 {
            try report(
                StorageError(
                    .malformedLine, "history ends in an incomplete line", file: paths.history, line: result.lineCount + 1,
                    offset: result.validEnd))
        }
        return transactions
    }
}

extension StoreLoader {
    /// `transactions` (oldest first) together with those of `history.jsonl`, oldest first; a sequence in
    /// both (the files overlap after an interrupted compaction) is taken from `transactions`.
    static func merging(
        _ transactions: [JournalTransaction], withHistoryFileIn paths: StorePaths, configuration: StoreConfiguration
    ) throws -> [JournalTransaction] {
        var bySequence: [UInt64: JournalTransaction] = [:]
        for transaction in try loadHistoryFile(paths, configuration: configuration, report: { throw $0 }) {
            bySequence[transaction.sequence] = transaction
        }
        for transaction in transactions { bySequence[transaction.sequence] = transaction }
        return bySequence.keys.sorted().compactMap { bySequence[$0] }
    }
}

/// Names of files the engine treats specially.
enum FileSystemNames {
    static func isTemporary(_ name: String) -> Bool { name.contains(".tmp-") }
}
