extension Store {
    /// Writes the files a compaction installs (each entity's changed snapshot and the history file)
    /// under temporary names, synced, and returns them; nothing the store reads is touched. Reads
    /// `history.jsonl` first if the plan's transactions do not include it (a store opened again reads
    /// it only when needed, and it can be tens of megabytes).
    ///
    /// Needs no lock: it reads only the plan and files that no one replaces while the plan is current
    /// (a file replaced by another compaction meanwhile is still read whole through its open
    /// descriptor, and that compaction makes this one stale). Each piece written goes through `check`
    /// first, which throws to abandon the compaction. On failure the temporary files are removed.
    func prepareCompaction(_ plan: CompactionPlan, paths: StorePaths, check: () throws -> Void = {}) throws -> PreparedCompaction {
        var prepared = PreparedCompaction()
        do {
            let transactions =
                plan.historyFileLoaded
                ? plan.retained : try HistoryPhase.merging(plan.retained, withHistoryFileIn: paths, configuration: configuration)
            // Where every line is: history copies them, and snapshots copy inserted records out of them.
            let stored = storedLines(paths, journalLimit: plan.journalEnd)
            let copies = JournalRecordCopies(
                transactions: transactions.filter { $0.sequence <= plan.sequence }, spans: plan.insertedSpans, storedLines: stored,
                fileSystem: fs, journalPath: paths.journal)
            try prepareSnapshots(
                plan, transactions: transactions, copies: copies.isEmpty ? nil : copies, paths: paths, check: check,
                into: &prepared)
            let history = try writeHistoryTemporaryFile(
                plan.history(of: transactions), paths: paths, journalLimit: plan.journalEnd, stored: stored,
                keepingFrom: plan.keepsHistoryFrom, check: check)
            prepared.history = history.temporary
            prepared.kept = history.kept
            prepared.mark = transactions.last { $0.sequence == plan.sequence }.map { last in
                var mark = JournalTransaction.compactionMark(for: last)
                mark.historyFrom = history.kept.first?.sequence ?? plan.sequence + 1
                mark.foldedMigrations = foldedMigrations(transactions, through: plan.sequence, paths: paths)
                return mark
            }
        } catch {
            prepared.discard(fs)
            throw error
        }
        return prepared
    }

    /// The snapshot files of entities changed since their snapshot was written: copied from the earlier
    /// file where it can be, otherwise (or if that turns out not to be possible half way) encoded from
    /// the plan's records; written in pieces, never whole in memory.
    private func prepareSnapshots(
        _ plan: CompactionPlan, transactions: [JournalTransaction], copies: JournalRecordCopies?, paths: StorePaths,
        check: () throws -> Void, into prepared: inout PreparedCompaction
    ) throws {
        let state = plan.state
        var bases = plan.snapshotBases
        var conflicts = plan.snapshotConflicts
        let entities = Set(state.entitiesWithRecords).union(plan.snapshotBases.keys)
        if !entities.isEmpty, try fs.status(atPath: paths.snapshots) == nil {
            try fs.makeDirectory(paths.snapshots)
            try fs.syncDirectory(paths.directory)
        }
        for entity in entities.sorted() {
            let records = state.records(of: entity)
            let modified = state.lastModified[entity] ?? plan.sequence
            if records.isEmpty {
                if plan.snapshotBases[entity] == nil { continue }
                prepared.emptied.append(entity)
                conflicts[entity] = nil
            }
            // A header's conflicts stay until a transaction after it clears them.
            let recorded = plan.snapshotConflicts[entity] ?? []
            let cleared =
                !recorded.isEmpty
                && transactions.contains {
                    $0.clearsConflicts && $0.sequence > (plan.snapshotBases[entity] ?? 0) && $0.sequence <= plan.sequence
                }
            let kept = cleared || records.isEmpty ? [] : recorded
            if plan.snapshotBases[entity] == modified && kept == recorded { continue }
            conflicts[entity] = kept.isEmpty ? nil : kept
            var temporary: String? = nil
            if let base = plan.snapshotBases[entity], !records.isEmpty,
                let earlier = earlierSnapshot(of: entity, at: base, through: plan.sequence, paths: paths, transactions: transactions)
            {
                do {
                    temporary = try fs.writeTemporaryFile(beside: paths.snapshot(entity)) { write in
                        let fs = self.fs
                        let reused = try SnapshotFile.write(
                            entity: entity, sequence: modified, records: records, conflicts: kept, reusing: earlier, copies: copies, fileSystem: fs
                        ) { chunk in
                            try check()
                            try write(chunk)
                        }
                        guard reused else { throw SnapshotFile.CannotReuse() }
                    }
                } catch is SnapshotFile.CannotReuse {}
            }
            if temporary == nil {
                temporary = try fs.writeTemporaryFile(beside: paths.snapshot(entity)) { write in
                    try SnapshotFile.write(entity: entity, sequence: modified, records: records, conflicts: kept, copies: copies) { chunk in
                        try check()
                        try write(chunk)
                    }
                }
            }
            if let temporary { prepared.snapshots.append((entity, temporary)) }
            bases[entity] = modified
        }
        prepared.snapshotBases = bases
        prepared.snapshotConflicts = conflicts
    }
}
