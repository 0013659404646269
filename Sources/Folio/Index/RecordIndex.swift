@_spi(FolioEngine) import FolioStorage

/// The container's in-memory index over the store's records: records by entity, hash indexes for
/// equality and sorted indexes for ranges and ordering on the properties named by `#Index`, `#Unique`
/// and `.unique`.
///
/// The records themselves are the store's: the index holds one version of the store's table
/// (``StoreRecords``, immutable) and describes exactly that version. It moves to a newer version with
/// the transactions between the two (``advance(to:applying:)``): each record they touch is taken out of
/// the indexes with its values in the old version and put back with its values in the new one. So
/// there is no second table to keep in step, and nothing can go out of step: the indexes always
/// describe the records they read.
// Unchecked: it changes in place; only the container lock's holder, or a ConcurrentIndexApplication it waits for, uses it.
final class RecordIndex: @unchecked Sendable {
    /// The version of the store's records the indexes describe.
    private(set) var records = StoreRecords()
    private(set) var idsByEntity: [String: IdentifierList] = [:]
    /// The sequence of the last transaction in ``records``.
    var lastSequence: UInt64 { records.lastSequence }
    /// The indexed fields of each entity.
    private var fieldIndexes: [String: [FieldIndex]] = [:]
    /// Column tables made by scans, dropped when their entity changes.
    private var columnTables: [String: ColumnTable] = [:]
    /// What records written before an attribute existed read for it.
    let storedDefaults: StoredDefaults

    /// An index for `schema`'s records. Without `indexingDeclaredIndices`, only the uniqueness
    /// constraints get field indexes (a migration's staging copy: its `#Index`es would only speed up
    /// queries, which scan instead).
    init(schema: Schema, indexingDeclaredIndices: Bool = true) {
        let storedDefaults = StoredDefaults(schema: schema)
        self.storedDefaults = storedDefaults
        // The field indexes read back the keys they do not store from the version of the records the
        // index describes (see `advance(to:applying:)` for why that rule holds while it moves).
        let valuesOf: (Int64) -> RecordValues? = { [unowned self] id in self.records.values(of: id) }
        var fields: [String: [FieldIndex]] = [:]
        for entity in schema.entities {
            var names = indexingDeclaredIndices ? Set(entity.indices.compactMap(\.first)) : []
            names.formUnion(entity.uniquenessConstraints.compactMap(\.first))
            let unique = Set(entity.uniquenessConstraints.filter { $0.count == 1 }.compactMap(\.first))
            let declared = indexingDeclaredIndices ? Set(entity.indices.compactMap(\.first)) : []
            fields[entity.name] = names.filter { !$0.contains(".") }.sorted().map {
                FieldIndex(
                    field: $0, conversion: FieldTypes.conversion(of: entity, $0), isUnique: unique.contains($0),
                    isDeclared: declared.contains($0), missing: storedDefaults.value(of: $0, in: entity.name),
                    valuesOf: valuesOf)
            }
        }
        self.fieldIndexes = fields
    }

    /// Whether `field` of `entity` has an index.
    func isIndexed(_ entity: String, _ field: String) -> Bool {
        fieldIndex(entity, field) != nil
    }

    /// The index on `field` of `entity`, if it has one.
    func fieldIndex(_ entity: String, _ field: String) -> FieldIndex? {
        fieldIndexes[entity]?.first { $0.field == field }
    }

    /// Starts bringing the entries of `ids` and their values' storage into the cache, ahead of a loop
    /// that makes models of them (see ``StoreRecords/touchValues(of:)``); returns what to keep so that
    /// the reads stay.
    func touchValues(of ids: ArraySlice<Int64>) -> UInt {
        records.touchValues(of: ids)
    }

    /// The version of a record: the sequence of the transaction that last wrote it (0 if read from a
    /// snapshot).
    func version(of id: Int64) -> UInt64? {
        records[id]?.version
    }

