import Dispatch

extension Store {
    /// Waits until an automatic compaction running in the background, if any, has been installed or
    /// given up (see ``StoreConfiguration/compactsInBackground``).
    ///
    /// - Throws: ``StorageError/Code/reentrantCall`` when called inside a ``write(author:_:)`` body, where
    ///   it would wait forever: the compaction needs the writer lock to finish. Call it after the write returns.
    public func waitForBackgroundCompaction() throws {
        try waitForBackgroundCompaction(before: "Store.waitForBackgroundCompaction()")
    }

    /// ``waitForBackgroundCompaction()`` for `operation`, which the error names.
    func waitForBackgroundCompaction(before operation: String) throws {
        if writer.isHeldByCurrentThread {
            throw StorageError(
                .reentrantCall,
                "\(operation) was called from inside a Store.write body, where it would wait forever: the background compaction it waits for needs the writer lock to finish. Call it after the write returns."
            )
        }
        compactions.wait()
    }

    /// Starts an automatic compaction of the current state on a background thread. Caller holds the
    /// writer lock and the exclusive file lock, and has caught up.
    func startBackgroundCompaction(_ journal: inout JournalWriter) throws {
        guard let paths else { return }
        let plan = try makeCompactionPlan(&journal, droppingHistoryThrough: nil)
        compactions.begin()
        DispatchQueue.global(qos: .utility).async {
            self.runBackgroundCompaction(plan, paths: paths)
        }
    }

    /// Installs the background compaction whose files are ready, if there is one. Caller holds the
    /// writer lock and the exclusive file lock, and has caught up (``write(author:_:)`` after its
    /// commit). A write that comes first installs it, rather than the compaction's own thread: a busy
    /// writer would otherwise keep the lock from that thread indefinitely (locks are not fair).
    func installPendingCompaction(_ journal: inout JournalWriter) {
        guard let pending = compactions.takePending() else { return }
        defer { compactions.finish() }
        guard let paths, !journal.isClosed, journal.poisonError == nil, isCurrent(pending.plan) else {
            // Another compaction replaced the journal since the plan was made: what it wrote is newer.
            pending.prepared.discard(fs)
            return
        }
        do {
            try installCompaction(pending.prepared, plan: pending.plan, paths: paths, journal: &journal)
        } catch {
            // The plan was current: this is a real failure (and the store has forgotten its journal
            // position, so `isCurrent` no longer says so).
            recordBackgroundFailure(error)
        }
    }

    /// Thrown to give up a background compaction that can no longer be installed.
    private struct Abandoned: Error {}

    private func runBackgroundCompaction(_ plan: CompactionPlan, paths: StorePaths) {
        let check = {
            if self.compactions.isCancelled { throw Abandoned() }
        }
        let prepared: PreparedCompaction
        do {
            prepared = try prepareCompaction(plan, paths: paths, check: check)
        } catch {
            reportBackgroundFailure(error, plan: plan)
            compactions.finish()
            return
        }
        let willLock = compactions.offer((prepared, plan))
        willLock?()
        writer.withLock("a background compaction") { journal in
            // A write may have installed it while this thread waited for the lock.
            guard compactions.hasPending else { return }
            do {
                try journal.takeFileLock(fs, exclusive: true)
                defer { journal.releaseFileLock(fs) }
                if !journal.isClosed { _ = try catchUp(&journal) }
                installPendingCompaction(&journal)
            } catch {
                if let pending = compactions.takePending() {
                    pending.prepared.discard(fs)
                    reportBackgroundFailure(error, plan: plan)
                    compactions.finish()
                }
            }
        }
    }

    /// Records why a background compaction failed in ``warnings``, unless it was given up on purpose
    /// or made pointless by another compaction. The store is unaffected either way: the next automatic
    /// compaction tries again.
    private func reportBackgroundFailure(_ error: any Error, plan: CompactionPlan) {
        if error is Abandoned || !isCurrent(plan) { return }
        recordBackgroundFailure(error)
    }

    private func recordBackgroundFailure(_ error: any Error) {
        withReadState { $0.warnings.append("automatic compaction failed: \(error)") }
    }
}
