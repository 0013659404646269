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
        }
    }

    /// Makes a background compaction stop at its next piece of output and waits for it.
    func cancelBackgroundCompaction() {
        withStateMutation { _ in backgroundCompactionCancelled = true }
        backgroundCompactions.wait()
    }

    /// Installs the background compaction whose files are ready, if there is one. Caller holds the
    /// writer lock and the exclusive file lock, and has caught up (``write(author:_:)`` after its
    /// commit). A write that comes first installs it, rather than the compaction's own thread: a busy
    /// writer would otherwise keep the lock from that thread indefinitely (locks are not fair).
    func installPendingCompaction() {
        guard let pending = takePendingCompaction() else { return }
        defer { finishBackgroundCompaction() }
        guard let paths, !isClosed, poisonError == nil, isCurrent(pending.plan) else {
            // Another compaction replaced the journal since the plan was made: what it wrote is newer.
            pending.prepared.discard(fs)
            return
        }
        do {
            try installCompaction(pending.prepared, plan: pending.plan, paths: paths)
        } catch {
            // The plan was current: this is a real failure (and the store has forgotten its journal
            // position, so `isCurrent` no longer says so).
            recordBackgroundFailure(error)
        }
    }

    /// The compaction waiting to be installed, which is then no longer waiting.
    private func takePendingCompaction() -> (prepared: PreparedCompaction, plan: CompactionPlan)? {
        withStateMutation { _ in
            defer { pendingCompaction = nil }
            return pendingCompaction
        }
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
            finishBackgroundCompaction()
            return
        }
        let willLock = withStateMutation { _ in
            pendingCompaction = (prepared, plan)
            return backgroundCompactionWillLock
        }
        willLock?()
        writerLock.lock()
        defer { writerLock.unlock() }
        // A write may have installed it while this thread waited for the lock.
        guard withState({ _ in pendingCompaction != nil }) else { return }
        do {
            try lockExclusive()
            defer { unlockFile() }
            if !isClosed { _ = try catchUp() }
            installPendingCompaction()
        } catch {
            if let pending = takePendingCompaction() {
                pending.prepared.discard(fs)
                reportBackgroundFailure(error, plan: plan)
                finishBackgroundCompaction()
            }
        }
    }

    /// Marks the background compaction finished (installed, abandoned or failed).
    private func finishBackgroundCompaction() {
        withStateMutation { _ in backgroundCompactionRunning = false }
        backgroundCompactions.leave()
    }

    /// Records why a background compaction failed in ``warnings``, unless it was given up on purpose
    /// or made pointless by another compaction. The store is unaffected either way: the next automatic
    /// compaction tries again.
    private func reportBackgroundFailure(_ error: any Error, plan: CompactionPlan) {
        if error is Abandoned || !isCurrent(plan) { return }
        recordBackgroundFailure(error)
    }

    private func recordBackgroundFailure(_ error: any Error) {
        withStateMutation { _ in openWarnings.append("automatic compaction failed: \(error)") }
    }
}
