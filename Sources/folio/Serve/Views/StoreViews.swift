import Dispatch
import FolioStorage
import Synchronization

/// What `folio serve` keeps of one open store between pages, so that a page of a large store costs its
/// window, not the store: the records in identifier order and in each order a page asked for, each
/// record's retained history, and the records that refer to each record.
///
/// Everything kept is of the store's state at one sequence; a page that finds the store at another
/// (another process wrote) starts afresh, except the history, which reads only the newer transactions.
/// Orders are made outside the lock, so that a long sort holds up no other page, and for each entity of
/// many records every single-column order is made ahead, on a background thread, once the store opens.
/// A page of such an entity asking for an order not kept selects its window instead of waiting.
final class StoreViews: RecordSource {
    let store: Store
    private let state = LockedState<State>(State())
    /// Whether a background thread is making orders ahead.
    private let isPreparing = Atomic<Bool>(false)
    /// Where the orders pages selected from are made, one at a time: a burst of pages asking for many
    /// orders holds one sort's memory at once, not one per order.
    private static let orderMaker = BackgroundWork(name: "folio.serve.orders")
    /// Where ``prepareAhead(schema:)`` makes the indexes and orders of stores just opened.
    private static let preparer = BackgroundWork(name: "folio.serve.ahead")
    /// How many orders are kept at most; the least recently used goes first.
    static let keptOrders = 64
    /// Entities with at least this many records get their single-column orders made ahead.
    static let preparedRecordCount = 20_000

    /// A kept order: the entities it selects and its sort keys.
    struct OrderKey: Hashable {
        var entities: [String]
        var keys: [RecordQuery.SortKey]
    }

    private struct State {
        /// The sequence what is kept below belongs to.
        var sequence: UInt64?
        var orders: [OrderKey: OrderedRecords] = [:]
        var lastUse: [OrderKey: UInt64] = [:]
        var uses: UInt64 = 0
        var incoming: IncomingReferences?
        var history = RecordHistoryIndex()
        /// The orders a thread is making now, each with the group it leaves when done.
        var beingMade: [OrderKey: DispatchGroup] = [:]
        /// The sequence orders were last made ahead for.
        var preparedSequence: UInt64?

        /// Drops what belongs to another sequence than `current`.
        mutating func align(to current: UInt64) {
            guard sequence != current else { return }
            sequence = current
            orders = [:]
            lastUse = [:]
            incoming = nil
        }
    }

    /// Tables of at least this many records whose order is not kept answer a page by selecting it
    /// (``OrderedRecords/window(of:among:by:positions:isDate:narrowingTo:)``), in time linear in the records, rather than
    /// wait for a sort; the order is made meanwhile on a background thread, for the pages after it.
    let selectionRecordCount: Int
    /// The widest window selected; a wider one (a whole table's CSV) waits for the order.
    static let selectedPositions = 10_000

    init(store: Store, selectionRecordCount: Int = StoreViews.preparedRecordCount) {
        self.store = store
        self.selectionRecordCount = selectionRecordCount
    }

