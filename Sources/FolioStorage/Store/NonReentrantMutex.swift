import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A `Mutex` that is not recursive and says so: a thread that asks for it again while it holds it
/// stops on a precondition failure naming what it called, instead of deadlocking.
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
    /// message given if this thread already holds the lock.
    package func withLock<Result, E: Error>(
        _ operation: @autoclosure () -> String, _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        let thread = CurrentThread.identifier
        // `fatalError` rather than `precondition`: its message is kept in optimized builds too.
        if owner.load(ordering: .relaxed) == thread {
            fatalError("\(operation()) was called on a thread that is already inside it or another call holding the same lock, which is not recursive. \(advice)")
        }
        return try mutex.withLock { (value: inout sending Value) throws(E) -> sending Result in
            owner.store(thread, ordering: .relaxed)
            defer { owner.store(0, ordering: .relaxed) }
            return try body(&value)
        }
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
