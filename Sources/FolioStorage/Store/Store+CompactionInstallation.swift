extension Store {
    /// Renames a prepared compaction's files into place, writes the manifest and starts a journal that
    /// holds only what was committed after the plan. Caller holds the writer lock and the exclusive file
    /// lock, has caught up, and has checked that `plan` is still current (``isCurrent(_:)``).
    ///
    /// The steps run in an order such that a crash between any two opens to the same state: snapshots
    /// (each newer than the manifest, which loading allows: a snapshot's header says which journal
    /// transactions it already holds), history (overlapping the journal, which loading allows), manifest
    /// (journal lines at or before its sequence are skipped), journal. If a step fails, the remaining
    /// temporary files are removed and the store forgets its journal position, so that the next
    /// operation reloads from the files.
    func installCompaction(_ prepared: PreparedCompaction, plan: CompactionPlan, paths: StorePaths, journal: inout JournalWriter) throws {
        do {
            try installSteps(prepared, plan: plan, paths: paths, journal: &journal)
            refreshSnapshotCaches(after: plan)
        } catch {
            prepared.discard(fs)
            forgetJournalPosition(&journal)
            throw error
        }
    }

    /// Whether `plan` can still be installed: its journal is still the store's (no compaction, here or
    /// in another process, replaced it since) and still holds the plan's transactions.
    func isCurrent(_ plan: CompactionPlan) -> Bool {
        withReadState { $0.isCurrent(plan) }
    }

    private func installSteps(_ prepared: PreparedCompaction, plan: CompactionPlan, paths: StorePaths, journal: inout JournalWriter) throws {
        if withReadState({ $0.tailLength }) > 0 { try moveTornTail(paths: paths, journal: &journal) }
        // 1. Snapshots of the entities that changed.
        for snapshot in prepared.snapshots {
            try fs.installTemporaryFile(snapshot.temporary, at: paths.snapshot(snapshot.entity), syncingDirectory: false)
        }
        if !prepared.snapshots.isEmpty { try fs.syncDirectory(paths.snapshots) }
        withReadState { read in
            read.snapshotBases = prepared.snapshotBases
            read.snapshotConflicts = prepared.snapshotConflicts
        }
        // 2. Retained history.
        if let history = prepared.history { try fs.installTemporaryFile(history, at: paths.history) }
        // 3. Manifest: the snapshots now stand at the plan's sequence.
        var snapshotBytes: [String: Int64] = [:]
        for entity in prepared.snapshotBases.keys where !prepared.emptied.contains(entity) {
            if let status = try fs.status(atPath: paths.snapshot(entity)) { snapshotBytes[entity] = status.size }
        }
        let manifest = Manifest(sequence: plan.sequence, counters: plan.state.counters, schema: plan.state.schema, snapshotBytes: snapshotBytes)
        try fs.replaceFile(at: paths.manifest, with: try manifest.encoded())
        // 4. Journal: the plan's compaction mark, then the lines committed after the plan (none for a
        //    compaction that ran under the lock), copied into a new file. Other processes see its new
        //    identity and reload.
        let mark = try prepared.mark?.encodedLine() ?? []
        let carried = try replaceJournal(startingWith: mark, keepingFrom: plan.journalEnd, paths: paths, file: journal.journalFile)
        try openJournal(&journal)
        journal.unsyncedWrites = false
        withReadState { read in
            // The kept transactions are the whole new history file: nothing of it is left to read.
            read.retained = prepared.kept + read.retained.filter { $0.sequence > plan.sequence }
            read.insertedSpans = read.insertedSpans.filter { $0.key > plan.sequence }
            read.historyFileLoaded = true
            read.manifestSequence = plan.sequence
            read.journalEnd = carried
            read.journalLines -= plan.journalLines - (mark.isEmpty ? 0 : 1)
            read.tailLength = 0
        }
        // 5. Snapshot files of entities with no records left at the plan's sequence (safe only now that
        //    the manifest is past every journal line that put records in them).
        if !prepared.emptied.isEmpty {
            for entity in prepared.emptied { try fs.unlink(paths.snapshot(entity)) }
            try fs.syncDirectory(paths.snapshots)
            withReadState { read in for entity in prepared.emptied { read.snapshotBases[entity] = nil } }
        }
        // 6. Temporary files left by interrupted replacements or by compactions this one supersedes.
        try removeTemporaryFiles(paths)
        // 7. Blobs nothing refers to any more (a store without blobs has nothing to look for).
        try removeUnreferencedBlobs(paths)
    }

    /// Replaces the journal with a synced file of `mark` then the bytes of `file` from `start` to the
    /// journal's known end; returns how many bytes the new journal has.
    private func replaceJournal(
        startingWith mark: [UInt8], keepingFrom start: Int64, paths: StorePaths,
        file journalFile: FileDescriptor?
    ) throws -> Int64 {
        let end = withReadState { $0.journalEnd }
        guard end > start, let journalFile else {
            try fs.replaceFile(at: paths.journal, with: mark)
            return Int64(mark.count)
        }
        try fs.replaceFile(at: paths.journal) { write in
            if !mark.isEmpty { try write(mark) }
            var buffer = [UInt8](repeating: 0, count: Int(min(end - start, Int64(SnapshotFile.chunkSize))))
            var offset = start
            while offset < end {
                let wanted = Int(min(Int64(buffer.count), end - offset))
                let count = try buffer.withUnsafeMutableBytes { raw in
                    try fs.read(journalFile, into: UnsafeMutableRawBufferPointer(rebasing: raw[0..<wanted]), at: offset)
                }
                guard count > 0 else {
                    throw StorageError(
                        .ioFailure, "the journal ended at byte \(offset) while carrying over its lines up to byte \(end)", file: paths.journal)
                }
                try write(Array(buffer[0..<count]))
                offset += Int64(count)
            }
        }
        return Int64(mark.count) + end - start
    }

    /// Removes the blobs that no current record and no retained transaction refers to.
    private func removeUnreferencedBlobs(_ paths: StorePaths) throws {
        let shards = try fs.contentsOfDirectory(paths.blobs)
        if shards.isEmpty { return }
        var referenced = withState { $0.referencedBlobs() }
        for transaction in withReadState({ $0.retained }) {
            for record in transaction.inserted + transaction.updated { BlobStore.collectReferences(in: record.values, into: &referenced) }
            for record in transaction.deleted { BlobStore.collectReferences(in: record.tombstone, into: &referenced) }
        }
        for shard in shards {
            let shardPath = "\(paths.blobs)/\(shard)"
            for name in try fs.contentsOfDirectory(shardPath) where !referenced.contains(name) {
                try fs.unlink("\(shardPath)/\(name)")
            }
        }
    }
}
