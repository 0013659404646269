// `withContinuousObservation(options:_:)` and its token, which SwiftData's 2026 sample code uses to
// observe a `ResultsObserver` or `HistoryObserver` outside SwiftUI. This toolchain's Observation lacks
// them; Folio supplies them where the platform does not.
#if !canImport(Darwin)

/// When the closure of ``withContinuousObservation(options:_:)`` runs again.
public struct ObservationOptions: OptionSet, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// Before a tracked property changes (the closure sees the old values).
    public static let willSet = ObservationOptions(rawValue: 1)
    /// After a tracked property changed (the closure sees the new values). The default.
    public static let didSet = ObservationOptions(rawValue: 2)
}

/// What the closure of ``withContinuousObservation(options:_:)`` receives each time it runs.
public struct ObservationEvent: Sendable {
    /// 0 for the first run, then 1, 2, … for each change.
    public let count: Int
    /// Whether this run happens before (`.willSet`) or after (`.didSet`) the change; empty for the first run.
    public let phase: ObservationOptions
}

/// Keeps a continuous observation alive; the observation ends when the token is cancelled or released.
public final class ObservationToken: @unchecked Sendable {
    private let lock = NSLock()
    private var cancelled = false
    var task: Task<Void, Never>?

    /// Ends the observation.
    public func cancel() {
        let running: Task<Void, Never>? = lock.withLock {
            cancelled = true
            return task
        }
        running?.cancel()
    }

    /// Whether the observation ended.
    public var isCancelled: Bool { lock.withLock { cancelled } }

    deinit { task?.cancel() }
}

/// Runs `apply` now, tracking the observable properties it reads, and again each time one of them
/// changes, until the returned token is cancelled or released.
///
/// ```swift
/// token = withContinuousObservation(options: .didSet) { [weak self] _ in
///     _ = self?.observer.eventCounter
///     self?.processChanges()
/// }
/// ```
///
/// With `.didSet` (the default) the closure runs after each change has completed, through the
/// toolchain's `Observations` sequence, which also coalesces changes made in one go. With `.willSet` it
/// runs synchronously as a change begins, and sees the values from before it.
@discardableResult
public func withContinuousObservation(options: ObservationOptions = .didSet,
                                      _ apply: @escaping @Sendable (ObservationEvent) -> Void) -> ObservationToken {
    let token = ObservationToken()
    if options.contains(.willSet) {
        WillSetObservation(token: token, apply: apply).run(ObservationEvent(count: 0, phase: []))
        return token
    }
    let runs = RunCounter()
    let observations = Observations<Void, Never> {
        let count = runs.next()
        apply(ObservationEvent(count: count, phase: count == 0 ? [] : .didSet))
    }
    token.task = Task { [weak token] in
        for await _ in observations {
            if token?.isCancelled ?? true { break }
        }
    }
    return token
}

/// Numbers the runs of a continuous observation.
private final class RunCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = -1
    func next() -> Int {
        lock.withLock {
            count += 1
            return count
        }
    }
}

/// Observation that runs its closure as each change begins.
private final class WillSetObservation: @unchecked Sendable {
    weak var token: ObservationToken?
    let apply: @Sendable (ObservationEvent) -> Void
    private var count = 0

    init(token: ObservationToken, apply: @escaping @Sendable (ObservationEvent) -> Void) {
        self.token = token
        self.apply = apply
    }

    func run(_ event: ObservationEvent) {
        guard let token, !token.isCancelled else { return }
        withObservationTracking {
            apply(event)
        } onChange: { [self] in
            count += 1
            run(ObservationEvent(count: count, phase: .willSet))
        }
    }
}

#endif
