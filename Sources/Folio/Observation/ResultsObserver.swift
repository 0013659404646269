@_spi(FolioEngine) import FolioStorage

/// Keeps the results of a fetch current, anywhere in an app, through Observation, as SwiftData's
/// `ResultsObserver` does.
///
/// ```swift
/// let observer = try ResultsObserver<Trip, String>(sortBy: [SortDescriptor(\.startDate)],
///                                                  sectionBy: \.destination, modelContext: context)
/// withObservationTracking { _ = observer.sections } onChange: { … }
/// ```
///
/// The results follow saves made in the observer's context, in other contexts of the container, and by
/// other processes writing the same store (within ``ModelContainer/changeNotificationLatency``).
/// Bursts of saves are coalesced into one update. A save that touches none of the observed entities
/// costs nothing; one that only changes properties the query does not filter, sort or section on
/// refreshes the affected models without fetching again.
///
/// Updates run on the actor the observer was created on (`#isolation`), or right away on the
/// thread that saw the change when it was created outside any actor.
public final class ResultsObserver<Element: PersistentModel, SectionTitle: Hashable>: Observable {
    private let registrar = ObservationRegistrar()
    private var storedResults: FetchResultsCollection<Element>
    private var storedSections: SectionedResults<Element, SectionTitle>?
    private var descriptor: FetchDescriptor<Element>
    private let sectionTitle: ((Element) -> SectionTitle)?
    private let sectionKeyPath: AnyKeyPath?
    private let isolation: (any Actor)?
    private var subscription: UUID?
    private let pending = LockedState(PendingWork())
    /// The context the results live in.
    public let modelContext: ModelContext

    /// What the change hub delivered that the observer has not applied yet.
    struct PendingWork: Sendable {
        var transactions: [JournalTransaction] = []
        var reset = false
        var scheduled = false
    }

    /// The matching models, updated automatically.
    public var results: FetchResultsCollection<Element> {
        registrar.access(self, keyPath: \.results)
        return storedResults
    }

    /// The results in sections; nil for an observer without `sectionBy`.
    public var sections: SectionedResults<Element, SectionTitle>? {
        registrar.access(self, keyPath: \.sections)
        return storedSections
    }

    /// The fetch the observer keeps current. Setting it fetches again.
    public var fetchDescriptor: FetchDescriptor<Element> {
        get {
            registrar.access(self, keyPath: \.fetchDescriptor)
            return descriptor
        }
        set {
            registrar.withMutation(of: self, keyPath: \.fetchDescriptor) { descriptor = newValue }
            try? refetch()
        }
    }

    /// The filter of the fetch. Setting it fetches again.
    public var filterBy: Predicate<Element>? {
        get { fetchDescriptor.predicate }
        set { fetchDescriptor.predicate = newValue }
    }

    /// The sort of the fetch. Setting it fetches again.
    public var sortBy: [SortDescriptor<Element>] {
        get { fetchDescriptor.sortBy }
        set { fetchDescriptor.sortBy = newValue }
    }

    init(
        descriptor: FetchDescriptor<Element>, context: ModelContext, sectionTitle: ((Element) -> SectionTitle)?,
        sectionKeyPath: AnyKeyPath?, isolation: (any Actor)?
    ) throws {
        self.descriptor = descriptor
        self.modelContext = context
        self.sectionTitle = sectionTitle
        self.sectionKeyPath = sectionKeyPath
        self.isolation = isolation
        self.storedResults = FetchResultsCollection(emptyIn: context, batchSize: 500)
        try refetch()
        let pending = self.pending
        subscription = context.container.changeHub.subscribe { [weak self] event in
            pending.withLock { pending in
                pending.transactions += event.transactions
                pending.reset = pending.reset || event.isReset
            }
            self?.scheduleUpdate()
        }
    }

    deinit {
        if let subscription { modelContext.container.changeHub.unsubscribe(subscription) }
    }

