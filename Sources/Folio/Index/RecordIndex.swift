import FolioStorage

/// The container's in-memory index over the store's records: records by identifier and by entity,
/// hash indexes for equality and sorted indexes for ranges and ordering on the properties named by
/// `#Index`, `#Unique` and `.unique`.
///
/// The index is kept in step with the store by applying each committed journal transaction, whether
/// it came from this process or, through a refresh, from another one.
final class RecordIndex {
    private(set) var records: [Int64: StoredRecord] = [:]
    private(set) var idsByEntity: [String: Set<Int64>] = [:]
    private(set) var lastSequence: UInt64 = 0
    /// The sequence number of the transaction that last wrote each record.
    private(set) var versions: [Int64: UInt64] = [:]
    /// The indexed fields of each entity, with the key conversion of each.
    private let indexedFields: [String: [String: QueryKey.Conversion]]
    private var hashIndexes: [String: [String: [QueryKey: Set<Int64>]]] = [:]
    private var sortedIndexes: [String: [String: SortedIndex]] = [:]

    /// An index of (key, identifier) pairs in key order, rebuilt lazily after many changes.
    struct SortedIndex {
        var entries: [(key: QueryKey, id: Int64)] = []
        var isStale = true
    }

    init(schema: Schema) {
        var fields: [String: [String: QueryKey.Conversion]] = [:]
        for entity in schema.entities {
            var names = Set(entity.indices.compactMap(\.first))
            names.formUnion(entity.uniquenessConstraints.compactMap(\.first))
            var conversions: [String: QueryKey.Conversion] = [:]
            for name in names where !name.contains(".") {
                conversions[name] = FieldTypes.conversion(of: entity, name)
            }
            fields[entity.name] = conversions
        }
        self.indexedFields = fields
    }

    /// Whether `field` of `entity` has an index.
    func isIndexed(_ entity: String, _ field: String) -> Bool {
        indexedFields[entity]?[field] != nil
    }

    /// Replaces the whole index with the store's current records.
    func reload(from store: Store) {
        records = [:]
        idsByEntity = [:]
        versions = [:]
        hashIndexes = [:]
        sortedIndexes = [:]
        lastSequence = 0
        load(from: store)
    }

    /// Loads every record of the store.
    func load(from store: Store) {
        let entities = store.entityNames
        // Sizing the tables once avoids rehashing them again and again while a large store loads.
        records.reserveCapacity(records.count + entities.reduce(0) { $0 + store.count(of: $1) })
        for entity in entities {
            let entityRecords = store.records(of: entity)
            idsByEntity[entity, default: []].reserveCapacity(entityRecords.count)
            for record in entityRecords { add(record) }
        }
        lastSequence = store.lastSequence
    }

    /// Applies a committed transaction.
    func apply(_ transaction: JournalTransaction) {
        guard transaction.sequence > lastSequence else { return }
        for record in transaction.inserted {
            add(record)
            versions[record.id] = transaction.sequence
        }
        for change in transaction.updated {
            guard var record = records[change.id] else { continue }
            versions[change.id] = transaction.sequence
            removeFromIndexes(record)
            for (key, value) in change.values { record.values[key] = value }
            records[change.id] = record
            addToIndexes(record)
        }
        for deletion in transaction.deleted {
            guard let record = records.removeValue(forKey: deletion.id) else { continue }
            versions[deletion.id] = nil
            idsByEntity[record.entity]?.remove(deletion.id)
            removeFromIndexes(record)
        }
        lastSequence = transaction.sequence
    }

    private func add(_ record: StoredRecord) {
        records[record.id] = record
        idsByEntity[record.entity, default: []].insert(record.id)
        addToIndexes(record)
    }

    private func addToIndexes(_ record: StoredRecord) {
        guard let fields = indexedFields[record.entity] else { return }
        for (field, conversion) in fields {
            let key = QueryKey(record.values[field], conversion)
            hashIndexes[record.entity, default: [:]][field, default: [:]][key, default: []].insert(record.id)
            sortedIndexes[record.entity, default: [:]][field, default: SortedIndex()].isStale = true
        }
    }

    private func removeFromIndexes(_ record: StoredRecord) {
        guard let fields = indexedFields[record.entity] else { return }
        for (field, conversion) in fields {
            let key = QueryKey(record.values[field], conversion)
            hashIndexes[record.entity]?[field]?[key]?.remove(record.id)
            if hashIndexes[record.entity]?[field]?[key]?.isEmpty == true {
                hashIndexes[record.entity]?[field]?[key] = nil
            }
            sortedIndexes[record.entity]?[field]?.isStale = true
        }
    }

    /// The identifiers of `entity` records whose `field` equals `key`, or nil without an index.
    func lookup(_ entity: String, _ field: String, equalTo key: QueryKey) -> Set<Int64>? {
        guard isIndexed(entity, field) else { return nil }
        return hashIndexes[entity]?[field]?[key] ?? []
    }

    /// The entries of `entity`'s sorted index on `field`, in ascending key order, or nil without an index.
    func sortedEntries(_ entity: String, _ field: String) -> [(key: QueryKey, id: Int64)]? {
        guard let conversion = indexedFields[entity]?[field] else { return nil }
        var index = sortedIndexes[entity]?[field] ?? SortedIndex()
        if index.isStale {
            let ids = idsByEntity[entity] ?? []
            index.entries = ids.map { (key: QueryKey(records[$0]?.values[field], conversion), id: $0) }
            index.entries.sort { $0.key < $1.key || ($0.key == $1.key && $0.id < $1.id) }
            index.isStale = false
            sortedIndexes[entity, default: [:]][field] = index
        }
        return index.entries
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
