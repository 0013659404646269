/// The version of a snapshot file a cache was built from: what the file system says of the file, and
/// what its header line says.
///
/// A cache describes one version of the snapshot only. A compaction that rewrites the snapshot (by
/// rename: a new inode), an edit in place (a new modification time or size) or a header that no longer
/// has the same bytes each make the cache stale.
package struct SnapshotCacheSource: Hashable, Sendable {
    /// The snapshot file's size in bytes.
    package var size: Int64
    /// The device the snapshot file is on.
    package var device: UInt64
    /// The snapshot file's inode number.
    package var inode: UInt64
    /// The snapshot file's modification time, in nanoseconds since 1970.
    package var modificationTime: Int64
    /// The snapshot header's `entity`.
    package var entity: String
    /// The snapshot header's `records`.
    package var records: UInt64
    /// The snapshot header's `sequence`: the base of the snapshot file.
    package var sequence: UInt64
    /// The CRC-32 of the snapshot's header line, without its `\n` (and a `\r` before it).
    package var headerLineChecksum: UInt32

    /// Creates a source description.
    package init(
        size: Int64, device: UInt64, inode: UInt64, modificationTime: Int64, entity: String, records: UInt64, sequence: UInt64,
        headerLineChecksum: UInt32
    ) {
        self.size = size
        self.device = device
        self.inode = inode
        self.modificationTime = modificationTime
        self.entity = entity
        self.records = records
        self.sequence = sequence
        self.headerLineChecksum = headerLineChecksum
    }

    /// Whether `status` is the file this source was read from: same size, device, inode and time.
    package func isSameFile(as status: FileStatus) -> Bool {
        status.size == size && status.device == device && status.inode == inode && status.modificationTime == modificationTime
    }
}
