@_spi(FolioEngine) import FolioStorage

extension ModelContext {
    /// Writes pending inserts, changes and deletes to the store as one transaction.
    ///
    /// Before writing, delete rules are applied: `.cascade` deletes related models, `.nullify` removes
    /// the deleted model from related models' inverse relationships, and `.deny` refuses the save with
    /// a ``FolioError/Code/deleteDenied`` error naming the blocking models. A model whose unique values
    /// match a stored model updates that model instead of adding one.
    ///
    /// A save posts ``willSave`` before it processes the changes and ``didSave`` after it wrote them;
    /// a save with no changes posts neither.
    ///
    /// - Throws: ``FolioError``. After an error nothing was written and the pending changes remain.
    public func save() throws {
        guard hasChanges else { return }
        guard container.configuration.allowsSave else {
            throw FolioError(.saveNotAllowed, "The container's configuration does not allow saving (allowsSave is false)")
        }
        postWillSave()
        let committed = try container.lock.withLock("ModelContext.save()") { try saveLocked() }
        // Observers hear of the transaction after the lock is released: they may fetch.
        container.changeHub.publish()
        postDidSave(committed)
    }

    /// Saves, and returns the transaction written (nil when the changes came to nothing); the caller
    /// holds the container's lock.
    private func saveLocked() throws -> JournalTransaction? {
        container.syncIndexLocked(fromDisk: true)
        try applyDeleteRules()
        try checkRelationshipCounts()

        let insertedModels = insertionOrder.compactMap { inserted[$0] }
        // A model without relationships encodes the same whatever the record numbers turn out to be:
        // encode it once, here, for both the uniqueness check and the write.
        var encodedInserts: [RecordValues?]
        do {
            let encodesHere = insertedModels.map { facts(of: $0)?.hasRelationships == false }
            encodedInserts = try InsertEncoding(models: insertedModels, encodesHere: encodesHere).encode()
        } catch let error as ModelCodingError {
            throw FolioError(.modelCoding, "The changes could not be saved", underlying: error)
        }
        let upsertTargets = try uniqueMatches(for: insertedModels, encoded: encodedInserts)
        var numbers: [ObjectIdentifier: Int64] = [:]
        /// The number of each inserted model, by position.
        var numberAt: [Int64] = []
        let storeIdentity = container.storeIdentity
        let numberOf: (AnyObject) throws -> Int64 = { object in
            guard let model = object as? any PersistentModel else {
                throw FolioError(.invalidModel, "A relationship refers to something that is not a model")
            }
            if let number = numbers[ObjectIdentifier(object)] ?? model.persistentBackingData.storedRecordNumber {
                return number
            }
            throw FolioError(.invalidModel,
                "\(model.persistentModelID) is referred to by a saved model but was never inserted into a context; insert it first")
        }
        let changedModels = Array(changed.values)
        let deletedModels = deletionOrder.compactMap { deleted[$0] }
        let committed: JournalTransaction?
        let indexing = ConcurrentIndexApplication()
        // The last transaction of the state the write started from.
        var baseSequence: UInt64 = 0
        // Records of a subclass that inserted models of one of its superclasses updated.
        var upsertsIntoSubclassRecords = Set<Int64>()
        let written = Result {
            try container.store.write(author: author) { transaction in
                transaction.reserveCapacity(inserting: insertedModels.count)
                // Every inserted model gets its number before any is encoded: they may refer to each other.
                // Looking a new model's number up by the model is needed only where something encoded in
                // here can refer to one (a model with relationships, a changed model, a tombstone).
                let mayReferToNewModels = encodedInserts.contains { $0 == nil } || !changedModels.isEmpty || !deletedModels.isEmpty
                var upserts: [Bool] = []
                upserts.reserveCapacity(insertedModels.count)
                numberAt.reserveCapacity(insertedModels.count)
                for model in insertedModels {
                    let target = upsertTargets.isEmpty ? nil : upsertTargets[ObjectIdentifier(model)]
                    let number = target ?? transaction.allocateID()
                    numberAt.append(number)
                    if mayReferToNewModels { numbers[ObjectIdentifier(model)] = number }
                    upserts.append(target != nil)
                }
                for (position, model) in insertedModels.enumerated() {
                    let entityName = type(of: model)._folioEntityName
                    let number = numberAt[position]
                    // Taken out, not copied: the values go on into the transaction without another
                    // retain of their storage, which an encoding thread on the other core wrote last.
                    let values = try storedValues(of: model, onlyProperties: nil, encoded: encodedInserts[position].take(),
                                                  recordNumber: numberOf, transaction: &transaction)
                    if upserts[position] {
                        let storedEntity = try upsertEntity(of: model, entityName: entityName, record: number,
                                                            storedEntity: transaction.entity(ofRecord: number))
                        if storedEntity != entityName { upsertsIntoSubclassRecords.insert(number) }
                        try transaction.update(entity: storedEntity, id: number, values: values)
                    } else {
                        try transaction.insert(entity: entityName, id: number, values: values)
                    }
                }
                for model in changedModels {
                    let backing = model.persistentBackingData
                    guard let number = backing.storedRecordNumber, !backing.changedProperties.isEmpty else { continue }
                    let values = try storedValues(of: model, onlyProperties: backing.changedProperties, recordNumber: numberOf,
                                                  transaction: &transaction)
                    if !values.isEmpty {
                        try transaction.update(entity: type(of: model)._folioEntityName, id: number, values: values)
                    }
                }
                for model in deletedModels {
                    guard let number = model.persistentBackingData.storedRecordNumber,
                          transaction.entity(ofRecord: number) != nil else { continue }
                    try transaction.delete(entity: type(of: model)._folioEntityName, id: number,
                                           tombstone: try tombstone(of: model, recordNumber: numberOf))
                }
                baseSequence = transaction.lastSequence
            }
        }
        // A large committed transaction goes to the index on another thread, and the save returns without
        // waiting for it: whatever reads the index next waits instead (making models for the next save, or
        // anything else the caller does first, overlaps with it).
        var indexIsApplying = false
        if case .success(let committedNow?) = written {
            indexIsApplying = indexing.start(committed: committedNow, baseSequence: baseSequence,
                                             index: container.isIndexLoaded ? container.recordIndex : nil)
        }
        if indexIsApplying { container.finishIndexingLater(indexing) }
        do {
            committed = try written.get()
        } catch let error as FolioError {
            throw error
        } catch let error as ModelCodingError {
            throw FolioError(.modelCoding, "The changes could not be saved", underlying: error)
        } catch {
            throw FolioError(.storage, "The changes could not be saved", underlying: error)
        }
        if !indexIsApplying { container.syncIndexLocked(committed: committed.map { [$0] } ?? []) }
        let version = try committed?.sequence ?? container.indexLocked.lastSequence

        // The store has the changes: bring the models in step.
        for (model, number) in zip(insertedModels, numberAt) {
            let backing = model.persistentBackingData
            if let previous = registered[number]?.model as? any PersistentModel, previous !== model {
                // An upsert replaced a registered instance: load the merged values into it.
                try? reloadLocked(previous, recordNumber: number)
            }
            if !upsertsIntoSubclassRecords.isEmpty, upsertsIntoSubclassRecords.contains(number) {
                // An upsert into a record of a subclass: the record keeps its class, and the inserted
                // instance, of another class, identifies it without standing for it in this context.
                backing.assignRecordNumber(number, store: storeIdentity)
                backing.isInserted = false
                backing.changedProperties = []
                backing.context = nil
                continue
            }
            backing.assignRecordNumber(number, store: storeIdentity)
            backing.isInserted = false
            backing.changedProperties = []
            backing.loadedVersion = version
            register(model, recordNumber: number)
        }
        for model in changedModels {
            model.persistentBackingData.changedProperties = []
            model.persistentBackingData.loadedVersion = version
        }
        for model in deletedModels {
            let backing = model.persistentBackingData
            if let number = backing.storedRecordNumber { registered[number] = nil }
            backing.context = nil
        }
        // A context that saves in batches keeps the tables' room for the next batch, instead of growing
        // them again step by step; after a very large save it lets the memory go.
        let keepsRoom = insertionOrder.count <= 100_000
        inserted.removeAll(keepingCapacity: keepsRoom)
        insertionOrder.removeAll(keepingCapacity: keepsRoom)
        changed = [:]
        deleted = [:]
        deletionOrder = []
        return committed
    }

