import Foundation

extension Store {
    /// Whether an automatic compaction is due: the journal is past
    /// ``StoreConfiguration/compactionThreshold`` and at least as large as the snapshots it would fold
    /// into, and no compaction is running in the background already. Caller holds the writer lock.
    func isCompactionDue() -> Bool {
        guard let threshold = configuration.compactionThreshold, let paths, journalEnd > threshold else { return false }
        if withState({ _ in backgroundCompactionRunning }) { return false }
        return journalEnd >= snapshotBytes(paths)
    }

    /// The total size of the snapshot files.
    func snapshotBytes(_ paths: StorePaths) -> Int64 {
        let entities = withState { _ in Array(snapshotBases.keys) }
        var total: Int64 = 0
        for entity in entities {
            if let status = try? fs.status(atPath: paths.snapshot(entity)) { total += status.size }
        }
        return total
    }
}