    private func scheduleUpdate() {
        let shouldSchedule = pending.withLock { pending -> Bool in
            if pending.scheduled { return false }
            pending.scheduled = true
            return true
        }
        guard shouldSchedule else { return }
        let carrier = Isolation.Carrier(value: self)
        Isolation.run(on: isolation) {
            carrier.value.applyPending()
        }
    }

    private func applyPending() {
        let (transactions, reset) = pending.withLock { pending -> ([JournalTransaction], Bool) in
            defer {
                pending.transactions = []
                pending.reset = false
                pending.scheduled = false
            }
            return (pending.transactions, pending.reset)
        }
        let entities = Set(modelContext.schema.entitiesByName[Element._folioEntityName]?.selfAndDescendants.map(\.name) ?? [])
        let touched = transactions.filter { !$0.entities.isDisjoint(with: entities) }
        if !reset && touched.isEmpty { return }
        if !reset && onlyUnqueriedFieldsChanged(touched, entities: entities) {
            // Same rows, new values: bring the registered models up to date and tell observers.
            for transaction in touched {
                for record in transaction.updated { _ = modelContext.registeredModel(forRecordNumber: record.id) }
            }
            registrar.withMutation(of: self, keyPath: \.results) {}
            if sectionTitle != nil { registrar.withMutation(of: self, keyPath: \.sections) {} }
            return
        }
        try? refetch()
    }

    /// Whether the transactions only update properties that neither the predicate, the sort nor the
    /// section key reads, so that the set and order of results cannot have changed.
    private func onlyUnqueriedFieldsChanged(_ transactions: [JournalTransaction], entities: Set<String>) -> Bool {
        var queried: Set<String> = []
        let table = Dictionary(Element._folioKeyPathTable.map { ($0.0, $0.1) }, uniquingKeysWith: { first, _ in first })
        var keyPaths: [AnyKeyPath] = []
        if let predicate = descriptor.predicate {
            keyPaths += OpaqueAttributeCheck.keyPaths(in: predicate.expression)
        }
        keyPaths += descriptor.sortBy.compactMap { $0.keyPath }
        if let sectionKeyPath { keyPaths.append(sectionKeyPath) }
        for keyPath in keyPaths {
            guard let name = table[keyPath] else { return false }  // a path we cannot name: be safe
            queried.insert(name)
        }
        for transaction in transactions {
            if transaction.inserted.contains(where: { entities.contains($0.entity) }) { return false }
            if transaction.deleted.contains(where: { entities.contains($0.entity) }) { return false }
            for record in transaction.updated where entities.contains(record.entity) {
                if !queried.isDisjoint(with: record.values.keys) { return false }
            }
        }
        return true
    }

    private func refetch() throws {
        let rows = try modelContext.rows(descriptor)
        let results = try FetchResultsCollection<Element>(rows: rows, context: modelContext, batchSize: 500)
        registrar.withMutation(of: self, keyPath: \.results) { storedResults = results }
        if let sectionTitle {
            let titled = results.map { (sectionTitle($0), $0) }
            // Sections follow the first appearance of each title in the sorted results.
            var order: [SectionTitle: Int] = [:]
            for (title, _) in titled where order[title] == nil { order[title] = order.count }
            let grouped = titled.enumerated().sorted {
                (order[$0.element.0] ?? 0, $0.offset) < (order[$1.element.0] ?? 0, $1.offset)
            }.map(\.element.1)
            let sections = SectionedResults(elements: grouped, title: sectionTitle)
            registrar.withMutation(of: self, keyPath: \.sections) { storedSections = sections }
        }
    }
}

extension ModelContext {
    /// The registered model of a record, reloaded if another context or process changed it.
    func registeredModel(forRecordNumber number: Int64) -> (any PersistentModel)? {
        guard registered[number]?.model != nil else { return nil }
        return model(forRecordNumber: number)
    }
}

// MARK: Initializers without sections

extension ResultsObserver where SectionTitle == Never {
    /// Observes the results of a fetch in a context.
    public convenience init(
        fetchDescriptor: FetchDescriptor<Element> = FetchDescriptor<Element>(), modelContext: ModelContext,
        isolation: isolated (any Actor)? = #isolation
    ) throws {
        try self.init(descriptor: fetchDescriptor, context: modelContext, sectionTitle: nil, sectionKeyPath: nil, isolation: isolation)
    }

