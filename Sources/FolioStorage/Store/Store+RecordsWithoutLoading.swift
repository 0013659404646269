/// Answering a lookup on one member of one entity before the records are read
/// (``StoreConfiguration/defersLoadingRecords``), from the entity's snapshot cache and the journal.
///
/// The snapshot cache (``SnapshotCache``) says which record lines of the entity's snapshot file hold
/// each value of the member; only those lines are read, each checked against its own checksum and
/// identifier. The journal's transactions, which opening read, are laid over them. What comes back is
/// every record that may match, with its current values: the caller evaluates its own predicate on
/// them, so a record the cache lists but that no longer matches costs a line read, never a wrong answer.
extension Store {
    /// A record read without loading the store: its number, current values, and the sequence of the
    /// transaction that last wrote it (0 for a record read from a snapshot).
    package struct UnloadedRecord {
        package let id: Int64
        package let values: RecordValues
        package let version: UInt64
    }

    /// The records of `entity` whose `member` may equal `key` (those that have that value, and those
    /// that have no value for the member, which read its default), in increasing number order, read
    /// without loading the store's records; `nil` when the store cannot answer that way: the records
    /// are loaded already (ask them instead), the entity's snapshot has no usable cache for the member
    /// (the caller loads the records, which rebuilds it), or the journal changes the member of a record
    /// the cache does not list.
    ///
    /// - Throws: ``StorageError`` when the store is closed or the journal changed and cannot be read.
    package func recordsWithoutLoading(of entity: String, member: String, mayEqual key: JSONValue) throws -> [UnloadedRecord]? {
        guard let paths, withReadState({ $0.deferredRecordCounts != nil }) else { return nil }
        return try withWriter("Store.recordsWithoutLoading") { journal -> [UnloadedRecord]? in
            try journal.checkOpen()
            try peekAgainIfChangedLocked(&journal)
            let (deferred, snapshotBase, entityBase, transactions) = withReadState { read in
                (
                    read.deferredRecordCounts != nil, read.snapshotBases[entity],
                    read.snapshotBases[entity] ?? read.manifestSequence, read.retained
                )
            }
            guard deferred else { return nil }
            try journal.takeFileLock(fs, exclusive: false)
            defer { journal.releaseFileLock(fs) }
            var records: [Int64: (values: RecordValues, version: UInt64)] = [:]
            if let snapshotBase {
                guard let found = snapshotCandidates(of: entity, member: member, key: key, base: snapshotBase, paths: paths)
                else { return nil }
                for (id, values) in found { records[id] = (values, 0) }
            }
            // Lines the snapshot already holds (after an interrupted compaction) are skipped, as a load does.
            for transaction in transactions where transaction.sequence > entityBase {
                guard transaction.migrations.isEmpty else { return nil }
                for deleted in transaction.deleted where deleted.entity == entity { records[deleted.id] = nil }
                for inserted in transaction.inserted where inserted.entity == entity {
                    records[inserted.id] = (inserted.values, transaction.sequence)
                }
                for updated in transaction.updated where updated.entity == entity {
                    if let current = records[updated.id] {
                        records[updated.id] = (current.values.merging(updated.values), transaction.sequence)
                    } else if updated.values[member] != nil {
                        // A record the cache did not list takes a new value for the member: its other
                        // values are in a snapshot line the cache cannot find by number.
                        return nil
                    }
                }
            }
            return records.keys.sorted().compactMap { id in
                records[id].map { UnloadedRecord(id: id, values: $0.values, version: $0.version) }
            }
        }
    }

    /// Peeks at the files again when another process changed them since the last peek, so that a
    /// lookup sees what a load would. Caller holds the writer lock and no file lock.
    func peekAgainIfChangedLocked(_ journal: inout JournalWriter) throws {
        guard let paths, withReadState({ $0.deferredRecordCounts != nil }), hasExternalChanges() else { return }
        try journal.takeFileLock(fs, exclusive: false)
        let peek = StoreLoader.peek(paths, configuration: configuration)
        journal.releaseFileLock(fs)
        if let peek {
            withReadState { read in
                read.install(peek.loaded)
                read.deferredRecordCounts = peek.recordCounts
            }
            try openJournal(&journal)
        } else {
            try loadDeferredRecordsLocked(&journal)
        }
    }

    /// The records of `entity`'s snapshot whose `member` may equal `key`, from its cache, in increasing
    /// number order; nil without a usable cache, or when reading through it fails in any way: the caller
    /// then loads the records, which reports a damaged snapshot precisely and writes the cache again.
    /// Caller holds a file lock.
    func snapshotCandidates(
        of entity: String, member: String, key: JSONValue, base: UInt64,
        paths: StorePaths
    ) -> [(id: Int64, values: RecordValues)]? {
        do {
            guard
                case .success(let cache) = try SnapshotCache.open(
                    at: paths.snapshotCache(entity), snapshotAt: paths.snapshot(entity),
                    fileSystem: fs),
                // The snapshot the cache describes is the one opening counted from.
                cache.source.sequence == base,
                let keyed = try cache.lookup(member: member, key: SnapshotCacheBuilder.lookupKey(key)),
                let missing = try cache.missingPostings(member: member)
            else { return nil }
            let postings = missing.isEmpty ? keyed : (keyed + missing).sorted { $0.id < $1.id }
            return try cache.readRecords(postings)
        } catch {
            return nil
        }
    }
}