    /// The values to store for a model, with `.externalStorage` bytes moved into blobs.
    ///
    /// - Parameter encoded: the model's values encoded already, if they are (then `onlyProperties` is
    ///   not used).
    func storedValues(of model: any PersistentModel, onlyProperties: Set<String>?, encoded: consuming RecordValues? = nil,
                      recordNumber: @escaping (AnyObject) throws -> Int64,
                      transaction: inout WriteTransaction) throws -> RecordValues {
        var values = try encoded.take() ?? ModelRecordCoding.encode(model, onlyProperties: onlyProperties, recordNumber: recordNumber)
        guard facts(of: model)?.storesEncodedValues == false, let entity = entity(of: model) else { return values }
        // `.ephemeral` attributes are tracked but never stored.
        if !entity.ephemeralAttributeNames.isEmpty {
            values = values.filter { !entity.ephemeralAttributeNames.contains($0) }
        }
        for name in entity.externalStorageAttributeNames {
            guard case .string(let base64)? = values[name], let bytes = Data(base64Encoded: base64) else { continue }
            values[name] = .object(["$blob": .string(try transaction.putBlob(bytes))])
        }
        return values
    }

    /// The values kept in the history when a model is deleted: its `.preserveValueOnDeletion` attributes.
    func tombstone(of model: any PersistentModel, recordNumber: @escaping (AnyObject) throws -> Int64) throws -> [String: JSONValue] {
        guard let entity = entity(of: model), !entity.preservedAttributeNames.isEmpty else { return [:] }
        let preserved = entity.preservedAttributeNames
        return try ModelRecordCoding.encode(model, onlyProperties: preserved, recordNumber: recordNumber).dictionary
    }

