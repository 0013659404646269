import FolioStorage

/// The models a save writes, collected from the context's tables; they stay on the context's thread.
struct SaveChanges {
    /// Inserted models, in insertion order.
    var inserted: [any PersistentModel]
    var changed: [any PersistentModel]
    /// Deleted models, in deletion order.
    var deleted: [any PersistentModel]
}

extension ModelContext {
    /// Reads the models of `changes` into the records the save writes, on this thread.
    ///
    /// Models without relationships are encoded first, and the uniqueness check decides which inserts
    /// update a stored record instead; then every other model is encoded, a relationship to a new model
    /// holding that model's provisional number (``ProvisionalNumbers``).
    ///
    /// - Throws: ``ModelCodingError`` of the first model that cannot be encoded, ``FolioError`` for a
    ///   relationship to a model that was never inserted, or for a model whose class the schema cannot
    ///   take (``requireFacts(of:)``).
    func encodeRecords(of changes: SaveChanges, index: RecordIndex) throws -> SaveRecords {
        let models = changes.inserted
        let encodesFirst = try models.map { try !requireFacts(of: $0).hasRelationships }
        var encoded = try InsertEncoding(models: models, encodesHere: encodesFirst).encode()
        let upsertTargets = try uniqueMatches(for: models, encoded: encoded, index: index)

        var records = SaveRecords()
        records.provisional = ProvisionalNumbers(count: upsertTargets.isEmpty ? models.count : upsertTargets.count(where: { $0 == nil }))
        // Looking a new model's number up by the model is needed only where something encoded now can
        // refer to one (a model with relationships, a changed model).
        records.refersToNewModels = encodesFirst.contains(false) || !changes.changed.isEmpty
        var numbers: [ObjectIdentifier: Int64] = [:]
        if records.refersToNewModels {
            var rank = 0
            for (position, model) in models.enumerated() {
                if let target = upsertTargets.isEmpty ? nil : upsertTargets[position] {
                    numbers[ObjectIdentifier(model)] = target
                } else {
                    numbers[ObjectIdentifier(model)] = records.provisional.number(ofNew: rank)
                    rank += 1
                }
            }
        }
        let provisional = records.provisional
        let numberOf: (AnyObject) throws -> Int64 = { object in
            guard let model = object as? any PersistentModel else {
                throw FolioError(.invalidModel, "A relationship refers to something that is not a model")
            }
            if let number = numbers[ObjectIdentifier(object)] { return number }
            guard let number = model.persistentBackingData.storedRecordNumber else {
                throw FolioError(
                    .invalidModel,
                    "\(model.persistentModelID) is referred to by a saved model but was never inserted into a context; insert it first")
            }
            if provisional.collides(with: number) {
                throw FolioError(
                    .invalidModel,
                    "\(model.persistentModelID) has record number \(number), too close to the largest 64-bit integer to be referred to in a save that inserts models"
                )
            }
            return number
        }

        records.inserts.reserveCapacity(models.count)
        for (position, model) in models.enumerated() {
            let values = try encoded[position].take() ?? ModelRecordCoding.encode(model, recordNumber: numberOf)
            let entityName = type(of: model)._folioEntityName
            let stored = storedValues(values, of: model, entityName: entityName, in: &records)
            records.inserts.append(
                SaveRecords.Insert(
                    entityName: entityName, values: stored,
                    upsertTarget: upsertTargets.isEmpty ? nil : upsertTargets[position]))
        }
        for model in changes.changed {
            let backing = model.persistentBackingData
            guard let number = backing.storedRecordNumber, !backing.changedProperties.isEmpty else { continue }
            let entityName = type(of: model)._folioEntityName
            let values = storedValues(
                try ModelRecordCoding.encode(model, onlyProperties: backing.changedProperties, recordNumber: numberOf),
                of: model, entityName: entityName, in: &records)
            if !values.isEmpty {
                records.updates.append(SaveRecords.Update(entity: entityName, id: number, values: values))
            }
        }
        for model in changes.deleted {
            guard let number = model.persistentBackingData.storedRecordNumber else { continue }
            records.deletes.append(
                SaveRecords.Delete(
                    entityName: type(of: model)._folioEntityName, id: number,
                    tombstone: try tombstone(of: model, recordNumber: numberOf)))
        }
        return records
    }

    /// ``facts(of:)`` of a model a save writes.
    ///
    /// - Throws: ``FolioError/Code/invalidModel`` naming the class when it is not in the schema and
    ///   cannot join it (see ``ModelContainer/addUnlistedSubclass(_:)``): a record of it would be an
    ///   entity no container for these models could open.
    func requireFacts(of model: any PersistentModel) throws -> EntityFacts {
        if let facts = facts(of: model) { return facts }
        try container.addUnlistedSubclass(type(of: model))
        guard let facts = facts(of: model) else {
            throw FolioError(.invalidModel, "\(type(of: model)) is not in the container's schema; list it in the ModelContainer")
        }
        return facts
    }

    /// A model's encoded values without its `.ephemeral` attributes, noting in `records` what the write
    /// needs to know of its entity: the relationships and the `.externalStorage` attributes.
    private func storedValues(
        _ values: RecordValues, of model: any PersistentModel, entityName: String,
        in records: inout SaveRecords
    ) -> RecordValues {
        let facts = facts(of: model)
        guard facts?.hasRelationships == true || facts?.storesEncodedValues == false, let entity = entity(of: model) else { return values }
        if records.relationshipNames[entityName] == nil {
            records.relationshipNames[entityName] = Array(entity.relationshipsByName.keys)
            if !entity.externalStorageAttributeNames.isEmpty {
                records.externalStorageNames[entityName] = entity.externalStorageAttributeNames
            }
        }
        // `.ephemeral` attributes are tracked but never stored.
        guard !entity.ephemeralAttributeNames.isEmpty else { return values }
        return values.filter { !entity.ephemeralAttributeNames.contains($0) }
    }

    /// The values kept in the history when a model is deleted: its `.preserveValueOnDeletion` attributes.
    private func tombstone(of model: any PersistentModel, recordNumber: @escaping (AnyObject) throws -> Int64) throws -> [String: JSONValue] {
        guard let entity = entity(of: model), !entity.preservedAttributeNames.isEmpty else { return [:] }
        let preserved = entity.preservedAttributeNames
        return try ModelRecordCoding.encode(model, onlyProperties: preserved, recordNumber: recordNumber).dictionary
    }
}
