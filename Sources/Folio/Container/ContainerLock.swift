import FolioStorage

/// The lock a container's contexts take to read and change its index, and to save: not recursive. It
/// owns the container's ``ContainerState``, which only its body reaches.
///
/// Code that runs while it is held is handed the state and passes it on (``ModelContainer/index(in:)``,
/// ``ModelContainer/syncIndex(in:fromDisk:committed:)``). A thread that takes it again gets
/// ``FolioError/Code/reentrantCall`` naming the call from the public calls that throw
/// (``withLock(refusingReentry:_:)``). The internal calls that cannot throw check
/// ``isHeldByCurrentThread`` first where the app's code can reach them (an index sync, a change
/// delivery, a model lookup), so the precondition behind them guards an invariant only.
struct ContainerLock: ~Copyable, Sendable {
    private let mutex: NonReentrantMutex<ContainerState>

    init(_ state: ContainerState) {
        mutex = NonReentrantMutex(
            state,
            advice:
                "The container's lock is held while a context saves, fetches or reads the index: do not save, fetch, erase or compact from inside a save (a model's encoding, a delete rule) or a fetch; do it after the call returns."
        )
    }

    /// Calls `body` with the state, holding the lock; `operation` names the caller's API for the
    /// reentrancy message.
    func withLock<Result, E: Error>(
        _ operation: @autoclosure () -> String,
        _ body: (inout ContainerState) throws(E) -> Result
    ) throws(E) -> Result {
        try mutex.withLock(operation()) { (state: inout sending ContainerState) throws(E) -> sending Result in try body(&state) }
    }

    /// Calls `body` with the state, holding the lock. On a thread that already holds it (a save or a
    /// fetch reached from inside another, through a model's encoding or decoding), throws
    /// ``FolioError/Code/reentrantCall`` naming `operation` instead.
    func withLock<Result>(
        refusingReentry operation: @autoclosure () -> String,
        _ body: (inout ContainerState) throws -> Result
    ) throws -> Result {
        try mutex.withLock(operation(), reentrancyError: { FolioError(.reentrantCall, $0) }) {
            (state: inout sending ContainerState) throws -> sending Result in try body(&state)
        }
    }

    /// Whether the calling thread holds the lock.
    var isHeldByCurrentThread: Bool { mutex.isHeldByCurrentThread }
}