    /// Observes the results of a fetch in a new context of a container.
    public convenience init(
        fetchDescriptor: FetchDescriptor<Element> = FetchDescriptor<Element>(), modelContainer: ModelContainer,
        isolation: isolated (any Actor)? = #isolation
    ) throws {
        try self.init(
            descriptor: fetchDescriptor, context: ModelContext(modelContainer), sectionTitle: nil, sectionKeyPath: nil,
            isolation: isolation)
    }

    /// Observes the models that match a predicate, in an order.
    public convenience init(
        filterBy: Predicate<Element>? = nil, sortBy: [SortDescriptor<Element>]? = nil,
        modelContext: ModelContext, isolation: isolated (any Actor)? = #isolation
    ) throws {
        try self.init(
            descriptor: FetchDescriptor(predicate: filterBy, sortBy: sortBy ?? []), context: modelContext,
            sectionTitle: nil, sectionKeyPath: nil, isolation: isolation)
    }

    /// Observes the models that match a predicate, in an order, in a new context of a container.
    public convenience init(
        filterBy: Predicate<Element>? = nil, sortBy: [SortDescriptor<Element>]? = nil,
        modelContainer: ModelContainer, isolation: isolated (any Actor)? = #isolation
    ) throws {
        try self.init(
            descriptor: FetchDescriptor(predicate: filterBy, sortBy: sortBy ?? []), context: ModelContext(modelContainer),
            sectionTitle: nil, sectionKeyPath: nil, isolation: isolation)
    }
}

// MARK: Initializers with sections

extension ResultsObserver where SectionTitle == String {
    /// Observes the results of a fetch, in sections by a string property.
    public convenience init(
        fetchDescriptor: FetchDescriptor<Element> = FetchDescriptor<Element>(),
        sectionBy: KeyPath<Element, String>, modelContext: ModelContext,
        isolation: isolated (any Actor)? = #isolation
    ) throws {
        try self.init(
            descriptor: Self.sorted(fetchDescriptor, by: sectionBy), context: modelContext,
            sectionTitle: { $0[keyPath: sectionBy] }, sectionKeyPath: sectionBy, isolation: isolation)
    }

    /// Observes the results of a fetch, in sections by an optional string property (nil titles become "").
    public convenience init(
        fetchDescriptor: FetchDescriptor<Element> = FetchDescriptor<Element>(),
        sectionBy: KeyPath<Element, String?>, modelContext: ModelContext,
        isolation: isolated (any Actor)? = #isolation
    ) throws {
        try self.init(
            descriptor: Self.sorted(fetchDescriptor, by: sectionBy), context: modelContext,
            sectionTitle: { $0[keyPath: sectionBy] ?? "" }, sectionKeyPath: sectionBy, isolation: isolation)
    }

    /// Observes the results of a fetch in a new context, in sections by a string property.
    public convenience init(
        fetchDescriptor: FetchDescriptor<Element> = FetchDescriptor<Element>(),
        sectionBy: KeyPath<Element, String>, modelContainer: ModelContainer,
        isolation: isolated (any Actor)? = #isolation
    ) throws {
        try self.init(
            descriptor: Self.sorted(fetchDescriptor, by: sectionBy), context: ModelContext(modelContainer),
            sectionTitle: { $0[keyPath: sectionBy] }, sectionKeyPath: sectionBy, isolation: isolation)
    }

    /// Observes the results of a fetch in a new context, in sections by an optional string property.
    public convenience init(
        fetchDescriptor: FetchDescriptor<Element> = FetchDescriptor<Element>(),
        sectionBy: KeyPath<Element, String?>, modelContainer: ModelContainer,
        isolation: isolated (any Actor)? = #isolation
    ) throws {
        try self.init(
            descriptor: Self.sorted(fetchDescriptor, by: sectionBy), context: ModelContext(modelContainer),
            sectionTitle: { $0[keyPath: sectionBy] ?? "" }, sectionKeyPath: sectionBy, isolation: isolation)
    }

