/// Opening a store without reading its records: the manifest, the first line of each snapshot file
/// and the journal, which together give every entity's record count.
///
/// A snapshot header's record count is trusted only when the file has the size the manifest recorded
/// for it at the last compaction (`snapshotBytes`), so a truncated or edited file is never counted
/// from its header. Everything that cannot be settled this cheaply (no manifest, an old manifest
/// without sizes, one git merged from two compacted copies (``Manifest/needsReconciliation``), a
/// journal larger than ``peekJournalLimit``, a torn journal tail, a journal line with a migration, any
/// problem at all) gives `nil`, and the caller loads the store the usual way, which reports the problem
/// precisely.
extension StoreLoader {
    /// The largest journal read when peeking; a larger one is cheaper to load once than to read twice.
    static let peekJournalLimit: Int64 = 16 << 20

    /// What peeking found: the store's state without records, and each entity's record count.
    struct Peek {
        var loaded: LoadedStore
        var recordCounts: [String: Int]
    }

    /// Peeks at the store in `paths`. Caller holds a file lock, as for ``load(_:configuration:includeHistoryFile:checkingBlobReferences:report:)``.
    static func peek(_ paths: StorePaths, configuration: StoreConfiguration) -> Peek? {
        try? peekThrowing(paths, configuration: configuration)
    }

    private static func peekThrowing(_ paths: StorePaths, configuration: StoreConfiguration) throws -> Peek? {
        let fs = configuration.fileSystem
        try StoreFileSafety.check(paths, fileSystem: fs)
        guard try fs.status(atPath: paths.manifest) != nil else { return nil }
        let manifest = try Manifest.decode(try fs.readSmallFile(paths.manifest), path: paths.manifest)
        guard !manifest.snapshotBytes.isEmpty, !manifest.needsReconciliation else { return nil }
        var loaded = LoadedStore()
        loaded.manifest = manifest
        loaded.state = ManifestPhase.initialState(manifest)
        var counts: [String: Int] = [:]
        var bases: [String: UInt64] = [:]

        func isKnown(_ entity: String) -> Bool {
            EntityName.isValid(entity) && configuration.knownEntities.map { $0.contains(entity) } != false
        }

        // Snapshot headers, each file of the size the manifest recorded.
        var seen = Set<String>()
        for name in try fs.contentsOfDirectory(paths.snapshots) where name.hasSuffix(".jsonl") && !FileSystemNames.isTemporary(name) {
            let entity = String(name.dropLast(6))
            let path = "\(paths.snapshots)/\(name)"
            guard isKnown(entity), let size = try fs.status(atPath: path)?.size, manifest.snapshotBytes[entity] == size else { return nil }
            let header = try readSnapshotHeader(path, fileSystem: fs)
            // Conflicts a merge recorded in a header are read with the records.
            guard header.entity == entity, header.sequence <= manifest.sequence, header.conflicts.isEmpty else { return nil }
            counts[entity] = header.records
            bases[entity] = header.sequence
            loaded.state.lastModified[entity] = header.sequence
            seen.insert(entity)
        }
        guard seen == Set(manifest.snapshotBytes.keys) else { return nil }

        // The journal: complete, contiguous, small.
        if let status = try fs.status(atPath: paths.journal) {
            guard status.size <= peekJournalLimit else { return nil }
            let file = try fs.open(paths.journal, .read)
            defer { fs.close(file) }
            loaded.journalStatus = try fs.status(file)
            var previous: UInt64? = nil
            let result = try JournalReader.read(fs, file, maximumLineBytes: configuration.maximumLineBytes, report: { throw $0 }) { transaction, _ in
                let sequence = transaction.sequence
                if let previous {
                    guard sequence == previous + 1 else { throw StorageError(.missingSequence, "not contiguous") }
                } else {
                    guard sequence <= manifest.sequence + 1 else { throw StorageError(.missingSequence, "not contiguous") }
                }
                previous = sequence
                if transaction.isCompactionMark {
                    // Only as the first line, naming a transaction the snapshots hold; anything else the
                    // full load reports.
                    guard loaded.history.isEmpty, sequence <= manifest.sequence else { throw StorageError(.malformedLine, "a misplaced mark") }
                    return
                }
                // A migration changes counts (and removes entities) in ways only replaying the records
                // shows: such a journal is loaded in full, until a compaction folds the migration in.
                if !transaction.writtenMigrations.isEmpty { throw StorageError(.malformedLine, "a migration: load in full") }
                for entity in transaction.entitiesNeedingKnown where !isKnown(entity) { throw StorageError(.unknownEntity, entity) }
                for record in transaction.inserted where sequence > bases[record.entity] ?? manifest.sequence {
                    counts[record.entity, default: 0] += 1
                }
                for record in transaction.deleted where sequence > bases[record.entity] ?? manifest.sequence {
                    counts[record.entity, default: 0] -= 1
                }
                for entity in transaction.entities where sequence > bases[entity] ?? manifest.sequence {
                    loaded.state.lastModified[entity] = sequence
                }
                if sequence > manifest.sequence {
                    loaded.state.counters.note(transaction.nextID)
                    for record in transaction.inserted { loaded.state.counters.note(record.id &+ 1) }
                    if let schema = transaction.schema { loaded.state.schema = schema }
                }
                loaded.state.lastSequence = max(loaded.state.lastSequence, sequence)
                // Kept as a full load keeps them: the journal is small, and a lookup without the
                // records lays its changes over the snapshots' (see `Store.recordsWithoutLoading`).
                loaded.history.append(transaction)
            }
            guard result.tailLength == 0 else { return nil }
            // A journal ending before the manifest is a disagreement the full load reports.
            if let previous, previous < manifest.sequence { return nil }
            loaded.journalValidEnd = result.validEnd
            loaded.journalLines = result.lineCount
        }
        guard counts.values.allSatisfy({ $0 >= 0 }) else { return nil }
        loaded.snapshotBases = bases
        return Peek(loaded: loaded, recordCounts: counts.filter { $0.value > 0 })
    }

    /// The header of a snapshot file, read from its first line only.
    static func readSnapshotHeader(_ path: String, fileSystem fs: any FileSystem) throws -> SnapshotFile.Header {
        let file = try fs.open(path, .read)
        defer { fs.close(file) }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = try buffer.withUnsafeMutableBytes { try fs.read(file, into: $0, at: 0) }
        guard let newline = buffer[..<count].firstIndex(of: 0x0A) else {
            throw StorageError(.malformedLine, "no complete header line")
        }
        let end = newline > 0 && buffer[newline - 1] == 0x0D ? newline - 1 : newline
        return try buffer.withUnsafeBufferPointer { all in
            try SnapshotFile.decodeHeader(LineFraming.decode(UnsafeBufferPointer(rebasing: all[..<end])))
        }
    }
}