    // MARK: Delete rules

    /// Cascades deletes, checks `.deny` rules and nullifies inverses of the models to delete.
    func applyDeleteRules() throws {
        // Most schemas have few relationships and many have none: then no deleted model has a rule to
        // apply, and looking each one up (a hash and a cache miss per model in a large delete) is waste.
        guard schema.entities.contains(where: { !$0.relationshipsByName.isEmpty }) else { return }
        var index = 0
        while index < deletionOrder.count {
            guard let model = deleted[deletionOrder[index]], let entity = entity(of: model) else {
                index += 1
                continue
            }
            for relationship in entity.relationshipsByName.values.sorted(by: { $0.name < $1.name }) {
                let related = currentRelated(of: model, relationship: relationship).compactMap { $0 as? any PersistentModel }
                    .filter { !$0.isDeleted }
                switch relationship.deleteRule {
                case .cascade:
                    for target in related { deleteModel(target) }
                case .deny:
                    if !related.isEmpty {
                        let names = related.prefix(5).map { "\($0.persistentModelID)" }.joined(separator: ", ")
                        throw FolioError(.deleteDenied,
                            "\(model.persistentModelID) cannot be deleted: its '\(relationship.name)' relationship has the .deny rule and still refers to \(names)\(related.count > 5 ? " and \(related.count - 5) more" : "")")
                    }
                case .nullify:
                    guard let inverseName = relationship.inverseName else { continue }
                    isMaintainingInverses = true
                    for target in related {
                        if let inverse = self.entity(of: target)?.relationshipsByName[inverseName] {
                            unlink(target, inverse: inverse, from: model)
                        }
                    }
                    isMaintainingInverses = false
                case .noAction:
                    continue
                }
            }
            index += 1
        }
    }

    /// Refuses the save when a to-many relationship has fewer models than its `minimumModelCount` or
    /// more than its `maximumModelCount` (0 means no bound, as in SwiftData).
    func checkRelationshipCounts() throws {
        // Most schemas have no counted relationships: then there is nothing to look at per model.
        let counted = schema.entities.contains { entity in
            entity.relationshipsByName.values.contains { ($0.minimumModelCount ?? 0) > 0 || ($0.maximumModelCount ?? 0) > 0 }
        }
        guard counted else { return }
        for model in insertedModelsArray + changedModelsArray {
            guard let entity = entity(of: model) else { continue }
            for relationship in entity.relationshipsByName.values where !relationship.isToOneRelationship {
                let minimum = relationship.minimumModelCount ?? 0
                let maximum = relationship.maximumModelCount ?? 0
                guard minimum > 0 || maximum > 0 else { continue }
                let count = currentRelated(of: model, relationship: relationship).count
                if minimum > 0 && count < minimum {
                    throw FolioError(.invalidModel,
                        "\(model.persistentModelID).\(relationship.name) refers to \(count) models, fewer than its minimumModelCount of \(minimum)")
                }
                if maximum > 0 && count > maximum {
                    throw FolioError(.invalidModel,
                        "\(model.persistentModelID).\(relationship.name) refers to \(count) models, more than its maximumModelCount of \(maximum)")
                }
            }
        }
    }

