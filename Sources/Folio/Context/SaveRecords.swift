import Foundation
@_spi(FolioEngine) import FolioStorage

/// Everything a save writes, read from its models on the context's thread before the store write:
/// plain, `Sendable` values, so that the write (``write(into:schema:)``) cannot call back into a model
/// or its encoding.
struct SaveRecords: Sendable {
    /// The record of an inserted model.
    struct Insert: Sendable {
        var entityName: String
        /// Its values; a relationship to a model this save inserts holds that model's provisional number.
        var values: RecordValues
        /// The stored record it updates instead of adding one (its unique values matched one), if any.
        var upsertTarget: Int64?
    }

    /// The changed values of a stored record, under its entity: the storage engine's record, so that a
    /// large update reaches the transaction without being copied into another type.
    typealias Update = StoredRecord

    /// A deleted stored model, with the values its history keeps.
    struct Delete: Sendable {
        var entityName: String
        var id: Int64
        var tombstone: [String: JSONValue]
    }

    var inserts: [Insert] = []
    var updates: [Update] = []
    var deletes: [Delete] = []
    /// The numbers the new models go by in ``inserts`` and ``updates`` until the write allocates theirs.
    var provisional = ProvisionalNumbers(count: 0)
    /// Whether some value holds a provisional number (otherwise none is looked for).
    var refersToNewModels = false
    /// By entity, the relationship properties, which may hold provisional numbers.
    var relationshipNames: [String: [String]] = [:]
    /// By entity, the `.externalStorage` attributes, whose bytes the write moves into blobs.
    var externalStorageNames: [String: [String]] = [:]
}

/// What the write did, for the context to bring its models in step.
struct SaveOutcome {
    /// The record number of each insert, by position.
    var numbers: [Int64] = []
    /// The records of a subclass that inserts of one of its superclasses updated.
    var upsertsIntoSubclassRecords = Set<Int64>()
    /// The last transaction of the state the write started from.
    var baseSequence: UInt64 = 0
}

extension SaveRecords {
    /// Writes the records into `transaction`: allocates the new models' numbers, puts them in place of
    /// the provisional ones, moves `.externalStorage` bytes into blobs and records the changes.
    ///
    /// - Parameter schema: the container's, for the entity an upsert updates.
    func write(into transaction: inout WriteTransaction, schema: Schema) throws -> SaveOutcome {
        var outcome = SaveOutcome()
        if let bulk = bulkUpdate(schema: schema), transaction.isEmpty {
            try transaction.updateInBulk(bulk)
            outcome.baseSequence = transaction.lastSequence
            return outcome
        }
        transaction.reserveCapacity(inserting: inserts.count)
        outcome.numbers.reserveCapacity(inserts.count)
        var allocated: [Int64] = []
        allocated.reserveCapacity(provisional.count)
        // Every new model gets its number before any record is written: they may refer to each other.
        for insert in inserts {
            if let target = insert.upsertTarget {
                outcome.numbers.append(target)
            } else {
                let number = transaction.allocateID()
                allocated.append(number)
                outcome.numbers.append(number)
            }
        }
        for (position, insert) in inserts.enumerated() {
            let number = outcome.numbers[position]
            let values = try stored(insert.values, of: insert.entityName, allocated: allocated, transaction: &transaction)
            if insert.upsertTarget != nil {
                let storedEntity = try Self.upsertEntity(
                    insert.entityName, record: number, schema: schema,
                    storedEntity: transaction.entity(ofRecord: number))
                if storedEntity != insert.entityName { outcome.upsertsIntoSubclassRecords.insert(number) }
                try transaction.update(entity: storedEntity, id: number, values: values)
            } else {
                try transaction.insert(entity: insert.entityName, id: number, values: values)
            }
        }
        // Only a schema with stand-in entities needs each changed record's stored entity looked up.
        let hasStandIns = schema.entities.contains { $0.isRecordedOnly }
        for update in updates {
            let values = try stored(update.values, of: update.entity, allocated: allocated, transaction: &transaction)
            let entity =
                hasStandIns
                ? Self.recordEntity(stored: transaction.entity(ofRecord: update.id), modelEntity: update.entity, schema: schema)
                : update.entity
            try transaction.update(entity: entity, id: update.id, values: values)
        }
        for delete in deletes {
            guard let stored = transaction.entity(ofRecord: delete.id) else { continue }
            let entity = hasStandIns ? Self.recordEntity(stored: stored, modelEntity: delete.entityName, schema: schema) : delete.entityName
            try transaction.delete(entity: entity, id: delete.id, tombstone: delete.tombstone)
        }
        outcome.baseSequence = transaction.lastSequence
        return outcome
    }

