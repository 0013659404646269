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
    public init(historyTokens: [String: any HistoryToken]? = nil, observedModels: [any PersistentModel.Type] = [],
                authors: Set<String> = [], modelContainer: ModelContainer,
                isolation: isolated (any Actor)? = #isolation) throws {
        self.observedModels = observedModels
        self.authors = authors
        self.modelContainer = modelContainer
        self.isolation = isolation
        if observedModels.isEmpty {
            relevantEntities = nil
        } else {
            relevantEntities = Set(observedModels.flatMap { type in
                modelContainer.schema.entitiesByName[type._folioEntityName]?.selfAndDescendants.map(\.name) ?? [type._folioEntityName]
            })
        }
        let storeIdentifier = modelContainer.storeIdentifier
        var start = DefaultHistoryToken(storeIdentifier: storeIdentifier, sequence: modelContainer.store.lastSequence)
        if let given = historyTokens?[storeIdentifier] {
            guard let token = given as? DefaultHistoryToken else {
                throw FolioError(.historyExpired, "The history token for \(storeIdentifier) is not a Folio token")
            }
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
    /// history, or if compaction removed transactions before they could be delivered.
    public func historyTransactions(after token: DefaultHistoryToken?) -> AsyncThrowingStream<DefaultHistoryTransaction, any Error> {
        AsyncThrowingStream { continuation in
            let hub = changeHub
            let position = PositionBox(token?.sequence ?? store.lastSequence)
            let deliver: (StoreChangeHub.Event) -> Void = { [weak self] event in
                guard let self else { return }
                if event.isReset {
                    continuation.finish(throwing: FolioError(.historyExpired,
                        "History was compacted away before it could be delivered; fetch the current state again"))
                    return
                }
                for journal in event.transactions where position.advance(to: journal.sequence) {
                    continuation.yield(self.historyTransaction(journal))
                }
            }
            let subscription = hub.subscribe(deliver)
            continuation.onTermination = { _ in hub.unsubscribe(subscription) }
            do {
                for transaction in try historyTransactions(after: position.value)
                where position.advance(to: transaction.transactionIdentifier) {
                    continuation.yield(transaction)
                }
            } catch {
                continuation.finish(throwing: error)
            }
        }
    }
}

/// The sequence number a history stream has delivered up to, shared between the backlog and the hub.
// Sendable: `sequence`, the only mutable state, is read and written only while holding `lock`.
final class PositionBox: @unchecked Sendable {
    private let lock = NSLock()
    private var sequence: UInt64

    init(_ sequence: UInt64) { self.sequence = sequence }

    var value: UInt64 { lock.withLock { sequence } }

    /// Moves to `next` if it follows what was delivered; false if it was delivered already.
    func advance(to next: UInt64) -> Bool {
        lock.withLock {
            guard next > sequence else { return false }
            sequence = next
            return true
        }
    }
}
