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
    private let fieldIndexes: [String: [FieldIndex]]
    /// Column tables made by scans, dropped when their entity changes.
    private var columnTables: [String: ColumnTable] = [:]

    init(schema: Schema) {
        var fields: [String: [FieldIndex]] = [:]
        for entity in schema.entities {
            var names = Set(entity.indices.compactMap(\.first))
            names.formUnion(entity.uniquenessConstraints.compactMap(\.first))
            let unique = Set(entity.uniquenessConstraints.filter { $0.count == 1 }.compactMap(\.first))
            let declared = Set(entity.indices.compactMap(\.first))
            fields[entity.name] = names.filter { !$0.contains(".") }.sorted().map {
                FieldIndex(field: $0, conversion: FieldTypes.conversion(of: entity, $0), isUnique: unique.contains($0),
                           isDeclared: declared.contains($0))
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
            for index in fieldIndexes[entity] ?? [] where index.isUnique { index.reserveCapacity(count) }
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
    /// When the entities hold most of the records, this walks the table itself, in number order, which
    /// is several times faster than looking each identifier up.
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
        let table = ColumnTable(ids: ids, values: values)
        columnTables[entity] = table
        return table
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

/// The index on one field of one entity: a hash table from key to identifiers, and the same pairs in
/// key order, rebuilt lazily after changes.
final class FieldIndex {
    let field: String
    let conversion: QueryKey.Conversion
    /// Whether the field is unique (`.unique` or a one-field `#Unique`): about one key per record.
    let isUnique: Bool
    /// Whether the model declares `#Index` on the field (otherwise it is indexed for uniqueness only).
    let isDeclared: Bool
    private var identifiersByKey: [HashedKey: Identifiers] = [:]
    private var sorted: [(key: QueryKey, id: Int64)] = []
    private var isSortedStale = true

    /// The identifiers with one key. Most keys of a unique or selective field have one record, which
    /// needs no set of its own.
    enum Identifiers {
        case one(Int64)
        case many(IdentifierList)
    }

    init(field: String, conversion: QueryKey.Conversion, isUnique: Bool, isDeclared: Bool) {
        self.field = field
        self.conversion = conversion
        self.isUnique = isUnique
        self.isDeclared = isDeclared
    }

    /// Makes room for `additionalKeys` more keys.
    func reserveCapacity(_ additionalKeys: Int) {
        identifiersByKey.reserveCapacity(identifiersByKey.count + additionalKeys)
    }

    /// The number of distinct keys.
    var keyCount: Int { identifiersByKey.count }

    /// How many keys the table holds before it must grow.
    var keyCapacity: Int { identifiersByKey.capacity }

    /// Sizes the table for `total` records from the keys the first `sampled` of them gave, when at
    /// least half of those records had a key of their own: a nearly unique field (a date, a name) then
    /// gets its table once, instead of growing it by doubling, which allocates and fills every smaller
    /// table on the way. A field with fewer distinct values (a city, a category) is left to grow: its
    /// keys stop multiplying long before its records do.
    func reserveCapacity(forRecords total: Int, afterSampling sampled: Int) {
        let keys = identifiersByKey.count
        guard sampled > 0, total > sampled, keys * 2 >= sampled else { return }
        identifiersByKey.reserveCapacity(Int((Double(keys) * Double(total) / Double(sampled)).rounded(.up)))
    }

    func removeAll() {
        identifiersByKey = [:]
        sorted = []
        isSortedStale = true
    }

    func insert(_ id: Int64, _ values: RecordValues) {
        // One hash lookup: the entry is changed in place through the dictionary's accessor.
        Self.add(id, to: &identifiersByKey[HashedKey(QueryKey(values[field], conversion))])
        isSortedStale = true
    }

    /// A key with its hash worked out once. The table compares the hashes before the keys, so a probe
    /// that passes another key does not read that key's string (stored elsewhere in memory: a cache miss
    /// per probe in a table of millions), and growing the table rehashes an integer, not every string.
    struct HashedKey: Hashable {
        let key: QueryKey
        let hash: Int

        init(_ key: QueryKey) {
            self.key = key
            self.hash = key.hashValue
        }

        static func == (lhs: HashedKey, rhs: HashedKey) -> Bool {
            lhs.hash == rhs.hash && lhs.key == rhs.key
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(hash)
        }

        /// The table's hash of the key: the key's own hash, worked out once, mixed with the table's seed.
        ///
        /// Without this, each probe and each move while the table grows runs the standard hasher (SipHash)
        /// over the integer again, which is most of what building a large index costs. The stored hash
        /// already comes from the standard hasher (seeded per process); the mix below is a bijection of
        /// `hash ^ seed`, so tables with different seeds still order their keys differently, as the
        /// standard library's tables rely on.
        func _rawHashValue(seed: Int) -> Int {
            var mixed = UInt64(truncatingIfNeeded: hash ^ seed)
            mixed ^= mixed >> 33
            mixed &*= 0xff51_afd7_ed55_8ccd
            mixed ^= mixed >> 33
            mixed &*= 0xc4ce_b9fe_1a85_ec53
            mixed ^= mixed >> 33
            return Int(truncatingIfNeeded: mixed)
        }
    }

    private static func add(_ id: Int64, to slot: inout Identifiers?) {
        switch slot {
        case nil: slot = .one(id)
        case .one(let existing)?: if existing != id { slot = .many([existing, id]) }
        case .many(var ids)?:
            slot = nil  // keeps the list uniquely referenced while it grows
            ids.insert(id)
            slot = .many(ids)
        }
    }

    func remove(_ id: Int64, _ values: RecordValues) {
        Self.remove(id, from: &identifiersByKey[HashedKey(QueryKey(values[field], conversion))])
        isSortedStale = true
    }

    private static func remove(_ id: Int64, from slot: inout Identifiers?) {
        switch slot {
        case nil: break
        case .one(let existing)?: if existing == id { slot = nil }
        case .many(var ids)?:
            slot = nil  // keeps the list uniquely referenced while it shrinks
            ids.remove(id)
            if ids.count == 1, let last = ids.first {
                slot = .one(last)
            } else if !ids.isEmpty {
                slot = .many(ids)
            }
        }
    }

    /// The identifiers of the records whose value is `key`, in increasing order.
    func lookup(_ key: QueryKey) -> IdentifierList {
        switch identifiersByKey[HashedKey(key)] {
        case nil: return []
        case .one(let id)?: return [id]
        case .many(let ids)?: return ids
        }
    }

    /// For each key: one of its records and how many there are.
    func keyCounts() -> [(id: Int64, count: Int)] {
        identifiersByKey.values.compactMap { identifiers in
            switch identifiers {
            case .one(let id): return (id, 1)
            case .many(let ids): return ids.first.map { ($0, ids.count) }
            }
        }
    }

    func sortedEntries() -> [(key: QueryKey, id: Int64)] {
        if isSortedStale {
            // Sort the distinct keys, then each key's identifiers: cheaper than sorting every pair when
            // keys repeat, and the same when they do not.
            var entries: [(key: QueryKey, id: Int64)] = []
            entries.reserveCapacity(sorted.count)
            for (hashed, ids) in identifiersByKey.sorted(by: { $0.key.key < $1.key.key }) {
                switch ids {
                case .one(let id): entries.append((hashed.key, id))
                case .many(let ids): for id in ids { entries.append((hashed.key, id)) }
                }
            }
            sorted = entries
            isSortedStale = false
        }
        return sorted
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