    /// Describes `version` from scratch, forgetting what the index described before: for a version that
    /// no known list of transactions leads to (the first load, or a store whose history between the two
    /// was compacted away, or a migration, which changes every record of its entities).
    func rebuild(from version: StoreRecords) {
        columnTables = [:]
        records = StoreRecords()
        idsByEntity = [:]
        for indexes in fieldIndexes.values {
            for index in indexes { index.removeAll() }
        }
        load(version)
    }

    /// Whether the index needs none of its records' old values to take in `records` once written: they
    /// only update records, and set no indexed field. (Then ``advance(to:applying:)`` touches no
    /// record, and the index can let go of its version during the write, see ``lendRecords()``.)
    func needsNoOldValues(for records: SaveRecords) -> Bool {
        guard records.inserts.isEmpty, records.deletes.isEmpty else { return false }
        var moves = UpdateIndexMoves(fieldIndexes: fieldIndexes)
        return !records.updates.contains { moves.check($0) }
    }

    /// Lets go of the version of the store's records the index describes, keeping its sequence, so that
    /// a write applied to the store's table meanwhile changes it in place instead of copying every part
    /// this version shares with it. Until ``advance(to:applying:)`` brings the index to the written
    /// version (with transactions ``needsNoOldValues(for:)`` accepts) or ``rebuild(from:)`` rebuilds it,
    /// nothing may read the index: the caller holds the container's lock for the whole write.
    func lendRecords() {
        records = StoreRecords(standingAt: records.lastSequence)
    }

    /// Describes `current` again after ``lendRecords()`` when the write did not end as the lending
    /// expected (it failed, wrote nothing, or came after other processes' transactions): takes it back
    /// as it is if it is the lent version, and rebuilds the indexes for it otherwise.
    func takeBackRecords(_ current: StoreRecords) {
        if current.lastSequence == records.lastSequence {
            records = current
        } else {
            rebuild(from: current)
        }
    }

    /// How many records of an entity are loaded before its indexes that are not unique are sized for
    /// the rest (see ``FieldIndex/reserveCapacity(forRecords:afterSampling:)``).
    static let indexSizingSample = 4_096

    /// Indexes every record of `version`, into an empty index.
    func load(_ version: StoreRecords) {
        columnTables = [:]
        records = version
        // Each entity's number of records, for sizing its tables once instead of growing them step by step.
        let counts = version.recordCounts
        for (entity, count) in counts {
            idsByEntity[entity, default: []].reserveCapacity(count)
            for index in fieldIndexes[entity] ?? [] {
                if index.isUnique { index.reserveCapacity(count) }
                index.beginLoading(expectedRecords: count)
            }
        }
        // Records come in number order, mostly in runs of one entity: its identifier set and indexes
        // are looked up once per run, not per record. Once the entity's set holds its first
        // ``indexSizingSample`` records, its other indexes are sized for the rest.
        var run: (entity: String, ids: IdentifierList, indexes: [FieldIndex])?
        func endRun() {
            if let finished = run { idsByEntity[finished.entity] = finished.ids }
            run = nil
        }
        version.forEachInNumberOrder { id, entry in
            if run?.entity != entry.entity {
                endRun()
                run = (entry.entity, idsByEntity.removeValue(forKey: entry.entity) ?? [], fieldIndexes[entry.entity] ?? [])
            }
            run?.ids.insert(id)
            for index in run?.indexes ?? [] { index.insert(id, entry.values) }
            if run?.ids.count == Self.indexSizingSample, let indexes = run?.indexes {
                for index in indexes where !index.isUnique {
                    index.reserveCapacity(forRecords: counts[entry.entity] ?? 0, afterSampling: Self.indexSizingSample)
                }
            }
        }
        endRun()
        // A `#Index` is there to be used for ranges and sorting: order it now, as a database builds its
        // index when it is created, rather than in the first fetch that needs it.
        // (That also ends what each index kept of the load for it, see `FieldIndex.beginLoading`.)
        for indexes in fieldIndexes.values {
            for index in indexes where index.isDeclared { _ = index.sortedEntries() }
        }
    }

