/// Why a snapshot cache cannot be used. A cache is derived data: each of these means "read the snapshot
/// instead, and rebuild the cache", never that the store is damaged.
package struct SnapshotCacheProblem: Error, Hashable, Sendable, CustomStringConvertible {
    /// The kind of problem.
    package enum Reason: String, Hashable, Sendable {
        /// There is no cache file.
        case missing
        /// The cache was built from another version of the snapshot (its size, device, inode,
        /// modification time or header line differ), or the snapshot is gone.
        case stale
        /// The file is not a cache of this entity's snapshot: another entity's cache, another magic
        /// number or format version, or not a regular file.
        case foreign
        /// The file is shorter than its header says it is.
        case truncated
        /// A checksum fails, or a count or offset points outside the file.
        case damaged
    }

    /// The kind of problem.
    package var reason: Reason
    /// The cache file's path.
    package var path: String
    /// What exactly is wrong, in words.
    package var detail: String

    /// Creates a problem.
    package init(_ reason: Reason, path: String, _ detail: String) {
        self.reason = reason
        self.path = path
        self.detail = detail
    }

    /// `path: [reason] detail`.
    package var description: String { "\(path): [\(reason.rawValue)] \(detail)" }
}
