/// The logical content of a store at one sequence number: what snapshots plus journal replay give.
struct StoreState: Sendable {
    /// Records by entity, then by identifier.
    var entities: [String: [Int64: RecordValues]] = [:]
    /// The entity of each live identifier.
    var entityOfID: [Int64: String] = [:]
    /// For each entity, the sequence of the last transaction that touched it (the snapshot header's
    /// `sequence`, so that the same transactions always give the same snapshot bytes).
    var lastModified: [String: UInt64] = [:]
    /// The last applied sequence number (0 for an empty store).
    var lastSequence: UInt64 = 0
    /// The next identifier to allocate.
    var nextID: Int64 = 1
    /// The opaque metadata slot.
    var schema: JSONValue? = nil

    /// Each entity's number of records, for the entities that have records.
    var recordCounts: [String: Int] {
        entities.filter { !$0.value.isEmpty }.mapValues(\.count)
    }

    func record(id: Int64) -> StoredRecord? {
        guard let entity = entityOfID[id], let values = entities[entity]?[id] else { return nil }
        return StoredRecord(entity: entity, id: id, values: values)
    }

    /// Applies a transaction.
    ///
    /// - Parameters:
    ///   - entityBase: ops on an entity are skipped when the transaction is not newer than this base
    ///     (the entity's snapshot already contains them).
    ///   - globalBase: the counter and schema are taken only from transactions newer than this.
    /// - Returns: problems found (a description each); the transaction is applied as far as possible.
    mutating func apply(
        _ transaction: JournalTransaction, entityBase: (String) -> UInt64 = { _ in 0 }, globalBase: UInt64 = 0
    ) -> [String] {
        var problems: [String] = []
        let sequence = transaction.sequence
        // Transactions usually touch one entity or a few: decide per entity once, not per record.
        var decided: [(entity: String, applies: Bool)] = []
        func applies(_ entity: String) -> Bool {
            if let known = decided.first(where: { $0.entity == entity }) { return known.applies }
            let answer = sequence > entityBase(entity)
            decided.append((entity, answer))
            return answer
        }
        var modifiedEntities: [String] = []
        func modified(_ entity: String) {
            if modifiedEntities.last != entity && !modifiedEntities.contains(entity) { modifiedEntities.append(entity) }
        }
        for deleted in transaction.deleted where applies(deleted.entity) {
            if entities[deleted.entity]?.removeValue(forKey: deleted.id) == nil {
                problems.append("deletes \(deleted.entity) \(deleted.id), which does not exist")
            } else {
                entityOfID[deleted.id] = nil
            }
            modified(deleted.entity)
        }
        for inserted in transaction.inserted where applies(inserted.entity) {
            if let owner = entityOfID[inserted.id] {
                problems.append("inserts \(inserted.entity) \(inserted.id), but \(owner) \(inserted.id) already exists")
                continue
            }
            entities[inserted.entity, default: [:]][inserted.id] = inserted.values
            entityOfID[inserted.id] = inserted.entity
            modified(inserted.entity)
            nextID = max(nextID, inserted.id &+ 1)
        }
        for updated in transaction.updated where applies(updated.entity) {
            guard let values = entities[updated.entity]?[updated.id] else {
                problems.append("updates \(updated.entity) \(updated.id), which does not exist")
                continue
            }
            entities[updated.entity]?[updated.id] = values.merging(updated.values)
            modified(updated.entity)
        }
        for entity in modifiedEntities { lastModified[entity] = sequence }
        if sequence > globalBase {
            nextID = max(nextID, transaction.nextID)
            if let schema = transaction.schema { self.schema = schema }
        }
        lastSequence = max(lastSequence, sequence)
        return problems
    }

    /// Every blob hash referenced by current values.
    func referencedBlobs() -> Set<String> {
        var hashes = Set<String>()
        for records in entities.values {
            for values in records.values { BlobStore.collectReferences(in: values, into: &hashes) }
        }
        return hashes
    }
}
