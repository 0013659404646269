import Foundation

extension Store {
    /// Whether an automatic compaction is due: the journal is past
    /// ``StoreConfiguration/compactionThreshold`` and has grown as large as what the compaction would
    /// write again, and no compaction is running in the background already.
    ///
    /// A compaction rewrites the snapshots and the retained history. Waiting until the journal is as
    /// large as the snapshots plus the history keeps the bytes compactions write proportional to the
    /// bytes saved. The history counts only up to the snapshots' size, so a small store with a long
    /// history still compacts once its journal is twice its snapshots (or past the threshold).
    func isCompactionDue() -> Bool {
        let journalEnd = withReadState { $0.journalEnd }
        guard let threshold = configuration.compactionThreshold, let paths, journalEnd > threshold else { return false }
        if compactions.isRunning { return false }
        let snapshots = snapshotBytes(paths)
        // Most writes past the threshold stop here, without looking at the history file.
        guard journalEnd >= snapshots else { return false }
        guard journalEnd >= [snapshots, min(retainedHistoryBytes(paths), snapshots)].saturatingSum() else { return false }
        // Lines holding records that await a migration's stage stay in the journal until it carries them.
        return !hasRecordsAwaitingStage()
    }

    /// The total size of the snapshot files, held at Int64.max: a sparse file may claim any size.
    func snapshotBytes(_ paths: StorePaths) -> Int64 {
        let entities = withReadState { Array($0.snapshotBases.keys) }
        return entities.compactMap { (try? fs.status(atPath: paths.snapshot($0)))?.size }.saturatingSum()
    }

    /// The size of `history.jsonl`: the history the last compaction retained (0 when there is none).
    func retainedHistoryBytes(_ paths: StorePaths) -> Int64 {
        (try? fs.status(atPath: paths.history))?.size ?? 0
    }
}