    /// The updates as one list sorted by record number, when they are all this save writes and are
    /// stored as they are (no new model to refer to, no blob to write, no stand-in entity): a large
    /// update is then written in bulk (``WriteTransaction/updateInBulk(_:)``). Nil otherwise.
    private func bulkUpdate(schema: Schema) -> [StoredRecord]? {
        // Without inserts no value holds a provisional number.
        guard inserts.isEmpty, deletes.isEmpty, updates.count >= 2, externalStorageNames.isEmpty,
            !schema.entities.contains(where: { $0.isRecordedOnly })
        else { return nil }
        var records = updates
        if !zip(records, records.dropFirst()).allSatisfy({ $0.id < $1.id }) {
            records.sort { $0.id < $1.id }
            // One record changed twice in a save is left to the transaction's table, which merges them.
            guard zip(records, records.dropFirst()).allSatisfy({ $0.id < $1.id }) else { return nil }
        }
        return records
    }

    /// `values` as stored: provisional numbers replaced, `.externalStorage` bytes moved into blobs.
    private func stored(
        _ values: RecordValues, of entityName: String, allocated: [Int64],
        transaction: inout WriteTransaction
    ) throws -> RecordValues {
        var values = values
        if refersToNewModels, let relationships = relationshipNames[entityName] {
            values = provisional.resolved(values, relationships: relationships, allocated: allocated)
        }
        guard !externalStorageNames.isEmpty, let external = externalStorageNames[entityName] else { return values }
        for name in external {
            guard case .string(let base64)? = values[name], let bytes = Data(base64Encoded: base64) else { continue }
            values[name] = .object(["$blob": .string(try transaction.putBlob(bytes))])
        }
        return values
    }

    /// The entity a record stored as `stored` is written as, for a change of a model of `modelEntity`:
    /// its own, or one that inherits from it, whose records stand in as `modelEntity`'s instances when
    /// this process cannot find its class (``Schema/Entity/isRecordedOnly``). The change then keeps the
    /// record's entity and its own values. Any other entity is left for the transaction to refuse.
    private static func recordEntity(stored: String?, modelEntity: String, schema: Schema) -> String {
        guard let stored, stored != modelEntity,
            let storedEntity = schema.entitiesByName[stored], storedEntity.isRecordedOnly,
            let entity = schema.entitiesByName[modelEntity], storedEntity.isKind(of: entity)
        else { return modelEntity }
        return stored
    }

    /// The entity an upsert of a model of `entityName` updates record `record` as: the stored record's
    /// own, which may be a subclass of the model's (`#Unique` on a parent entity covers its whole
    /// inheritance tree).
    ///
    /// - Throws: ``FolioError/Code/invalidModel`` when the stored record is of a superclass or an
    ///   unrelated class: a stored model cannot become an instance of a subclass.
    private static func upsertEntity(_ entityName: String, record: Int64, schema: Schema, storedEntity: String?) throws -> String {
        guard let storedEntity, storedEntity != entityName else { return entityName }
        let family = schema.entitiesByName[entityName]?.selfAndDescendants.map(\.name) ?? []
        guard family.contains(storedEntity) else {
            throw FolioError(
                .invalidModel,
                "The inserted \(entityName) has the unique values of the stored \(storedEntity) record \(record), which is not a \(entityName); a stored model cannot change its class: delete it first, or insert a \(storedEntity)"
            )
        }
        return storedEntity
    }
}
