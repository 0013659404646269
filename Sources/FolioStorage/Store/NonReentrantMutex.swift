import Synchronization
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A `Mutex` that is not recursive and says so: a thread that asks for it again while it holds it gets
/// an error naming what it called (``withLock(_:reentrancyError:_:)``), or, from a call that cannot
/// throw, stops on a precondition failure saying the same, instead of deadlocking.
package struct NonReentrantMutex<Value: ~Copyable>: ~Copyable, Sendable {
    private let mutex: Mutex<Value>
    /// The thread inside ``withLock(_:_:)``, or 0. Only the owning thread ever finds its own
    /// identifier here, so relaxed ordering suffices.
    private let owner = Atomic<UInt>(0)
    /// What the lock serialises and what to do instead, appended to a reentrancy message.
    private let advice: String

    /// A lock around `value`; `advice` says what it serialises and what to do instead of reentering.
    package init(_ value: consuming sending Value, advice: String) {
        self.mutex = Mutex(value)
        self.advice = advice
    }

    /// Calls `body` with the value, holding the lock. `operation` names the caller's API for the
    /// message given if this thread already holds the lock, which stops the process: callers that can
    /// throw use ``withLock(_:reentrancyError:_:)``.
    package func withLock<Result, E: Error>(
        _ operation: @autoclosure () -> String, _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        let thread = CurrentThread.identifier
        // An internal invariant, not a caller's mistake: every call that code of the app can reach while
        // this thread holds the lock either uses the throwing form or checks `isHeldByCurrentThread`
        // first (`Store.close`, the container's index sync and change delivery). `fatalError` rather than
        // `precondition`: its message is kept in optimized builds too.
        if owner.load(ordering: .relaxed) == thread {
            fatalError(reentrancyMessage(operation()))
        }
        return try mutex.withLock { (value: inout sending Value) throws(E) -> sending Result in
            owner.store(thread, ordering: .relaxed)
            defer { owner.store(0, ordering: .relaxed) }
            return try body(&value)
        }
    }

    /// Calls `body` with the value, holding the lock; if this thread already holds it, throws
    /// `reentrancyError(message)` instead, without calling `body`. `message` names `operation` (the
    /// caller's API) and says what to do instead.
    package func withLock<Result>(
        _ operation: @autoclosure () -> String, reentrancyError: (_ message: String) -> any Error,
        _ body: (inout sending Value) throws -> sending Result
    ) throws -> sending Result {
        if isHeldByCurrentThread { throw reentrancyError(reentrancyMessage(operation())) }
        return try withLock(operation(), body)
    }

    /// Why `operation` cannot run on this thread now.
    private func reentrancyMessage(_ operation: String) -> String {
        "\(operation) was called on a thread that is already inside it or another call holding the same lock, which is not recursive. \(advice)"
    }

    /// Whether the calling thread is inside ``withLock(_:_:)``.
    package var isHeldByCurrentThread: Bool {
        owner.load(ordering: .relaxed) == CurrentThread.identifier
    }
}

/// The calling thread's identifier, never 0.
enum CurrentThread {
    static var identifier: UInt {
        #if canImport(Darwin)
            UInt(bitPattern: pthread_self())
        #else
            UInt(pthread_self())
        #endif
    }
}