    /// Observes the models that match a predicate, in sections by a string property.
    public convenience init(
        filterBy: Predicate<Element>? = nil, sortBy: [SortDescriptor<Element>]? = nil,
        sectionBy: KeyPath<Element, String>, modelContext: ModelContext,
        isolation: isolated (any Actor)? = #isolation
    ) throws {
        try self.init(
            descriptor: Self.sorted(FetchDescriptor(predicate: filterBy, sortBy: sortBy ?? []), by: sectionBy),
            context: modelContext, sectionTitle: { $0[keyPath: sectionBy] }, sectionKeyPath: sectionBy,
            isolation: isolation)
    }

    /// Observes the models that match a predicate, in sections by an optional string property.
    public convenience init(
        filterBy: Predicate<Element>? = nil, sortBy: [SortDescriptor<Element>]? = nil,
        sectionBy: KeyPath<Element, String?>, modelContext: ModelContext,
        isolation: isolated (any Actor)? = #isolation
    ) throws {
        try self.init(
            descriptor: Self.sorted(FetchDescriptor(predicate: filterBy, sortBy: sortBy ?? []), by: sectionBy),
            context: modelContext, sectionTitle: { $0[keyPath: sectionBy] ?? "" }, sectionKeyPath: sectionBy,
            isolation: isolation)
    }

    /// Observes the models that match a predicate in a new context, in sections by a string property.
    public convenience init(
        filterBy: Predicate<Element>? = nil, sortBy: [SortDescriptor<Element>]? = nil,
        sectionBy: KeyPath<Element, String>, modelContainer: ModelContainer,
        isolation: isolated (any Actor)? = #isolation
    ) throws {
        try self.init(
            descriptor: Self.sorted(FetchDescriptor(predicate: filterBy, sortBy: sortBy ?? []), by: sectionBy),
            context: ModelContext(modelContainer), sectionTitle: { $0[keyPath: sectionBy] },
            sectionKeyPath: sectionBy, isolation: isolation)
    }

    /// Observes the models that match a predicate in a new context, in sections by an optional string property.
    public convenience init(
        filterBy: Predicate<Element>? = nil, sortBy: [SortDescriptor<Element>]? = nil,
        sectionBy: KeyPath<Element, String?>, modelContainer: ModelContainer,
        isolation: isolated (any Actor)? = #isolation
    ) throws {
        try self.init(
            descriptor: Self.sorted(FetchDescriptor(predicate: filterBy, sortBy: sortBy ?? []), by: sectionBy),
            context: ModelContext(modelContainer), sectionTitle: { $0[keyPath: sectionBy] ?? "" },
            sectionKeyPath: sectionBy, isolation: isolation)
    }

    /// The descriptor with the section key sorted on first, as SwiftData does.
    private static func sorted(_ descriptor: FetchDescriptor<Element>, by keyPath: KeyPath<Element, String>) -> FetchDescriptor<Element> {
        var sorted = descriptor
        sorted.sortBy.insert(SortDescriptor(UncheckedKeyPath(keyPath).value), at: 0)
        return sorted
    }

    private static func sorted(_ descriptor: FetchDescriptor<Element>, by keyPath: KeyPath<Element, String?>) -> FetchDescriptor<Element> {
        var sorted = descriptor
        sorted.sortBy.insert(SortDescriptor(UncheckedKeyPath(keyPath).value), at: 0)
        return sorted
    }
}

/// A key path presented as sendable: key paths to stored properties are immutable.
// Unchecked: SortDescriptor wants a Sendable key path; the app's `sectionBy` key path (a stored property's) is not typed so.
struct UncheckedKeyPath<Root, Value>: @unchecked Sendable {
    let keyPath: KeyPath<Root, Value>
    init(_ keyPath: KeyPath<Root, Value>) { self.keyPath = keyPath }
    var value: KeyPath<Root, Value> & Sendable {
        unsafeBitCast(keyPath, to: (KeyPath<Root, Value> & Sendable).self)
    }
}
