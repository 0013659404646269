import Foundation

/// Blame of one record read straight from a store's files, without opening the store: the manifest,
/// the snapshot headers, the record's line of its snapshot (``SnapshotRecordSearch``), and the lines
/// of the journal and of `history.jsonl` that name the record (``RecordMention``), each decoded only
/// as far as the record's entries (``RecordLineFilter``).
///
/// It answers only where that reading gives what a full open gives: a store with snapshots the
/// manifest describes, no merge to mend and no migration in the journal. Otherwise, and when the
/// record is not found, it returns nil and the caller opens the store, which also says what is wrong.
enum RecordBlameFiles {
    /// The blame of record `id` in the store at `paths`; the caller holds the store's lock shared.
    ///
    /// - Complexity: O(bytes of the journal and of `history.jsonl`) searched, O(log *n*) snapshot lines read.
    static func blame(of id: Int64, in paths: StorePaths, configuration: StoreConfiguration) throws -> RecordBlame? {
        let fs = configuration.fileSystem
        try StoreFileSafety.check(paths, fileSystem: fs)
        guard try fs.status(atPath: paths.manifest) != nil else { return nil }
        let manifest = try Manifest.decode(try fs.readSmallFile(paths.manifest), path: paths.manifest)
        guard !manifest.snapshotBytes.isEmpty, !manifest.needsReconciliation,
            let bases = try snapshotBases(manifest, paths: paths, fileSystem: fs),
            let journal = try JournalMentions.scan(for: id, in: paths, configuration: configuration),
            let record = try CurrentRecord.find(id, bases: bases, journal: journal.transactions, paths: paths, configuration: configuration)
        else { return nil }
        let history = try HistoryFileScan.scan(for: id, in: paths, configuration: configuration)
        let combined = HistoryPhase.combining(history: history.transactions, journal: journal.transactions)
        let oldest = [history.firstSequence, journal.firstSequence].compactMap { $0 }.min() ?? manifest.sequence + 1
        return RecordBlame(record: record, history: combined, oldestRetainedSequence: oldest)
    }

    /// Each snapshot's entity and the sequence its records are as of, from the headers; nil when the
    /// files are not the ones the manifest describes (a full open then reads or reports them).
    private static func snapshotBases(_ manifest: Manifest, paths: StorePaths, fileSystem fs: any FileSystem) throws -> [String: UInt64]? {
        var bases: [String: UInt64] = [:]
        for (entity, size) in manifest.snapshotBytes {
            let path = paths.snapshot(entity)
            guard EntityName.isValid(entity), try fs.status(atPath: path)?.size == size else { return nil }
            let header = try StoreLoader.readSnapshotHeader(path, fileSystem: fs)
            guard header.entity == entity, header.sequence <= manifest.sequence, header.conflicts.isEmpty else { return nil }
            bases[entity] = header.sequence
        }
        return bases
    }
}

/// The journal lines that can matter to one record (see ``RecordMention``), each decoded only as far as
/// the record's entries, and the sequence of the journal's first transaction.
struct JournalMentions {
    var transactions: [JournalTransaction] = []
    /// The sequence of the first line that is not a compaction mark; nil when there is none.
    var firstSequence: UInt64?

    /// The journal's lines naming record `id`; nil when a line migrates entities (a full open replays it).
    ///
    /// - Complexity: O(bytes of the journal).
    static func scan(for id: Int64, in paths: StorePaths, configuration: StoreConfiguration) throws -> JournalMentions? {
        let fs = configuration.fileSystem
        var result = JournalMentions()
        guard try fs.status(atPath: paths.journal) != nil else { return result }
        let file = try fs.open(paths.journal, .read)
        defer { fs.close(file) }
        let mention = RecordMention(id: id)
        let reader = JSONReader()
        var migrates = false
        _ = try LineScanner.scan(fs, file, maximumLineBytes: configuration.maximumLineBytes) { line in
            guard !migrates else { return }
            let isMark = JournalTransaction.isCompactionMark(line: line.bytes)
            if !isMark, result.firstSequence == nil, !mention.mayMatter(line.bytes) {
                result.firstSequence =
                    try RecordLineFilter.sequence(of: line, in: paths.journal, reader: reader)
                    ?? JournalReader.decode(line, in: paths.journal, reader: reader).sequence
            }
            guard !isMark, mention.mayMatter(line.bytes) else {
                // Checked, not decoded: damage that hid the record's identifier must not pass for a line without it.
                try RecordLineFilter.verify(line, in: paths.journal, reader: reader)
                return
            }
            let transaction = try RecordLineFilter.transaction(of: line, keepingRecord: id, in: paths.journal, reader: reader)
            if !transaction.writtenMigrations.isEmpty { migrates = true }
            if result.firstSequence == nil { result.firstSequence = transaction.sequence }
            result.transactions.append(transaction)
        }
        return migrates ? nil : result
    }
}

/// A record as the store holds it now, read from files: its snapshot line (of whichever entity has it)
/// with the journal's later transactions applied.
enum CurrentRecord {
    /// Record `id`, or nil when neither a snapshot nor `journal` holds it. `journal` may be only the
    /// transactions that name the record.
    static func find(
        _ id: Int64, bases: [String: UInt64], journal: [JournalTransaction], paths: StorePaths, configuration: StoreConfiguration
    ) throws -> StoredRecord? {
        var record: StoredRecord?
        var after: UInt64 = 0
        for (entity, base) in bases.sorted(by: { $0.key < $1.key }) {
            let search = SnapshotRecordSearch(
                path: paths.snapshot(entity), fileSystem: configuration.fileSystem, maximumLineBytes: configuration.maximumLineBytes)
            if let values = try search.values(of: id) {
                record = StoredRecord(entity: entity, id: id, values: values)
                after = base
                break
            }
        }
        for transaction in journal where transaction.sequence > after && !transaction.isCompactionMark {
            if transaction.deleted.contains(where: { $0.id == id }) { record = nil }
            if let inserted = transaction.inserted.first(where: { $0.id == id }) { record = inserted }
            if let updated = transaction.updated.first(where: { $0.id == id }), var current = record, current.entity == updated.entity {
                current.values = current.values.merging(updated.values)
                record = current
            }
        }
        return record
    }
}

extension Store {
    /// The blame of record `id` read from the files of the store at `directory` without opening it,
    /// holding the store's lock shared as a read-only open does; nil when a full open is needed to
    /// answer (see ``RecordBlameFiles``): open the store and call ``blame(id:)``.
    ///
    /// - Complexity: O(bytes of the journal and of `history.jsonl`) searched, O(log *n*) snapshot lines read.
    /// - Throws: ``StorageError`` for a damaged file that this reading decodes.
    package static func blame(id: Int64, inStoreAt directory: URL, configuration: StoreConfiguration = StoreConfiguration()) throws -> RecordBlame? {
        let paths = StorePaths(directory: directory.path)
        return try readingShared(paths, configuration) { try RecordBlameFiles.blame(of: id, in: paths, configuration: configuration) }
    }
}