    // MARK: Uniqueness

    /// The entity an upsert of `model` updates record `record` as: the stored record's own, which may
    /// be a subclass of the model's (`#Unique` on a parent entity covers its whole inheritance tree).
    ///
    /// - Throws: ``FolioError/Code/invalidModel`` when the stored record is of a superclass or an
    ///   unrelated class: a stored model cannot become an instance of a subclass.
    private func upsertEntity(of model: any PersistentModel, entityName: String, record: Int64,
                              storedEntity: String?) throws -> String {
        guard let storedEntity, storedEntity != entityName else { return entityName }
        let family = schema.entitiesByName[entityName]?.selfAndDescendants.map(\.name) ?? []
        guard family.contains(storedEntity) else {
            throw FolioError(.invalidModel,
                "The inserted \(entityName) has the unique values of the stored \(storedEntity) record \(record), which is not a \(entityName); a stored model cannot change its class: delete it first, or insert a \(storedEntity)")
        }
        return storedEntity
    }

    /// For each inserted model whose unique values match a stored record, that record's number.
    ///
    /// The plans (which indexes answer each constraint) are made here, once per entity; the lookups,
    /// which only read the index, run in ``UniqueMatching``, on several threads for a large save.
    ///
    /// - Parameter encoded: for each model, at the same position, its stored values if they were
    ///   encoded already.
    func uniqueMatches(for models: [any PersistentModel], encoded encodedModels: [RecordValues?]) throws -> [ObjectIdentifier: Int64] {
        var plans: [UniqueMatching.Plan] = []
        var planOfEntity: [ObjectIdentifier: Int] = [:]
        // The plan of the model type seen last: models come in runs of one type.
        var lastType: (type: ObjectIdentifier, plan: Int?)? = nil
        var planOfModel: [Int?] = []
        planOfModel.reserveCapacity(models.count)
        let recordIndex = try container.indexLocked
        for model in models {
            let type = ObjectIdentifier(Swift.type(of: model))
            if let lastType, lastType.type == type {
                planOfModel.append(lastType.plan)
                continue
            }
            guard facts(of: model)?.hasUniquenessConstraints == true, let entity = entity(of: model) else {
                lastType = (type, nil)
                planOfModel.append(nil)
                continue
            }
            let plan: Int
            if let known = planOfEntity[ObjectIdentifier(entity)] {
                plan = known
            } else {
                let family = familyRoot(of: entity).selfAndDescendants.map(\.name)
                plan = plans.count
                plans.append(UniqueMatching.Plan(
                    names: Set(entity.uniquenessConstraints.flatMap { $0 }),
                    constraints: entity.uniquenessConstraints.compactMap { constraint in
                        guard let first = constraint.first else { return nil }
                        return UniqueMatching.Constraint(
                            fields: constraint.map { ($0, FieldTypes.conversion(of: entity, $0)) },
                            firstFieldIndexes: family.map { ($0, recordIndex.fieldIndex($0, first)) })
                    }))
                planOfEntity[ObjectIdentifier(entity)] = plan
            }
            lastType = (type, plan)
            planOfModel.append(plan)
        }
        if plans.isEmpty { return [:] }
        let found = try UniqueMatching(models: models, encoded: encodedModels, plans: plans, planOfModel: planOfModel,
                                       index: recordIndex).matches()
        var matches: [ObjectIdentifier: Int64] = [:]
        for (position, match) in found.enumerated() {
            if let match { matches[ObjectIdentifier(models[position])] = match }
        }
        return matches
    }

    func familyRoot(of entity: Schema.Entity) -> Schema.Entity {
        var root = entity
        while let parent = root.superentity { root = parent }
        return root
    }
}
