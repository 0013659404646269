// `withContinuousObservation(options:_:)` and its token, which SwiftData's 2026 sample code uses to
// observe a `ResultsObserver` or `HistoryObserver` outside SwiftUI. This toolchain's Observation lacks
// them; Folio supplies them where the platform does not.
#if !canImport(Darwin)
    import Synchronization

    /// When the closure of ``withContinuousObservation(options:isolation:_:)`` runs again.
    public struct ObservationOptions: OptionSet, Sendable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// Before a tracked property changes (the closure sees the old values).
        public static let willSet = ObservationOptions(rawValue: 1)
        /// After a tracked property changed (the closure sees the new values). The default.
        public static let didSet = ObservationOptions(rawValue: 2)
    }

    /// What the closure of ``withContinuousObservation(options:isolation:_:)`` receives each time it runs.
    public struct ObservationEvent: Sendable {
        /// 0 for the first run, then 1, 2, … for each change.
        public let count: Int
        /// Whether this run happens before (`.willSet`) or after (`.didSet`) the change; empty for the first run.
        public let phase: ObservationOptions
    }

    /// Keeps a continuous observation alive; the observation ends when the token is cancelled or released.
    public final class ObservationToken: Sendable {
        private let cancelled = Atomic<Bool>(false)

        /// Ends the observation.
        public func cancel() {
            cancelled.store(true, ordering: .releasing)
        }

        /// Whether the observation ended.
        public var isCancelled: Bool { cancelled.load(ordering: .acquiring) }

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
    /// With `.didSet` (the default) the closure runs again after the change, on the actor the observation
    /// was started from (`#isolation`): Folio's observers change on the actor they were created on, so the
    /// re-run is queued behind the change and sees its result. Started outside any actor, the re-run goes
    /// to a global queue. With `.willSet` the closure runs synchronously as a change begins and sees the
    /// values from before it.
    @discardableResult
    public func withContinuousObservation(
        options: ObservationOptions = .didSet, isolation: isolated (any Actor)? = #isolation,
        _ apply: @escaping @Sendable (ObservationEvent) -> Void
    ) -> ObservationToken {
        let token = ObservationToken()
        ContinuousObservation(token: token, options: options, isolation: isolation, apply: apply)
            .run(ObservationEvent(count: 0, phase: []))
        return token
    }

    /// The state of one continuous observation.
    private final class ContinuousObservation: Sendable {
        weak let token: ObservationToken?
        let options: ObservationOptions
        let isolation: (any Actor)?
        let apply: @Sendable (ObservationEvent) -> Void
        /// How many changes were seen: each `onChange` counts one.
        private let count = Atomic<Int>(0)

        init(
            token: ObservationToken, options: ObservationOptions, isolation: (any Actor)?,
            apply: @escaping @Sendable (ObservationEvent) -> Void
        ) {
            self.token = token
            self.options = options
            self.isolation = isolation
            self.apply = apply
        }

        func run(_ event: ObservationEvent) {
            guard let token, !token.isCancelled else { return }
            withObservationTracking {
                apply(event)
            } onChange: { [self] in
                let next = ObservationEvent(
                    count: count.wrappingAdd(1, ordering: .relaxed).newValue, phase: options.contains(.willSet) ? .willSet : .didSet)
                if options.contains(.willSet) {
                    run(next)
                } else if let isolation {
                    Isolation.run(on: isolation) { self.run(next) }
                } else {
                    DispatchQueue.global().async { self.run(next) }
                }
            }
        }
    }

#endif
