@_spi(FolioEngine) import FolioStorage

/// What a container changes as its contexts save and fetch: the index of the store's records and what
/// the container knows of the store. The container's ``ContainerLock`` owns it: it is read and changed
/// only inside that lock's body, which is given it `inout`.
struct ContainerState: Sendable {
    /// The index of the store's records, as last made; read it through
    /// ``ModelContainer/currentIndex(in:)``, which first waits for ``pendingIndexing`` and makes it
    /// again for a schema that subclasses were added to since.
    var indexStorage: RecordIndex
    /// The schema generation ``indexStorage`` was made for.
    var indexedSchemaGeneration = 0
    /// The schema generation whose description the store records, as far as the container knows.
    var recordedSchemaGeneration = 0
    /// A save's changes still being applied to the index on another thread, if any.
    var pendingIndexing: ConcurrentIndexApplication?
    /// Whether the index holds the store's records.
    var isIndexLoaded = false
    /// The store's reload of replaced files (``Store/lastReload``) the index describes.
    var indexedReload: UInt64 = 0
    /// Set when another process migrated the store to another schema while the container had it open:
    /// saves are refused from then on, since the container's models no longer match the records.
    var migratedElsewhere: String?

    init(index: RecordIndex) {
        self.indexStorage = index
    }

    /// Lets a save return while its changes are still being applied to the index: the next use of
    /// the index (a fetch, a save, an observer) waits for them.
    mutating func finishIndexingLater(_ indexing: ConcurrentIndexApplication) {
        finishIndexing()
        pendingIndexing = indexing
    }

    /// Waits for the changes of the last save still being applied to the index, if any.
    mutating func finishIndexing() {
        guard let pending = pendingIndexing else { return }
        pendingIndexing = nil
        pending.waitUntilApplied()
    }
}
