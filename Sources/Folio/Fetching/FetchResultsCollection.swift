@_spi(FolioEngine) import FolioStorage

/// Fetched models that are created when they are first accessed, in batches.
///
/// `context.fetch(descriptor, batchSize: 500)` returns one: the matching identifiers are found at once,
/// and the models of a batch are created when an element of that batch is first read.
public struct FetchResultsCollection<Element: PersistentModel>: RandomAccessCollection {
    private let rows: [RowID]
    /// The stored values of each row when it was fetched, so that a row whose record is deleted before
    /// it is read still gives a model (marked deleted) instead of failing.
    private let fetchedValues: [(entity: String, values: RecordValues)?]
    /// The unsaved models among the results, held so that they stay readable even if discarded later.
    private let unsaved: [RowID: Element]
    private let context: ModelContext
    private let batchSize: Int
    private let cache: BatchCache

    final class BatchCache {
        var batches: [Int: [Element?]] = [:]
    }

    /// - Throws: ``FolioError/Code/reentrantCall`` when this thread holds the container's lock (the
    ///   fetch was made from inside a save or another fetch).
    init(rows: [RowID], context: ModelContext, batchSize: Int, loaded: [Element]? = nil) throws {
        self.rows = rows
        let container = context.container
        // The fetch that found `rows` loaded the index. Its table is read once, not once per row.
        self.fetchedValues =
            rows.isEmpty
            ? []
            : try container.lock.withLock(refusingReentry: "ModelContext.fetch(_:batchSize:)") { state in
                let records = container.currentIndex(in: &state).records
                return rows.map { id in records[id].map { ($0.entity, $0.values) } }
            }
        self.unsaved =
            rows.contains(where: { $0 < 0 })
            ? Dictionary(
                context.insertedModelsArray.compactMap { model in (model as? Element).map { (PendingOverlay.rowID(of: model), $0) } },
                uniquingKeysWith: { first, _ in first })
            : [:]
        self.context = context
        self.batchSize = Swift.max(1, batchSize)
        self.cache = BatchCache()
        if let loaded { cache.batches[0] = loaded }
    }

    /// No results (a `ResultsObserver` before its first fetch, which the app may make while a save holds
    /// the container's lock): reads nothing.
    init(emptyIn context: ModelContext, batchSize: Int) {
        self.rows = []
        self.fetchedValues = []
        self.unsaved = [:]
        self.context = context
        self.batchSize = Swift.max(1, batchSize)
        self.cache = BatchCache()
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { rows.count }

    public subscript(position: Int) -> Element {
        let batch = position / batchSize
        if cache.batches[batch] == nil {
            let range = (batch * batchSize)..<Swift.min(rows.count, (batch + 1) * batchSize)
            cache.batches[batch] = range.map { position in
                if rows[position] < 0 { return unsaved[rows[position]] }
                if let model = context.row(rows[position]) as? Element { return model }
                guard let fetched = fetchedValues[position] else { return nil }
                return context.detachedModel(entity: fetched.entity, recordNumber: rows[position], values: fetched.values) as? Element
            }
            // Keep only a few batches alive: the context re-creates models it no longer holds.
            if cache.batches.count > 4, let oldest = cache.batches.keys.first(where: { $0 != batch }) {
                cache.batches[oldest] = nil
            }
        }
        let models = cache.batches[batch] ?? []
        let offset = position - batch * batchSize
        if offset < models.count, let model = models[offset] { return model }
        // Only reachable when a record was deleted after the fetch and its values could not be loaded
        // into its own class: an instance of `Element` marked deleted stands in, showing the values
        // the record had where they decode. (`fetch(_:batchSize:)` loads the models of classes that
        // could not stand in like this during the fetch, so this is never one of them.)
        if let standIn = Self.deletedStandIn(values: fetchedValues[position]?.values) { return standIn }
        // A `let` whose stored value did not decode: the stand-in shows empty values instead.
        if let standIn = Self.deletedStandIn(values: nil) { return standIn }
        // Unreachable: with no values, making an instance only fails for a `let` whose type has no
        // empty value, and such a class cannot stand in, so `fetch(_:batchSize:)` never gets here.
        preconditionFailure("internal error: \(Element.self) cannot stand in for a deleted record")
    }

    /// An instance of `Element` marked deleted, showing `values` where they decode.
    private static func deletedStandIn(values: RecordValues?) -> Element? {
        let backing = ModelBackingData()
        backing.faultValues = values
        backing.isDeleted = true
        return try? Element(_claimed: _ClaimedBackingData(new: backing))
    }
}

extension ModelContext {
    /// The models that match a descriptor, created lazily in batches of `batchSize` as they are read.
    public func fetch<T: PersistentModel>(_ descriptor: FetchDescriptor<T>, batchSize: Int) throws -> FetchResultsCollection<T> {
        // A class with a property that could show nothing if its record went missing (no default, no
        // empty value) is loaded now, so that a bad record makes this fetch throw.
        let family = schema.entitiesByName[T._folioEntityName]?.selfAndDescendants ?? []
        if family.contains(where: { !PlaceholderValue.canStandIn($0.modelType) }) {
            let models = try fetch(descriptor)
            return try FetchResultsCollection(
                rows: models.map(PendingOverlay.rowID(of:)), context: self,
                batchSize: max(1, models.count), loaded: models)
        }
        return try FetchResultsCollection(rows: try rows(descriptor), context: self, batchSize: batchSize)
    }
}
