import FolioStorage

/// The lock a container's contexts take to read and change its index, and to save: not recursive.
///
/// Code that runs while it is held calls the `…Locked` variants (``ModelContainer/syncIndexLocked(fromDisk:committed:)``,
/// ``ModelContext/loadedModelLocked(forRecordNumber:loadingValues:)``). A thread that takes it again
/// gets ``FolioError/Code/reentrantCall`` naming the call from the public calls that throw
/// (``withLock(refusingReentry:_:)``). The internal calls that cannot throw check
/// ``isHeldByCurrentThread`` first where the app's code can reach them (an index sync, a change
/// delivery), so the precondition behind them guards an invariant only.
struct ContainerLock: ~Copyable, Sendable {
    private let mutex = NonReentrantMutex(
        (),
        advice: "The container's lock is held while a context saves, fetches or reads the index: do not save, fetch, erase or compact from inside a save (a model's encoding, a delete rule) or a fetch; do it after the call returns.")

    /// Calls `body` holding the lock; `operation` names the caller's API for the reentrancy message.
    func withLock<Result, E: Error>(_ operation: @autoclosure () -> String, _ body: () throws(E) -> Result) throws(E) -> Result {
        try mutex.withLock(operation()) { (_: inout sending Void) throws(E) -> Result in try body() }
    }

    /// Calls `body` holding the lock. On a thread that already holds it (a save or a fetch reached from
    /// inside another, through a model's encoding or decoding), throws ``FolioError/Code/reentrantCall``
    /// naming `operation` instead.
    func withLock<Result>(refusingReentry operation: @autoclosure () -> String, _ body: () throws -> Result) throws -> Result {
        try mutex.withLock(operation(), reentrancyError: { FolioError(.reentrantCall, $0) }) { (_: inout sending Void) throws -> Result in
            try body()
        }
    }

    /// Whether the calling thread holds the lock.
    var isHeldByCurrentThread: Bool { mutex.isHeldByCurrentThread }
}
