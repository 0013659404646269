import Foundation

/// How a store is opened and how hard it works to keep data.
public struct StoreConfiguration: Sendable {
    /// Where a store's new identifiers come from (see `docs/file-format.md`, *Identifiers*).
    ///
    /// An identifier is a 62-bit number whose top 30 bits name an allocation block. Sequential allocation
    /// counts on from the highest identifier in use, in its block (block 0 for every store written before
    /// blocks existed): 1, 2, 3, …. Per-clone allocation counts within a random block that this copy of
    /// the store draws once and remembers in `cache/identifier-block` (never committed): two clones of a
    /// repository insert records with identifiers that cannot collide, so their stores merge without
    /// renumbering anything.
    public enum IdentifierAllocation: Sendable, Hashable {
        /// Per clone when the store's directory is inside a git work tree, sequential otherwise.
        case automatic
        /// Count on from the highest identifier in use.
        case sequential
        /// Count within this copy's own block, wherever the store is.
        case perClone
    }

    /// When journal appends reach stable storage.
    ///
    /// | policy | process crash (kill -9) | OS crash / power loss | failed write or fsync |
    /// |---|---|---|---|
    /// | `always` | nothing acknowledged lost | nothing acknowledged lost | the write throws; a failed fsync makes the store refuse writes until reopened |
    /// | `batched(t)` | nothing acknowledged lost | at most the last `t` seconds | the next write throws, store refuses writes until reopened |
    /// | `none` | nothing acknowledged lost | whatever the OS had not flushed (~30 s on Linux) | the write throws |
    public enum Durability: Sendable, Hashable {
        /// fsync the journal before `write` returns. The default.
        case always
        /// fsync at most this many seconds after a write, from a background timer. An interval below a
        /// nanosecond (NaN included) syncs as soon as the timer can; one past 2^62 nanoseconds (about 146
        /// years, an infinity included) waits that long.
        case batched(TimeInterval)
        /// Never fsync the journal (compaction still syncs its files).
        case none
    }

    /// How much committed history compaction keeps readable through ``Store/history(after:)``.
    ///
    /// No transaction is kept unconditionally, not even the newest: with `maximumCount` 0, or when the
    /// newest transaction is older than `maximumAge` or its line alone is larger than `maximumBytes`,
    /// compaction keeps no history at all. Except in a git work tree: there a compaction keeps every
    /// transaction it folds, whatever the limits, since a git merge of two copies that both compacted
    /// replays the transactions they had in common from their histories.
    public struct HistoryRetention: Sendable, Hashable {
        /// Keep at most this many of the newest transactions (`nil`: no count limit).
        public var maximumCount: Int?
        /// Keep only transactions at most this old, in seconds (`nil`: no age limit).
        public var maximumAge: TimeInterval?
        /// Keep only the newest transactions whose journal lines add up to at most this many bytes
        /// (`nil`: no size limit); this is the size of `history.jsonl` after compaction.
        ///
        /// Counting back from the newest transaction, the first one that would take the total past the
        /// limit is dropped together with every older one, so the retained history has no gaps; a
        /// transaction larger than the limit on its own is dropped like any other.
        public var maximumBytes: Int64?

        /// Creates a retention policy; a transaction is kept when it satisfies every limit that is set.
        /// The defaults keep the newest 1,000 transactions, at most 64 MiB of them, whatever their age.
        public init(maximumCount: Int? = 1000, maximumAge: TimeInterval? = nil, maximumBytes: Int64? = 64 << 20) {
            self.maximumCount = maximumCount
            self.maximumAge = maximumAge
            self.maximumBytes = maximumBytes
        }
    }

