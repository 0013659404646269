@_spi(FolioEngine) import FolioStorage

/// The container's in-memory index over the store's records: records by identifier and by entity,
/// hash indexes for equality and sorted indexes for ranges and ordering on the properties named by
/// `#Index`, `#Unique` and `.unique`.
///
/// The index is kept in step with the store by applying each committed journal transaction, whether
/// it came from this process or, through a refresh, from another one. Record values are shared with the
/// storage engine (``RecordValues`` are copy-on-write), so the index costs its tables, not a second copy
/// of the data.
final class RecordIndex {
    /// A record as the index keeps it.
    struct Entry {
        var entity: String
        var values: RecordValues
        /// The sequence number of the transaction that last wrote the record (0: loaded from the store).
        var version: UInt64
    }

    private(set) var records = DenseTable<Entry>()
    private(set) var idsByEntity: [String: IdentifierList] = [:]
    private(set) var lastSequence: UInt64 = 0
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
        // The field indexes read back the keys they do not store from this index's records.
        let valuesOf: (Int64) -> RecordValues? = { [unowned self] id in self.records[id]?.values }
        var fields: [String: [FieldIndex]] = [:]
        for entity in schema.entities {
            var names = indexingDeclaredIndices ? Set(entity.indices.compactMap(\.first)) : []
            names.formUnion(entity.uniquenessConstraints.compactMap(\.first))
            let unique = Set(entity.uniquenessConstraints.filter { $0.count == 1 }.compactMap(\.first))
            let declared = indexingDeclaredIndices ? Set(entity.indices.compactMap(\.first)) : []
            fields[entity.name] = names.filter { !$0.contains(".") }.sorted().map {
                FieldIndex(field: $0, conversion: FieldTypes.conversion(of: entity, $0), isUnique: unique.contains($0),
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

    /// Where an entry holds the reference to its values' storage (-1 if the layout does not say).
    private static let valuesStorageOffset: Int = {
        guard let values = MemoryLayout<Entry>.offset(of: \Entry.values),
              let storage = MemoryLayout<RecordValues>.offset(of: \RecordValues.values) else { return -1 }
        return values + storage
    }()

    /// Starts bringing the entries of `ids` and their values' storage into the cache, ahead of a loop
    /// that makes models of them (see ``DenseTable/touch(_:referenceAt:)``); returns what to keep so
    /// that the reads stay.
    func touchValues(of ids: some Sequence<Int64>) -> UInt {
        records.touch(ids, referenceAt: Self.valuesStorageOffset)
    }

    /// The version of a record: the sequence of the transaction that last wrote it (0 if loaded).
    func version(of id: Int64) -> UInt64? {
        records[id]?.version
    }

    /// Replaces the whole index with the store's current records.
    func reload(from store: Store) {
        columnTables = [:]
        records.removeAll()
        idsByEntity = [:]
        for indexes in fieldIndexes.values {
            for index in indexes { index.removeAll() }
        }
        lastSequence = 0
        load(from: store)
    }

    /// How many records of an entity are loaded before its indexes that are not unique are sized for
    /// the rest (see ``FieldIndex/reserveCapacity(forRecords:afterSampling:)``).
    static let indexSizingSample = 4_096

    /// Loads every record of the store.
    func load(from store: Store) {
        columnTables = [:]
        // Sizing the tables once avoids rehashing them again and again while a large store loads.
        records.reserveCapacity(store.recordCount)
        var counts: [String: Int] = [:]
        for entity in store.entityNames {
            let count = store.count(of: entity)
            counts[entity] = count
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
        store.forEachRecord { id, entity, values in
            records[id] = Entry(entity: entity, values: values, version: 0)
            if run?.entity != entity {
                endRun()
                run = (entity, idsByEntity.removeValue(forKey: entity) ?? [], fieldIndexes[entity] ?? [])
            }
            run?.ids.insert(id)
            for index in run?.indexes ?? [] { index.insert(id, values) }
            if run?.ids.count == Self.indexSizingSample, let indexes = run?.indexes {
                for index in indexes where !index.isUnique {
                    index.reserveCapacity(forRecords: counts[entity] ?? 0, afterSampling: Self.indexSizingSample)
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
        lastSequence = store.lastSequence
    }

    /// Applies a committed transaction.
    func apply(_ transaction: JournalTransaction) {
        guard transaction.sequence > lastSequence else { return }
        if !columnTables.isEmpty {
            for entity in transaction.entities { columnTables[entity] = nil }
        }
        // Inserted records come in runs of one entity: its identifier set and indexes are looked up once
        // per run, not per record.
        var run: (entity: String, ids: IdentifierList, indexes: [FieldIndex])?
        func endRun() {
            if let finished = run { idsByEntity[finished.entity] = finished.ids }
            run = nil
        }
        records.reserveCapacity(transaction.inserted.count)
        for record in transaction.inserted {
            records[record.id] = Entry(entity: record.entity, values: record.values, version: transaction.sequence)
            if run?.entity != record.entity {
                endRun()
                run = (record.entity, idsByEntity.removeValue(forKey: record.entity) ?? [], fieldIndexes[record.entity] ?? [])
            }
            run?.ids.insert(record.id)
            for index in run?.indexes ?? [] { index.insert(record.id, record.values) }
        }
        endRun()
        for change in transaction.updated {
            guard var entry = records[change.id] else { continue }
            // Only the indexes of fields the change sets move.
            let indexes = (fieldIndexes[entry.entity] ?? []).filter { change.values[$0.field] != nil }
            for index in indexes { index.remove(change.id, entry.values) }
            entry.values = entry.values.merging(change.values)
            entry.version = transaction.sequence
            records[change.id] = entry
            for index in indexes { index.insert(change.id, entry.values) }
        }
        for deletion in transaction.deleted {
            guard let entry = records.removeValue(forKey: deletion.id) else { continue }
            idsByEntity[entry.entity]?.remove(deletion.id)
            for index in fieldIndexes[entry.entity] ?? [] { index.remove(deletion.id, entry.values) }
        }
        lastSequence = transaction.sequence
    }

    /// Calls `body` with every record of `entities`, in no particular order.
    ///
    /// When the entities hold most of the records, this walks the table itself, in number order,
    /// instead of hashing each identifier.
    func forEachRecord(of entities: Set<String>, _ body: (Int64, String, RecordValues) throws -> Void) rethrows {
        let wanted = entities.reduce(0) { $0 + (idsByEntity[$1]?.count ?? 0) }
        if wanted * 2 >= records.count {
            if entities.count == 1, let only = entities.first {
                try records.forEachInNumberOrder { id, entry in
                    if entry.entity == only { try body(id, entry.entity, entry.values) }
                }
            } else {
                try records.forEachInNumberOrder { id, entry in
                    if entities.contains(entry.entity) { try body(id, entry.entity, entry.values) }
                }
            }
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
    func sortedEntries(_ entity: String, _ field: String) -> [(key: QueryKey, id: Int64)]? {
        fieldIndex(entity, field)?.sortedEntries()
    }
}

/// How a field's stored values are compared, from the schema.
enum FieldTypes {
    static func conversion(of entity: Schema.Entity, _ name: String) -> QueryKey.Conversion {
        guard let attribute = entity.attributesByName[name] else { return .plain }
        return isDate(attribute.valueType) ? .date : .plain
    }

    static func isDate(_ type: any Any.Type) -> Bool {
        type == Date.self || type == Date?.self
    }
}