    func window(
        of entities: [String], sortedBy keys: [RecordQuery.SortKey], positions: Range<Int>, isDate: @escaping (String) -> Bool,
        matching makeMatcher: (() -> (StoredRecord) -> Bool)?
    ) -> (records: [StoredRecord], count: Int) {
        func fromOrder() -> (records: [StoredRecord], count: Int) {
            records(of: entities, sortedBy: keys, isDate: isDate).window(positions, matching: makeMatcher)
        }
        guard !keys.isEmpty || makeMatcher != nil, positions.count <= Self.selectedPositions else { return fromOrder() }
        let sequence = store.lastSequence
        let baseKey = OrderKey(entities: entities, keys: [])
        let (kept, keptBase) = state.withLock { state -> (OrderedRecords?, [StoredRecord]?) in
            state.align(to: sequence)
            return (state.orders[OrderKey(entities: entities, keys: keys)], state.orders[baseKey]?.base)
        }
        let base = kept?.base ?? keptBase ?? OrderedRecords.base(of: entities, in: store)
        guard base.count >= selectionRecordCount else { return fromOrder() }
        if kept == nil, keptBase == nil { keep(OrderedRecords(base: base, order: nil), as: baseKey, at: sequence) }
        guard let makeMatcher else {
            if let kept { return kept.window(positions, matching: nil) }
            return selectWindow(of: base, entities: entities, keys: keys, positions: positions, isDate: isDate)
        }
        // The filters run over the records in identifier order, the order they lie in memory, not in a
        // sort's order, which would visit them at random, and on every core, each part with a test of
        // its own. Without a kept order, each part also reads the first sort key of the records it
        // keeps, for the selection, while they are in the cache.
        let keyRead = kept == nil ? keys.first : nil
        let candidatesIn = { (part: Range<Int>) -> (positions: [Int], keys: [UInt64]) in
            let matches = makeMatcher()
            let positions = part.filter { matches(base[$0]) }
            guard let key = keyRead else { return (positions, []) }
            return (positions, SortColumn.orderKeys(of: base, at: positions, field: key.field, isDate: isDate(key.field)))
        }
        let parts = (try? ParallelRuns.runs(count: base.count, candidatesIn)) ?? [candidatesIn(base.indices)]
        let candidates = Array(parts.map(\.positions).joined())
        if let kept = kept ?? (keys.isEmpty ? OrderedRecords(base: base, order: nil) : nil) {
            var keeps = [Bool](repeating: false, count: base.count)
            for position in candidates { keeps[position] = true }
            let order = kept.order
            return kept.window(positions, keeping: { keeps[order?[$0] ?? $0] })
        }
        let firstKeys = keyRead.map { _ in Array(parts.map(\.keys).joined()) }
        return selectWindow(of: base, among: candidates, firstKeys: firstKeys, entities: entities, keys: keys, positions: positions, isDate: isDate)
    }

    /// The window of `base` (or of its `candidates`) sorted by `keys`, selected, with the order made
    /// afterwards on the background queue; and how many records were sorted.
    private func selectWindow(
        of base: [StoredRecord], among candidates: [Int]? = nil, firstKeys: [UInt64]? = nil, entities: [String], keys: [RecordQuery.SortKey],
        positions: Range<Int>, isDate: @escaping (String) -> Bool
    ) -> (records: [StoredRecord], count: Int) {
        let window = OrderedRecords.window(of: base, among: candidates, by: keys, positions: positions, isDate: isDate, firstKeys: firstKeys)
        // After the selection, so that the sort does not compete with it for the cores.
        makeInBackground(entities: entities, keys: keys, dateFields: Set(keys.map(\.field).filter(isDate)))
        return (window, candidates?.count ?? base.count)
    }

    func records(of entities: [String], sortedBy keys: [RecordQuery.SortKey], isDate: @escaping (String) -> Bool) -> OrderedRecords {
        let sequence = store.lastSequence
        let key = OrderKey(entities: entities, keys: keys)
        enum Found {
            case kept(OrderedRecords)
            case beingMade(DispatchGroup)
            case toMake(DispatchGroup, base: [StoredRecord]?, ascending: OrderedRecords?)
        }
        let found = state.withLock { state -> Found in
            state.align(to: sequence)
            if let kept = state.orders[key] {
                state.uses += 1
                state.lastUse[key] = state.uses
                return .kept(kept)
            }
            if let making = state.beingMade[key] { return .beingMade(making) }
            let making = DispatchGroup()
            making.enter()
            state.beingMade[key] = making
            let base = state.orders[OrderKey(entities: entities, keys: [])]?.base
            let ascending =
                keys.count == 1 && keys[0].descending
                ? state.orders[OrderKey(entities: entities, keys: [RecordQuery.SortKey(field: keys[0].field, descending: false)])] : nil
            return .toMake(making, base: base, ascending: ascending)
        }
        let (making, base, ascending): (DispatchGroup, [StoredRecord]?, OrderedRecords?)
        switch found {
        case .kept(let kept): return kept
        case .beingMade(let other):
            // Another page or the background thread is making this order: wait for it, then look again.
            other.wait()
            return records(of: entities, sortedBy: keys, isDate: isDate)
        case .toMake(let group, let foundBase, let foundAscending): (making, base, ascending) = (group, foundBase, foundAscending)
        }
        defer {
            state.withLock { $0.beingMade[key] = nil }
            making.leave()
        }
        let records = base ?? OrderedRecords.base(of: entities, in: store)
        let ordered: OrderedRecords
        if let ascending, let field = keys.first?.field {
            ordered = OrderedRecords.descending(ascending, values: SortColumn(of: records, field: field, isDate: isDate(field)))
        } else {
            ordered = OrderedRecords.sorted(records, by: keys, isDate: isDate)
        }
        keep(ordered, as: key, at: sequence)
        if base == nil, !keys.isEmpty { keep(OrderedRecords(base: records, order: nil), as: OrderKey(entities: entities, keys: []), at: sequence) }
        return ordered
    }

