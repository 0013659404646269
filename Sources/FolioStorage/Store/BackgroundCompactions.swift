import Dispatch
import Synchronization

/// The automatic compaction a store runs on a background thread, if any: whether it runs, whether it
/// was told to give up, and its files once they are ready to install (see
/// ``StoreConfiguration/compactsInBackground``). At most one runs at a time.
final class BackgroundCompactions: Sendable {
    private struct Status {
        var running = false
        var cancelled = false
        /// Files written, waiting for the writer lock to be installed: by the next write (which holds
        /// the lock anyway), or by the compaction's own thread, whichever comes first.
        var pending: Pending?
        /// Tests only: called on the compaction's thread once its files are ready, before it waits
        /// for the writer lock.
        var willLock: (@Sendable () -> Void)?
    }

    /// A compaction whose files are ready, with the plan they were written from.
    typealias Pending = (prepared: PreparedCompaction, plan: CompactionPlan)

    private let status = Mutex(Status())
    /// Entered while a compaction runs.
    private let group = DispatchGroup()

    /// Whether a compaction is being prepared or installed.
    var isRunning: Bool { status.withLock { $0.running } }

    /// Whether the running compaction was told to give up.
    var isCancelled: Bool { status.withLock { $0.cancelled } }

    /// Whether a compaction's files wait to be installed.
    var hasPending: Bool { status.withLock { $0.pending != nil } }

    /// Tests only: sets the hook called on the compaction's thread before it waits for the writer lock.
    func setWillLock(_ hook: (@Sendable () -> Void)?) {
        status.withLock { $0.willLock = hook }
    }

    /// Marks a compaction started; ``finish()`` must follow.
    func begin() {
        status.withLock {
            $0.running = true
            $0.cancelled = false
        }
        group.enter()
    }

    /// Marks the compaction finished (installed, abandoned or failed).
    func finish() {
        status.withLock { $0.running = false }
        group.leave()
    }

    /// Waits until the running compaction, if any, has finished.
    func wait() {
        group.wait()
    }

    /// Tells the running compaction to stop at its next piece of output, and waits for it.
    func cancelAndWait() {
        status.withLock { $0.cancelled = true }
        group.wait()
    }

    /// Hands over a compaction's ready files; returns the test hook to call before locking.
    func offer(_ pending: Pending) -> (@Sendable () -> Void)? {
        status.withLock {
            $0.pending = pending
            return $0.willLock
        }
    }

    /// The compaction waiting to be installed, which is then no longer waiting.
    func takePending() -> Pending? {
        status.withLock { status in
            defer { status.pending = nil }
            return status.pending
        }
    }
}
