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

    /// Ends the observation.
    public func cancel() {
        lock.withLock { cancelled = true }
    }

    /// Whether the observation ended.
    public var isCancelled: Bool { lock.withLock { cancelled } }

    deinit { cancel() }
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
/// With `.didSet` the closure runs after the change has completed, on the main queue when observed
/// from the main thread and on a global queue otherwise.
@discardableResult
public func withContinuousObservation(options: ObservationOptions = .didSet,
                                      _ apply: @escaping @Sendable (ObservationEvent) -> Void) -> ObservationToken {
    let token = ObservationToken()
    let state = ContinuousObservationState(token: token, options: options, apply: apply, onMain: Thread.isMainThread)
    state.run(ObservationEvent(count: 0, phase: []))
    return token
}

private final class ContinuousObservationState: @unchecked Sendable {
    weak var token: ObservationToken?
    let options: ObservationOptions
    let apply: @Sendable (ObservationEvent) -> Void
    let onMain: Bool
    private var count = 0

    init(token: ObservationToken, options: ObservationOptions, apply: @escaping @Sendable (ObservationEvent) -> Void, onMain: Bool) {
        self.token = token
        self.options = options
        self.apply = apply
        self.onMain = onMain
    }

    func run(_ event: ObservationEvent) {
        guard let token, !token.isCancelled else { return }
        withObservationTracking {
            apply(event)
        } onChange: { [self] in
            count += 1
            let number = count
            if options.contains(.willSet) {
                // Runs before the change lands, and re-arms tracking for the next one.
                run(ObservationEvent(count: number, phase: .willSet))
                return
            }
            let queue: DispatchQueue = onMain ? .main : .global()
            queue.async { [self] in self.run(ObservationEvent(count: number, phase: .didSet)) }
        }
    }
}

#endif