    /// Makes an order on a background thread for the pages after this one, unless a page or
    /// ``prepareAhead(schema:)`` is making it (or it is kept by the time its turn comes).
    private func makeInBackground(entities: [String], keys: [RecordQuery.SortKey], dateFields: Set<String>) {
        let key = OrderKey(entities: entities, keys: keys)
        guard state.withLock({ $0.beingMade[key] == nil }) else { return }
        Self.orderMaker.submit { [self] in
            _ = records(of: entities, sortedBy: keys, isDate: { dateFields.contains($0) })
        }
    }

    /// Keeps `ordered` if the store is still at `sequence`, dropping the least recently used beyond
    /// ``keptOrders``.
    private func keep(_ ordered: OrderedRecords, as key: OrderKey, at sequence: UInt64) {
        state.withLock { state in
            state.align(to: store.lastSequence)
            guard state.sequence == sequence else { return }
            state.uses += 1
            state.orders[key] = ordered
            state.lastUse[key] = state.uses
            if state.orders.count > Self.keptOrders, let oldest = state.lastUse.min(by: { $0.value < $1.value })?.key {
                state.orders[oldest] = nil
                state.lastUse[oldest] = nil
            }
        }
    }

    /// The retained transactions, oldest first, and each record's history in them.
    func history() throws -> RecordHistoryIndex {
        try state.withLock { state in
            try state.history.update(from: store)
            return state.history
        }
    }

    /// The records whose relationships name each record (see ``IncomingReferences``).
    func incoming(schema: SchemaInfo) -> IncomingReferences {
        let sequence = store.lastSequence
        if let kept = state.withLock({ state -> IncomingReferences? in
            state.align(to: sequence)
            return state.incoming
        }) {
            return kept
        }
        let made = IncomingReferences(store: store, schema: schema)
        state.withLock { state in
            state.align(to: store.lastSequence)
            if state.sequence == sequence { state.incoming = made }
        }
        return made
    }

    /// Makes, on a background thread, the history and reference indexes and the ascending and
    /// descending order of every column of each entity with at least ``preparedRecordCount`` records
    /// (with its subentities, as a table shows it), unless a thread is at it already. It stops when
    /// the store moves on.
    func prepareAhead(schema: SchemaInfo?) {
        let sequence = store.lastSequence
        guard
            state.withLock({ state in
                defer { state.preparedSequence = sequence }
                return state.preparedSequence != sequence
            })
        else { return }
        guard isPreparing.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else { return }
        Self.preparer.submit { [self] in
            defer { isPreparing.store(false, ordering: .releasing) }
            _ = try? history()
            if let schema { _ = incoming(schema: schema) }
            for entity in RecordQuery.knownEntities(of: store, schema: schema) {
                var query = RecordQuery(entity: entity)
                query.limit = 0
                guard let table = try? query.run(on: store, schema: schema, source: self), table.matched >= Self.preparedRecordCount else { continue }
                for field in table.fieldNames {
                    for descending in [false, true] {
                        guard store.lastSequence == sequence else { return }
                        query.sortKeys = [RecordQuery.SortKey(field: field, descending: descending)]
                        _ = try? query.run(on: store, schema: schema, source: self)
                    }
                }
            }
        }
    }
}
