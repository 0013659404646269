import Dispatch

extension Store {
    /// Waits until an automatic compaction running in the background, if any, has been installed or
    /// given up (see ``StoreConfiguration/compactsInBackground``). Do not call it from inside a
    /// ``write(author:_:)`` body: the compaction needs the writer lock to finish.
    public func waitForBackgroundCompaction() {
        backgroundCompactions.wait()
    }

    /// Starts an automatic compaction of the current state on a background thread. Caller holds the
    /// writer lock and the exclusive file lock, and has caught up.
    func startBackgroundCompaction() throws {
        guard let paths else { return }
        let plan = try makeCompactionPlan(droppingHistoryThrough: nil)
        withStateMutation { _ in
            backgroundCompactionRunning = true
            backgroundCompactionCancelled = false
        }
        backgroundCompactions.enter()
        DispatchQueue.global(qos: .utility).async {
            self.runBackgroundCompaction(plan, paths: paths)
            self.withStateMutation { _ in self.backgroundCompactionRunning = false }
            self.backgroundCompactions.leave()
        }
    }

    /// Makes a background compaction stop at its next piece of output and waits for it.
    func cancelBackgroundCompaction() {
        withStateMutation { _ in backgroundCompactionCancelled = true }
        backgroundCompactions.wait()
    }

    /// Thrown to give up a background compaction that can no longer be installed.
    private struct Abandoned: Error {}

    private func runBackgroundCompaction(_ plan: CompactionPlan, paths: StorePaths) {
        let check = {
            if self.withState({ _ in self.backgroundCompactionCancelled }) { throw Abandoned() }
        }
        let prepared: PreparedCompaction
        do {
            prepared = try prepareCompaction(plan, paths: paths, check: check)
        } catch {
            reportBackgroundFailure(error, plan: plan)
            return
        }
        writerLock.lock()
        defer { writerLock.unlock() }
        do {
            guard !isClosed, poisonError == nil else { throw Abandoned() }
            try lockExclusive()
            defer { unlockFile() }
            _ = try catchUp()
            // Another compaction replaced the journal since the plan was made: what it wrote is newer.
            guard isCurrent(plan) else { throw Abandoned() }
            try installCompaction(prepared, plan: plan, paths: paths)
        } catch {
            prepared.discard(fs)
            reportBackgroundFailure(error, plan: plan)
        }
    }

    /// Records why a background compaction failed in ``warnings``, unless it was given up on purpose
    /// or made pointless by another compaction. The store is unaffected either way: the next automatic
    /// compaction tries again.
    private func reportBackgroundFailure(_ error: any Error, plan: CompactionPlan) {
        if error is Abandoned || !isCurrent(plan) { return }
        withStateMutation { _ in openWarnings.append("automatic compaction failed: \(error)") }
    }
}
