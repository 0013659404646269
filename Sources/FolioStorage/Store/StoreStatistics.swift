import Foundation

/// Facts about a store for an `info` command.
public struct StoreStatistics: Sendable, Hashable {
    /// The on-disk format version (``formatVersion`` of this build for in-memory stores).
    public var formatVersion: Int64
    /// Records per entity.
    public var recordCounts: [String: Int]
    /// Sizes in bytes of the store's files, by path relative to the store directory.
    public var fileSizes: [String: Int64]
    /// Complete transactions in the journal (appended since the last compaction).
    public var journalTransactions: Int
    /// Bytes in the journal.
    public var journalBytes: Int64
    /// The last transaction, if still in history.
    public var lastTransaction: JournalTransaction?
    /// The last sequence number.
    public var lastSequence: UInt64
    /// Transactions readable through ``Store/history(after:)``.
    public var retainedTransactions: Int
    /// Whether the journal has outgrown ``StoreConfiguration/compactionThreshold`` and what a compaction
    /// rewrites (the snapshots, and the retained history up to the snapshots' size).
    public var isCompactionDue: Bool
}

extension Store {
    /// The format version this build writes.
    public static var formatVersion: Int64 { Manifest.currentVersion }

    /// The snapshot file format version this build writes, and the newest it reads.
    package static var snapshotFormatVersion: Int64 { SnapshotFile.version }

    /// Statistics for an `info` command.
    public func statistics() throws -> StoreStatistics {
        try loadRecords()
        try loadHistoryFileIfNeeded()
        var sizes: [String: Int64] = [:]
        if let paths {
            for name in ["manifest.json", "journal.jsonl", "history.jsonl"] {
                if let status = try fs.status(atPath: "\(paths.directory)/\(name)") { sizes[name] = status.size }
            }
            for name in try fs.contentsOfDirectory(paths.snapshots) where !FileSystemNames.isTemporary(name) {
                if let status = try fs.status(atPath: "\(paths.snapshots)/\(name)") { sizes["snapshots/\(name)"] = status.size }
            }
            var blobSizes: [Int64] = []
            for shard in try fs.contentsOfDirectory(paths.blobs) {
                for name in try fs.contentsOfDirectory("\(paths.blobs)/\(shard)") {
                    blobSizes.append(try fs.status(atPath: "\(paths.blobs)/\(shard)/\(name)")?.size ?? 0)
                }
            }
            // Sparse files may claim any size: the total is held at Int64.max rather than overflow.
            let blobBytes = blobSizes.saturatingSum()
            if blobBytes > 0 { sizes["blobs"] = blobBytes }
        }
        let compactionDue = isCompactionDue()
        return withReadState { read in
            StoreStatistics(
                formatVersion: Manifest.currentVersion,
                recordCounts: read.state.recordCounts,
                fileSizes: sizes, journalTransactions: read.journalLines, journalBytes: read.journalEnd + read.tailLength,
                lastTransaction: read.retained.last.flatMap { $0.sequence == read.state.lastSequence ? $0 : nil },
                lastSequence: read.state.lastSequence, retainedTransactions: read.retained.count,
                isCompactionDue: compactionDue)
        }
    }
}
