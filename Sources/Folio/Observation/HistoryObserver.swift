import FolioStorage

/// Counts the arrivals of relevant transactions in a container's store, through Observation, as
/// SwiftData's `HistoryObserver` does: observe ``eventCounter``, then call
/// ``ModelContext/fetchHistory(_:)`` to read what arrived.
///
/// Transactions count when they come from this process's contexts or from another process writing the
/// same store, were saved by one of ``authors`` (any author when empty), and change one of
/// ``observedModels`` or a subclass of one (any model when empty).
public final class HistoryObserver: Observable {
    private let registrar = ObservationRegistrar()
    private var counter = 0
    private var tokens: [String: DefaultHistoryToken]
    private var subscription: UUID?
    private let isolation: (any Actor)?
    private let relevantEntities: Set<String>?
    /// The model classes whose changes count; all when empty.
    public let observedModels: [any PersistentModel.Type]
    /// The authors whose transactions count; all when empty.
    public let authors: Set<String>
    /// The container observed.
    public let modelContainer: ModelContainer

    /// Increases each time relevant transactions arrive.
    public var eventCounter: Int {
        registrar.access(self, keyPath: \.eventCounter)
        return counter
    }

    /// The position of the newest relevant transaction seen, by store identifier.
    public var historyTokens: [String: DefaultHistoryToken] {
        registrar.access(self, keyPath: \.historyTokens)
        return tokens
    }

    /// Starts observing.
    ///
    /// - Parameters:
    ///   - historyTokens: Where to start, by store identifier; transactions after that token that
    ///     are already in the store count as a first event. Nil starts now.
    ///   - observedModels: The model types whose changes count, subclasses included; empty for all.
    ///   - authors: The authors whose transactions count; empty for all.
    ///   - modelContainer: The container whose store is observed.
    ///   - isolation: The actor that updates run on; the caller's by default.
    /// - Throws: ``FolioError/Code/historyExpired`` when a token is older than the retained history.
    public init(
        historyTokens: [String: any HistoryToken]? = nil, observedModels: [any PersistentModel.Type] = [],
        authors: Set<String> = [], modelContainer: ModelContainer,
        isolation: isolated (any Actor)? = #isolation
    ) throws {
        self.observedModels = observedModels
        self.authors = authors
        self.modelContainer = modelContainer
        self.isolation = isolation
        if observedModels.isEmpty {
            relevantEntities = nil
        } else {
            relevantEntities = Set(
                observedModels.flatMap { type in
                    modelContainer.schema.entitiesByName[type._folioEntityName]?.selfAndDescendants.map(\.name) ?? [type._folioEntityName]
                })
        }
        let storeIdentifier = modelContainer.storeIdentifier
        var start = DefaultHistoryToken(storeIdentifier: storeIdentifier, sequence: modelContainer.store.lastSequence)
        if let given = historyTokens?[storeIdentifier] {
            guard let token = given as? DefaultHistoryToken else {
                throw FolioError(.historyExpired, "The history token for \(storeIdentifier) is not a Folio token")
            }
            try modelContainer.checkPosition(of: token)
            start = token
        }
        tokens = [storeIdentifier: start]
        let backlog = try modelContainer.historyTransactions(after: start.sequence)
        if backlog.contains(where: isRelevant) {
            counter = 1
            if let newest = backlog.last { tokens[storeIdentifier] = newest.token }
        }
        subscription = modelContainer.changeHub.subscribe { [weak self] event in
            guard let self else { return }
            let transactions = event.transactions.map(modelContainer.historyTransaction)
            guard event.isReset || transactions.contains(where: self.isRelevant) else { return }
            let newest = transactions.last?.token
            let carrier = Isolation.Carrier(value: self)
            Isolation.run(on: self.isolation) {
                let observer = carrier.value
                observer.registrar.withMutation(of: observer, keyPath: \.eventCounter) { observer.counter += 1 }
                if let newest {
                    observer.registrar.withMutation(of: observer, keyPath: \.historyTokens) {
                        observer.tokens[newest.storeIdentifier] = newest
                    }
                }
            }
        }
    }

    deinit {
        if let subscription { modelContainer.changeHub.unsubscribe(subscription) }
    }