    /// When journal appends are synced. The default is ``Durability/always``.
    public var durability: Durability = .always
    /// Compact automatically after a write once the journal is larger than this many bytes and as
    /// large as what the compaction rewrites (`nil`: only when ``Store/compact()`` is called). The
    /// default is 8 MiB.
    ///
    /// A compaction writes the snapshots and the retained history again, so it waits until the journal
    /// has grown as large as the snapshots plus the history: the bytes compactions write stay
    /// proportional to the bytes saved, and a bulk load compacts O(log n) times, not once per
    /// threshold. The history counts only up to the snapshots' size, so a compaction is due by the time
    /// the journal is twice the snapshots (or past the threshold), and a small store with a long
    /// history still compacts often enough to open quickly. The journal's transactions are also kept
    /// in memory (for ``Store/history(after:)``) until compaction.
    public var compactionThreshold: Int64? = 8 << 20
    /// Whether an automatic compaction runs on a background thread (the default) rather than inside
    /// the write that made it due.
    ///
    /// In the background, the write that finds a compaction due only records what the snapshots will
    /// hold (the state at its sequence number) and returns; the snapshot and history files are written
    /// beside the old ones while writes go on, and are then renamed into place under the writer lock,
    /// with the journal lines committed meanwhile carried over to the new journal. A write therefore
    /// never waits for the store to be rewritten. If another compaction (in any process) gets there
    /// first, the background one is abandoned. ``Store/compact()`` and ``Store/close()`` wait for it
    /// (closing makes it give up); ``Store/waitForBackgroundCompaction()`` waits without compacting.
    ///
    /// The cost: while it runs, the compaction keeps the state it folds, so the first write after it
    /// starts copies the store's record tables (the tables, not the records' values), and a process that
    /// exits meanwhile leaves temporary files, which the next compaction deletes.
    public var compactsInBackground = true
    /// What history survives compaction. The default keeps the newest 1,000 transactions, and of those
    /// only the newest that fit in 64 MiB (see ``HistoryRetention/maximumBytes``).
    public var historyRetention = HistoryRetention()
    /// The entities records may belong to; a record of any other entity makes `open` fail with
    /// ``StorageError/Code/unknownEntity`` and a write throw. `nil` (the default) accepts any entity.
    public var knownEntities: Set<String>? = nil
    /// Open without ever writing: no lock file, no repairs, writes throw ``StorageError/Code/readOnly``.
    /// The default is `false`.
    public var readOnly = false
    /// Open without reading the records: only the manifest, the first line of each snapshot file and
    /// the journal are read, enough for ``Store/recordCounts()``. The records are read
    /// by ``Store/loadRecords()``, or by the first call that needs them. A store that cannot be opened
    /// this way (an older manifest, a large journal, anything unusual) is loaded at open as usual.
    /// The default is `false`.
    package var defersLoadingRecords = false
    /// For each entity, the members its snapshot cache indexes (see ``SnapshotCache``): what a lookup
    /// before the records are read can answer (``Store/recordsWithoutLoading(of:member:mayEqual:)``).
    /// Compactions write the caches, and a load of the records writes those that are missing or stale.
    /// Empty (the default): no cache.
    package var cachedMembers: [String: [String]] = [:]
    /// Whether an in-memory store encodes each transaction's journal line at commit, to refuse what a
    /// store on disk would refuse (an unencodable value, a missing blob, a line too long). Off only for a
    /// migration's staging copy, whose transactions are checked again when the store commits them.
    package var checksLinesInMemory = true
    /// The largest journal tail (bytes after the last complete line) ignored as a torn append; a larger
    /// one makes `open` fail with ``StorageError/Code/tailTooLarge``. The default is 64 MiB.
    public var maximumTornTailBytes: Int64 = 64 << 20
    /// The longest line any reader accepts, in bytes (without its `\n`): a journal transaction, a
    /// snapshot record, a history line. A longer line is refused with ``StorageError/Code/lineTooLong``
    /// after reading at most this many bytes of it, so that a damaged or hostile file (a line without a
    /// newline, a sparse file) costs at most this much memory per reader; a write whose journal line
    /// would be longer throws the same error and appends nothing. The default is
    /// ``defaultMaximumLineBytes`` (256 MiB).
    public var maximumLineBytes: Int = StoreConfiguration.defaultMaximumLineBytes
    /// The default ``maximumLineBytes``: 256 MiB.
    public static let defaultMaximumLineBytes = 256 << 20
    /// How new records get their identifiers. The default, ``IdentifierAllocation/automatic``, gives each
    /// copy of a store inside a git work tree a block of identifiers of its own, so that clones never
    /// allocate the same identifier and a merge keeps every `PersistentIdentifier` meaning the same model.
    public var identifierAllocation: IdentifierAllocation = .automatic
    /// How long the store waits, before reading files something replaced and before each write, for git
    /// to release the index lock it holds while it rewrites the work tree (a checkout, merge, pull or
    /// reset; see ``Store/warnings`` for a lock that outlasted the wait, which is then taken for one a
    /// killed git left behind and not waited for again). The default is 30 seconds; at most a day is
    /// waited, and a negative or NaN value waits not at all.
    public var gitLockWait: Double = 30
    /// The block a migration's staging copy allocates in: the block of the store it copies (nil: decided
    /// by ``identifierAllocation``).
    package var fixedIdentifierBlock: Int64? = nil
    /// The file system seam (fault injection in tests).
    package var fileSystem: any FileSystem = PosixFileSystem()
    /// The time the store stamps on each transaction it commits and measures history's age against
    /// (``HistoryRetention/maximumAge``): the system's clock, unless a test sets its own (to order two
    /// writes without waiting, or to age history).
    package var clock: @Sendable () -> Date = { Date() }

    /// Creates a configuration with the defaults described on each property.
    public init(
        durability: Durability = .always, compactionThreshold: Int64? = 8 << 20,
        historyRetention: HistoryRetention = HistoryRetention(), knownEntities: Set<String>? = nil,
        readOnly: Bool = false
    ) {
        self.durability = durability
        self.compactionThreshold = compactionThreshold
        self.historyRetention = historyRetention
        self.knownEntities = knownEntities
        self.readOnly = readOnly
    }
}
