import Dispatch
import Synchronization

/// Keeping the snapshot caches (``SnapshotCache``) of ``StoreConfiguration/cachedMembers`` current.
///
/// A cache is derived: written after a compaction and after the records are loaded, for each entity
/// whose cache is missing, stale, foreign, truncated or damaged. Its values come from the records in
/// memory when they are the snapshot's (the compaction's, or loaded ones none has changed since), with
/// their lines found by one pass over the file for newlines; otherwise from reading the snapshot again,
/// which holds a second copy of its records while it runs. Both run on a background thread; ``close()``
/// waits for them. A cache that cannot be written (a read-only directory) is simply not there: lookups
/// then read the records as always.
extension Store {
    /// Writes, in the background, the caches of `cachedMembers` whose snapshot has none it can use.
    /// With `plan`, a compaction's, the records of the entities it wrote come from the plan.
    func refreshSnapshotCaches(after plan: CompactionPlan? = nil) {
        guard let paths, !configuration.readOnly, !configuration.cachedMembers.isEmpty else { return }
        let members = configuration.cachedMembers
        cacheBuilds.run {
            for (entity, names) in members.sorted(by: { $0.key < $1.key }) {
                // A cache is a convenience: one that cannot be built leaves lookups to the records.
                try? self.refreshSnapshotCache(of: entity, members: names, plan: plan, paths: paths)
            }
        }
    }

    /// Writes the cache of `entity` unless the one there can be used.
    private func refreshSnapshotCache(of entity: String, members: [String], plan: CompactionPlan?, paths: StorePaths) throws {
        let snapshotPath = paths.snapshot(entity), cachePath = paths.snapshotCache(entity)
        guard let snapshot = try fs.status(atPath: snapshotPath), snapshot.isRegularFile else { return }
        var members = members
        if case .success(let cache) = try SnapshotCache.open(at: cachePath, snapshotAt: snapshotPath, fileSystem: fs) {
            if Set(members).isSubset(of: cache.members) { return }
            // Another version of the models indexes other members: the new cache serves both.
            members = Array(Set(members).union(cache.members)).sorted()
        }
        // A compaction's records are its snapshots'; loaded ones are, until a transaction changes them.
        let state = plan?.state ?? withState { $0 }
        let records = state.records(of: entity)
        let expectedSequence = state.lastModified[entity] ?? plan?.sequence
        if let expectedSequence, plan != nil || records.areAllFromSnapshot(),
            let bytes = try cacheFromRecords(records, sequence: expectedSequence, entity: entity, members: members, snapshotPath: snapshotPath)
        {
            try SnapshotCacheBuilder.write(bytes, to: cachePath, fileSystem: fs)
            return
        }
        try SnapshotCacheBuilder.write(
            snapshotAt: snapshotPath, members: members, fileSystem: fs, to: cachePath,
            maximumLineBytes: configuration.maximumLineBytes)
    }

    /// The cache of `entity`'s snapshot from `records`, the records it holds, when the file is the one
    /// they came from (its header names `sequence` and their number): the record lines are found by
    /// looking for newlines, not by parsing them. Nil when the file is another one.
    private func cacheFromRecords(_ records: EntityRecords, sequence: UInt64, entity: String, members: [String], snapshotPath: String) throws
        -> [UInt8]?
    {
        let file = try fs.open(snapshotPath, .read)
        defer { fs.close(file) }
        let before = try fs.status(file)
        var lines: [(offset: Int64, length: Int)] = []
        lines.reserveCapacity(records.count + 1)
        var headerLine: [UInt8] = []
        let result = try LineScanner.scan(fs, file, maximumLineBytes: configuration.maximumLineBytes) { line in
            if line.number == 1 { headerLine = Array(line.bytes) }
            lines.append((line.offset, line.bytes.count))
        }
        guard result.tailLength == 0, lines.count == records.count + 1, !headerLine.isEmpty,
            let header = try? SnapshotFile.decodeHeader(LineFraming.decode(headerLine.withUnsafeBufferPointer { $0 })),
            header.entity == entity, header.records == records.count,
            header.sequence == sequence
        else { return nil }
        let after = try fs.status(file)
        guard after.size == before.size, after.modificationTime == before.modificationTime else { return nil }
        let source = SnapshotCacheSource(
            size: before.size, device: before.device, inode: before.inode, modificationTime: before.modificationTime,
            entity: entity, records: UInt64(records.count), sequence: header.sequence, headerLineChecksum: CRC32.checksum(headerLine))
        var postings: [(posting: SnapshotCachePosting, values: RecordValues)] = []
        postings.reserveCapacity(records.count)
        var position = 1
        records.forEach { id, values in
            postings.append((SnapshotCachePosting(id: id, offset: lines[position].offset, length: lines[position].length), values))
            position += 1
        }
        return try SnapshotCacheBuilder.build(source: source, members: members, records: postings)
    }
}

/// The background builds of a store's snapshot caches, one after the other. ``Store/close()`` waits for
/// those asked for before it (a cache rebuilt after a load is there for the next process) and starts
/// no other.
package final class SnapshotCacheBuilds: Sendable {
    private let closing = Atomic<Bool>(false)
    private let queue = DispatchQueue(label: "Folio snapshot caches", qos: .utility)
    private let group = DispatchGroup()

    /// Runs `build` after the builds asked for before, unless the store is closing.
    func run(_ build: @escaping @Sendable () -> Void) {
        guard !closing.load(ordering: .relaxed) else { return }
        queue.async(group: group, execute: build)
    }

    /// Refuses further builds and waits for those asked for.
    func closeAndWait() {
        closing.store(true, ordering: .relaxed)
        group.wait()
    }

    /// Waits for the builds asked for so far.
    package func wait() {
        group.wait()
    }
}