    /// Moves the index to `version`, which `transactions` (the ones after ``lastSequence``, in order, up
    /// to the version's last, none of them a migration) lead to from the version it describes.
    ///
    /// It works in two passes, which keep the field indexes' rule (every record in a table is indexed
    /// under the values of the version the index reads): first every record the transactions touch
    /// leaves the indexes whose key it changes, under its old values, while the index still reads the
    /// old version; then the index reads the new version and those records enter again, under their
    /// new values.
    func advance(to version: StoreRecords, applying transactions: [JournalTransaction]) {
        guard version.lastSequence > lastSequence else { return }
        var touched: [Int64] = []
        var touchedEntities = Set<String>()
        var movesIndexes = UpdateIndexMoves(fieldIndexes: fieldIndexes)
        for transaction in transactions where transaction.sequence > lastSequence {
            touched.reserveCapacity(touched.count + transaction.changedRecordCount)
            for record in transaction.inserted { touched.append(record.id) }
            for change in transaction.updated where movesIndexes.check(change) { touched.append(change.id) }
            for deletion in transaction.deleted { touched.append(deletion.id) }
            touchedEntities.formUnion(transaction.entities)
        }
        if transactions.count > 1 || !(transactions.first.map { Self.touchesEachRecordOnce($0) } ?? true) {
            touched = Array(Set(touched)).sorted()
        }
        if !columnTables.isEmpty {
            for entity in touchedEntities { columnTables[entity] = nil }
        }
        let old = records
        // Which indexes of a touched record move: those whose key differs between the versions, all of
        // them when the record is only in one version or changed entity.
        func moving(
            _ id: Int64, _ before: StoreRecords.Entry?, _ after: StoreRecords.Entry?,
            of entry: StoreRecords.Entry
        ) -> [FieldIndex] {
            let indexes = fieldIndexes[entry.entity] ?? []
            guard let before, let after, before.entity == after.entity else { return indexes }
            return indexes.filter { !before.values.hasEqualValue(for: $0.field, in: after.values) }
        }
        for id in touched {
            guard let before = old[id] else { continue }
            let after = version[id]
            for index in moving(id, before, after, of: before) { index.remove(id, before.values) }
            if after?.entity != before.entity { idsByEntity[before.entity]?.remove(id) }
        }
        records = version
        // Inserted records come in runs of one entity: its identifier set is looked up once per run.
        var run: (entity: String, ids: IdentifierList)?
        func endRun() {
            if let finished = run { idsByEntity[finished.entity] = finished.ids }
            run = nil
        }
        for id in touched {
            guard let after = version[id] else { continue }
            let before = old[id]
            for index in moving(id, before, after, of: after) { index.insert(id, after.values) }
            guard before?.entity != after.entity else { continue }
            if run?.entity != after.entity {
                endRun()
                run = (after.entity, idsByEntity.removeValue(forKey: after.entity) ?? [])
            }
            run?.ids.insert(id)
        }
        endRun()
    }

    /// Whether a transaction names each record once, in increasing order within each of its lists, as
    /// a save writes it; otherwise the touched records are sorted and counted once.
    private static func touchesEachRecordOnce(_ transaction: JournalTransaction) -> Bool {
        let lists = [transaction.inserted.isEmpty, transaction.updated.isEmpty, transaction.deleted.isEmpty]
        guard lists.filter({ !$0 }).count <= 1 else { return false }
        func increasing(_ ids: some Collection<Int64>) -> Bool { zip(ids, ids.dropFirst()).allSatisfy { $0 < $1 } }
        return increasing(transaction.inserted.lazy.map(\.id)) && increasing(transaction.updated.lazy.map(\.id))
            && increasing(transaction.deleted.lazy.map(\.id))
    }

    /// Calls `body` with every record of `entities`, in no particular order.
    ///
    /// When the entities hold most of the records, this walks the table itself, in number order,
    /// instead of hashing each identifier.
    func forEachRecord(of entities: Set<String>, _ body: (Int64, String, RecordValues) throws -> Void) rethrows {
        let wanted = entities.reduce(0) { $0 + (idsByEntity[$1]?.count ?? 0) }
        if wanted * 2 >= records.count {
            try records.forEachInNumberOrder(of: entities, body)
        } else {
            for entity in entities {
                for id in idsByEntity[entity] ?? [] {
                    if let entry = records[id] { try body(id, entry.entity, entry.values) }
                }
            }
        }
    }

