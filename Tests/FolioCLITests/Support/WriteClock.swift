import Foundation
import Synchronization

/// A clock for stores that tests write to: each reading is later than the one before, by at least a
/// millisecond (a transaction's timestamp keeps milliseconds), and never behind the system's clock.
/// Two writes are thus ordered without the test waiting between them.
final class WriteClock: Sendable {
    static let shared = WriteClock()

    private let last = Mutex(Date.distantPast)

    func next() -> Date {
        last.withLock { last in
            last = max(Date(), last.addingTimeInterval(0.001))
            return last
        }
    }
}
