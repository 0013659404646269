/// Where one record's line lies in a snapshot file, as a snapshot cache lists it.
package struct SnapshotCachePosting: Hashable, Sendable {
    /// The record's identifier.
    package var id: Int64
    /// The byte offset in the snapshot file where the record's line starts.
    package var offset: Int64
    /// The line's length in bytes, without its `\n` (and without a `\r` before it).
    package var length: Int

    /// Creates a posting.
    package init(id: Int64, offset: Int64, length: Int) {
        self.id = id
        self.offset = offset
        self.length = length
    }
}
