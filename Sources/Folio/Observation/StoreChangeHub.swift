import Dispatch
import FolioStorage

/// Delivers each transaction committed to a container's store — by any of its contexts, or by another
/// process — to the container's observers, once, in sequence order.
///
/// Saves in this process publish as they commit. For other processes the hub watches the store's
/// journal (inotify on Linux, a 250 ms check elsewhere) while it has subscribers, and publishes what
/// they appended; there is no polling while nobody observes.
// Unchecked: its subscribers capture their non-Sendable observers; all its state is used only holding `lock`.
final class StoreChangeHub: @unchecked Sendable {
    /// What subscribers receive: the new transactions, or a reset when history was compacted away
    /// before it could be read (subscribers then refetch everything).
    struct Event {
        var transactions: [JournalTransaction]
        var isReset: Bool
        /// The store's last sequence when the transactions came with a reload of replaced files, nil
        /// otherwise. A merge may have numbered them below sequences delivered before, so they are new
        /// by identifier, not by sequence.
        var reloadedThrough: UInt64? = nil
    }

    private weak var container: ModelContainer?
    private let lock = NSLock()
    private var subscribers: [UUID: (Event) -> Void] = [:]
    private var lastDelivered: UInt64
    /// The number of the store's last reload of replaced files that was delivered (``Store/lastReload``).
    private var lastReload: UInt64
    private var monitor: ChangeMonitor?
    /// How often the store is checked where no file notification exists: the configuration's latency.
    let latency: TimeInterval

    init(container: ModelContainer, startingAt sequence: UInt64, latency: TimeInterval) {
        self.container = container
        self.lastDelivered = sequence
        self.lastReload = container.store.lastReload.number
        self.latency = latency
    }

    /// Registers a subscriber; keep the returned identifier to unsubscribe.
    func subscribe(_ handler: @escaping (Event) -> Void) -> UUID {
        let id = UUID()
        let current = container?.store.lastSequence
        lock.withLock {
            if subscribers.isEmpty, let current { lastDelivered = max(lastDelivered, current) }
            subscribers[id] = handler
        }
        startMonitoringIfNeeded()
        return id
    }

    func unsubscribe(_ id: UUID) {
        let stop: ChangeMonitor? = lock.withLock {
            subscribers[id] = nil
            guard subscribers.isEmpty else { return nil }
            defer { monitor = nil }
            return monitor
        }
        stop?.cancel()
    }

    private func startMonitoringIfNeeded() {
        guard let container, !container.configuration.isStoredInMemoryOnly else { return }
        let needsMonitor = lock.withLock { monitor == nil && !subscribers.isEmpty }
        guard needsMonitor else { return }
        let created = try? container.store.monitorChanges(interval: latency) { [weak self] in
            self?.publish(readingDisk: true)
        }
        lock.withLock {
            if monitor == nil { monitor = created } else { created?.cancel() }
        }
    }

    /// Reads the transactions after the last delivered one and hands them to every subscriber.
    func publish(readingDisk: Bool = false) {
        guard let container else { return }
        let idle = lock.withLock { () -> Bool in
            guard subscribers.isEmpty else { return false }
            // Nobody listens: nothing to read; a later subscriber starts from the present.
            lastDelivered = container.store.lastSequence
            return true
        }
        // Reached from the app's code that a save or fetch runs: what is new is delivered by the next
        // publish, which every save makes once it has released the lock.
        if idle || container.lock.isHeldByCurrentThread { return }
        let (event, handlers) = container.lock.withLock("StoreChangeHub's delivery") { state -> (Event?, [(Event) -> Void]) in
            // A store that cannot be read now delivers nothing new; the app's next fetch or save reports
            // the problem, and the next publish tries again.
            try? container.syncIndex(in: &state, fromDisk: readingDisk)
            lock.lock()
            defer { lock.unlock() }
            let from = lastDelivered
            let last = container.store.lastSequence
            let event: Event?
            let reload = container.store.lastReload
            if reload.number != lastReload {
                // Files replaced under the store (git, another process's compaction): sequences may have
                // been renumbered, so what is new is what the reload brought, by transaction id, then
                // what followed it. Anything it cannot describe is a reset.
                var complete = reload.number == lastReload + 1 && !reload.lostTransactions && from >= reload.previousLastSequence
                var transactions = complete ? reload.arrived : []
                if complete && last > reload.lastSequence {
                    let later = (try? container.store.history(after: reload.lastSequence)) ?? []
                    complete = later.first?.sequence == reload.lastSequence + 1
                    transactions += later.filter { $0.sequence <= last }
                }
                lastReload = reload.number
                event = Event(transactions: complete ? transactions : [], isReset: !complete, reloadedThrough: last)
                lastDelivered = last
            } else if last > from {
                if let transactions = try? container.store.history(after: from), transactions.first?.sequence == from + 1 {
                    event = Event(transactions: transactions.filter { $0.sequence <= last }, isReset: false)
                } else {
                    event = Event(transactions: [], isReset: true)
                }
                lastDelivered = last
            } else {
                event = nil
            }
            return (event, Array(subscribers.values))
        }
        guard let event else { return }
        for handler in handlers { handler(event) }
    }
}

extension ModelContainer {
    /// The container's change hub, created on first use.
    var changeHub: StoreChangeHub {
        changeHubStorage.withLock { storage in
            if let hub = storage { return hub }
            let hub = StoreChangeHub(container: self, startingAt: store.lastSequence, latency: changeNotificationLatency)
            storage = hub
            return hub
        }
    }
}

/// Runs a closure isolated to an actor, or right away without one.
enum Isolation {
    /// Carries a non-sendable value to the actor it belongs to.
    // Unchecked: it carries a non-Sendable value to the actor it belongs to, which alone uses it.
    struct Carrier<Value>: @unchecked Sendable {
        let value: Value
    }

    /// Runs `body` on `actor` later, in the order of the calls for the main actor; right away without
    /// an actor.
    ///
    /// For the main actor (where observers usually live) the closure goes straight to the main queue,
    /// which the main actor runs on: a task would first wait for a thread of the shared pool, and
    /// long-running synchronous work there (a busy server, or tests on two cores) can hold every one
    /// of them for seconds.
    static func run(on actor: (any Actor)?, _ body: @escaping () -> Void) {
        guard let actor else {
            body()
            return
        }
        let carrier = Carrier(value: body)
        if actor === MainActor.shared {
            DispatchQueue.main.async {
                MainActor.assumeIsolated { carrier.value() }
            }
            return
        }
        Task {
            await perform(on: actor, carrier)
        }
    }

    private static func perform(on actor: isolated any Actor, _ carrier: Carrier<() -> Void>) {
        carrier.value()
    }
}