    private func isRelevant(_ transaction: DefaultHistoryTransaction) -> Bool {
        if !authors.isEmpty, !authors.contains(transaction.author ?? "") { return false }
        guard let relevantEntities else { return !transaction.changes.isEmpty }
        return transaction.changes.contains { relevantEntities.contains($0.changedPersistentIdentifier.entityName) }
    }
}

extension ModelContainer {
    /// The store's history as an asynchronous sequence, for server code: first the retained transactions
    /// after `token` (none when `token` is nil: the sequence starts now), then each new one as it is saved
    /// by this process or another, until the task is cancelled.
    ///
    /// The sequence fails with ``FolioError/Code/historyExpired`` if `token` is older than the retained
    /// history or a merge renumbered the history since it was taken, or if compaction removed
    /// transactions before they could be delivered. Transactions a merge brings while the sequence runs
    /// (git replacing the store's files) are delivered once each, whatever numbers the merge gave them.
    public func historyTransactions(after token: DefaultHistoryToken?) -> AsyncThrowingStream<DefaultHistoryTransaction, any Error> {
        AsyncThrowingStream { continuation in
            let hub = changeHub
            let position = PositionBox(token?.sequence ?? store.lastSequence)
            let deliver: (StoreChangeHub.Event) -> Void = { [weak self] event in
                guard let self else { return }
                if event.isReset {
                    continuation.finish(
                        throwing: FolioError(
                            .historyExpired,
                            "History was compacted away before it could be delivered; fetch the current state again"))
                    return
                }
                for journal in event.transactions where position.advance(past: journal, arrivedByReload: event.reloadedThrough != nil) {
                    continuation.yield(self.historyTransaction(journal))
                }
                if let last = event.reloadedThrough { position.finishReload(at: last) }
            }
            let subscription = hub.subscribe(deliver)
            continuation.onTermination = { _ in hub.unsubscribe(subscription) }
            do {
                if let token { try checkPosition(of: token) }
                for transaction in try historyTransactions(after: position.value) where position.advanceInBacklog(past: transaction) {
                    continuation.yield(transaction)
                }
            } catch {
                continuation.finish(throwing: error)
            }
        }
    }
}

/// What a history stream has delivered, shared between the backlog and the hub: the sequence number
/// delivered up to, and until the first reload of replaced files, the backlog's transactions.
final class PositionBox: Sendable {
    private struct Position: Sendable {
        var sequence: UInt64
        /// The identifiers of the backlog's transactions. A reload that raced with reading the backlog
        /// delivers its arrivals again, by identifier; a later reload cannot bring any of them.
        var backlog: Set<String>? = []
    }

    private let position: LockedState<Position>

    init(_ sequence: UInt64) { self.position = LockedState(Position(sequence: sequence)) }

    var value: UInt64 { position.withLock { $0.sequence } }

    /// Moves past a transaction of the backlog if it follows what was delivered; false if it was
    /// delivered already.
    func advanceInBacklog(past transaction: DefaultHistoryTransaction) -> Bool {
        position.withLock { position in
            guard transaction.transactionIdentifier > position.sequence else { return false }
            position.sequence = transaction.transactionIdentifier
            position.backlog?.insert(transaction.journalIdentifier)
            return true
        }
    }

    /// Moves past a transaction the hub delivered; false if it was delivered already. A reload's
    /// transactions were new to the store, so they count by identifier: a merge may have numbered them
    /// below what was delivered.
    func advance(past transaction: JournalTransaction, arrivedByReload: Bool) -> Bool {
        position.withLock { position in
            guard arrivedByReload else {
                guard transaction.sequence > position.sequence else { return false }
                position.sequence = transaction.sequence
                return true
            }
            if position.backlog?.contains(transaction.transactionID) == true { return false }
            position.sequence = max(position.sequence, transaction.sequence)
            return true
        }
    }

    /// Moves to `last`, the store's last sequence after a reload whose transactions were delivered
    /// (a complete reload never ends below where it started), and forgets the backlog's identifiers.
    func finishReload(at last: UInt64) {
        position.withLock { position in
            position.sequence = max(position.sequence, last)
            position.backlog = nil
        }
    }
}
