import Foundation

/// A value that threads share, changed only while holding a lock.
///
/// Folio uses it instead of `Synchronization.Mutex` where threads contend, since ThreadSanitizer does not see that lock on Linux:
/// a contended `Mutex` is handed over inside the kernel, so the sanitizer reports the accesses it
/// orders as races (see docs/concurrency.md). `NSLock` is a `pthread_mutex_t`, which it understands.
// Unchecked: it is the lock: `value` is read and written only inside `withLock`, holding `lock`.
package final class LockedState<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    package init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with the value, holding the lock.
    package func withLock<Result, E: Error>(_ body: (inout Value) throws(E) -> Result) throws(E) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