    /// The identifiers of the records of `entities`, in increasing order.
    ///
    /// They come from the entities' identifier lists, without touching a record: reading each record's
    /// entry would also reach its values' memory, a cache miss per record of a large store.
    func identifiers(of entities: Set<String>) -> [Int64] {
        var ids: [Int64] = []
        for entity in entities {
            guard let list = idsByEntity[entity], list.count > 0 else { continue }
            ids = ids.isEmpty ? list.identifiers : .mergingSorted(ids, list)
        }
        return ids
    }

    /// The records of `entity` laid out by column, made on first use after a change.
    func columnTable(for entity: String) -> ColumnTable {
        if let table = columnTables[entity] { return table }
        var ids: [Int64] = []
        var values: [RecordValues] = []
        ids.reserveCapacity(idsByEntity[entity]?.count ?? 0)
        values.reserveCapacity(idsByEntity[entity]?.count ?? 0)
        forEachRecord(of: [entity]) { id, _, recordValues in
            ids.append(id)
            values.append(recordValues)
        }
        let table = ColumnTable(ids: ids, values: values, defaults: storedDefaults.values(of: entity))
        columnTables[entity] = table
        return table
    }

    /// The stored value of `field` in record `id`, or the field's stored default when the record has none.
    func storedValue(of field: String, record id: Int64) -> JSONValue? {
        guard let entry = records[id] else { return nil }
        return entry.values[field] ?? storedDefaults.value(of: field, in: entry.entity)
    }

    /// The identifiers of `entity` records whose `field` equals `key`, or nil without an index.
    func lookup(_ entity: String, _ field: String, equalTo key: QueryKey) -> IdentifierList? {
        guard let index = fieldIndex(entity, field) else { return nil }
        return index.lookup(key)
    }

    /// For each distinct value of `entity`'s indexed `field`: one record that has it and how many do,
    /// or nil without an index.
    func keyCounts(_ entity: String, _ field: String) -> [(id: Int64, count: Int)]? {
        fieldIndex(entity, field)?.keyCounts()
    }

    /// The entries of `entity`'s sorted index on `field`, in ascending key order, or nil without an index.
    func sortedEntries(_ entity: String, _ field: String) -> SortedPairs? {
        fieldIndex(entity, field)?.sortedEntries()
    }
}

/// How a field's stored values are compared, from the schema.
enum FieldTypes {
    static func conversion(of entity: Schema.Entity, _ name: String) -> QueryKey.Conversion {
        guard let attribute = entity.attributesByName[name] else { return .plain }
        if isDate(attribute.valueType) { return .date }
        return FieldConversion.of(attribute.valueType) == .floating ? .floating : .plain
    }

    static func isDate(_ type: any Any.Type) -> Bool {
        type == Date.self || type == Date?.self
    }
}

/// Whether an update can move a record in the field indexes: only if it sets an indexed field. An update
/// keeps its record's entity, so one that sets none of them leaves every index and identifier set as it
/// is, and ``RecordIndex/advance(to:applying:)`` passes over it. Updates come in runs of one layout:
/// a run is checked once.
private struct UpdateIndexMoves {
    let fieldIndexes: [String: [FieldIndex]]
    private var last: (layout: ObjectIdentifier, entity: String, moves: Bool)?

    init(fieldIndexes: [String: [FieldIndex]]) {
        self.fieldIndexes = fieldIndexes
    }

    mutating func check(_ change: StoredRecord) -> Bool {
        let layout = ObjectIdentifier(change.values.layout)
        if let last, last.layout == layout, last.entity == change.entity { return last.moves }
        let indexes = fieldIndexes[change.entity] ?? []
        let moves = indexes.contains { change.values.layout.slot(of: $0.field) != nil }
        last = (layout, change.entity, moves)
        return moves
    }
}
