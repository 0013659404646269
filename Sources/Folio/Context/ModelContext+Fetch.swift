@_spi(FolioEngine) import FolioStorage

extension ModelContext {
    /// The models that match a descriptor, sorted and windowed as it says.
    ///
    /// The predicate and sort run over the container's in-memory index without creating models when
    /// Folio can translate them; otherwise Folio creates the candidate models and calls
    /// `Predicate.evaluate` and `SortDescriptor.compare`, with the same results.
    ///
    /// The models are *faults*, as in SwiftData: each property is decoded from the stored record when
    /// it is first read, so a fetch costs little more than the instances themselves. Two exceptions load
    /// every property during the fetch, so that a record that cannot be decoded makes the fetch throw:
    /// a descriptor that lists ``FetchDescriptor/propertiesToFetch``, and entities with a required
    /// to-one relationship (a record referring to a missing one fails the fetch). A fault whose stored
    /// value turns out not to decode (a hand-edited or damaged store) reads that property as its
    /// declared default or its type's empty value, and never overwrites the stored value unless the
    /// property is set and saved.
    ///
    /// - Throws: ``FolioError/Code/invalidFetchDescriptor`` for a predicate or sort that reaches inside a
    ///   `.codable` attribute, or that fails to evaluate; ``FolioError/Code/modelCoding`` for a record
    ///   that cannot be loaded, when the models are loaded during the fetch.
    public func fetch<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> [T] {
        if let models = try fetchWithoutLoading(descriptor) { return models }
        // Collected as plain references, and made an array of `T` once: this closure runs unspecialized
        // for `T`, where appending to an array of `T` looked its type up in the runtime's tables for
        // every model.
        var models: [AnyObject] = []
        try forEachFetched(descriptor, expecting: { models.reserveCapacity($0) }) { models.append($0) }
        return Self.array(models, of: T.self)
    }

    /// `objects`, every one of which is a `T`, as an array of `T`: written in place, with no cast or
    /// generic append per element, because `map` is not specialized here.
    static func array<T: PersistentModel>(_ objects: [AnyObject], of type: T.Type) -> [T] {
        [T](unsafeUninitializedCapacity: objects.count) { buffer, count in
            guard let base = buffer.baseAddress else {
                count = 0
                return
            }
            for (position, object) in objects.enumerated() {
                (base + position).initialize(to: unsafeDowncast(object, to: T.self))
            }
            count = objects.count
        }
    }

    /// Calls `body` with each model a descriptor fetches, in order, as it is made.
    func forEachFetched<T: PersistentModel>(
        _ descriptor: FetchDescriptor<T>, expecting: (Int) -> Void = { _ in },
        _ body: (T) throws -> Void
    ) throws {
        let found = try rows(descriptor)
        expecting(found.count)
        // Unsaved models are looked up once, not per row.
        let unsaved = found.contains(where: { $0 < 0 }) ? unsavedModelsByRow() : [:]
        let loadingValues = !descriptor.propertiesToFetch.isEmpty
        prepareToRegister(found.count)
        // Models are made from the index, which saves on other threads change: read it under the lock.
        return try withContainerLock(refusingReentry: "ModelContext.fetch(_:)") { state in
            let index = try index(in: &state)
            let records = index.records
            // A batch's records are fetched into the cache together, not one miss after another.
            let sum = try forEachReadingAhead(found, readAhead: { index.touchValues(of: $0) }) { id in
                if let model = try (id < 0 ? unsaved[id] : loadedModel(forRecordNumber: id, loadingValues: loadingValues, in: records, index: index))
                    as? T
                {
                    try body(model)
                }
            }
            ReadAhead.keep(sum)
        }
    }

    /// The number of models that match a descriptor.
    ///
    /// Counting every model of a type (no predicate) in a context without unsaved changes, before
    /// anything read the store's records, takes the counts from the store's files (snapshot headers and
    /// journal) instead of reading the records.
    public func fetchCount<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> Int {
        if descriptor.predicate == nil, let stored = try storedCountWithoutLoading(T.self) {
            let afterOffset = max(0, stored - max(0, descriptor.fetchOffset ?? 0))
            guard let limit = descriptor.fetchLimit, limit >= 0 else { return afterOffset }
            return min(limit, afterOffset)
        }
        return try rows(descriptor).count
    }

    /// The number of stored models of `T` and its subclasses, from the store's files, while the
    /// container has not read the records and this context has no unsaved changes; nil otherwise.
    private func storedCountWithoutLoading<T: PersistentModel>(_ type: T.Type) throws -> Int? {
        guard !hasChanges, let entity = schema(knowing: T.self).entitiesByName[T._folioEntityName] else { return nil }
        return try container.lock.withLock(refusingReentry: "ModelContext.fetchCount(_:)") { state in
            guard let counts = try container.recordCountsWithoutLoading(state) else { return nil }
            return entity.selfAndDescendants.reduce(0) { $0 + (counts[$1.name] ?? 0) }
        }
    }

    /// The identifiers of the models that match a descriptor, without creating the models.
    public func fetchIdentifiers<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> [PersistentIdentifier] {
        let found = try rows(descriptor)
        return try withContainerLock(refusingReentry: "ModelContext.fetchIdentifiers(_:)") { state in
            let index = try index(in: &state)
            let unsaved = found.contains(where: { $0 < 0 }) ? unsavedModelsByRow() : [:]
            return found.compactMap { id in
                if id < 0 { return unsaved[id]?.persistentModelID }
                guard let record = index.records[id] else { return nil }
                return PersistentIdentifier(entityName: record.entity, storeIdentifier: container.storeIdentifier, recordNumber: id)
            }
        }
    }

    /// How a descriptor would be carried out: whether an index serves it and whether the predicate and
    /// sort run over records.
    ///
    /// The plan is chosen from the container's index without running the query: no record is read,
    /// no predicate is evaluated and no model is made.
    public func queryPlan<T: PersistentModel>(for descriptor: FetchDescriptor<T>) throws -> QueryPlan {
        return try withContainerLock(refusingReentry: "ModelContext.queryPlan(for:)") { state in
            try container.syncIndex(in: &state, fromDisk: true)
            return try physicalPlan(descriptor, index: try index(in: &state)).reported
        }
    }

    /// Calls `block` with each matching model, creating them in batches of `batchSize` so that memory
    /// stays bounded when the context has no other references to them.
    ///
    /// - Parameters:
    ///   - descriptor: Which models, in which order.
    ///   - batchSize: How many models are created at a time.
    ///   - allowEscapingMutations: Whether `block` may leave unsaved changes in the context;
    ///     when `false` (the default), the enumeration throws if it does.
    ///   - block: Called with each model in turn.
    public func enumerate<T: PersistentModel>(
        _ descriptor: FetchDescriptor<T>, batchSize: Int = 5000,
        allowEscapingMutations: Bool = false, block: (T) throws -> Void
    ) throws {
        let ids = try rows(descriptor)
        let size = max(1, batchSize)
        var start = 0
        // Unsaved models by row, made when the first one is needed rather than searched for each row.
        var unsaved: [RowID: any PersistentModel]?
        while start < ids.count {
            let end = min(start + size, ids.count)
            for id in ids[start..<end] {
                let found: (any PersistentModel)?
                if id >= 0 {
                    found = model(forRecordNumber: id)
                } else {
                    if unsaved == nil { unsaved = unsavedModelsByRow() }
                    found = unsaved?[id].flatMap { isStillUnsaved($0, row: id) ? $0 : nil }
                }
                guard let model = found as? T else { continue }
                try block(model)
            }
            if !allowEscapingMutations && hasChanges {
                throw FolioError(
                    .invalidFetchDescriptor,
                    "The enumeration block changed models; save inside the block, or pass allowEscapingMutations: true")
            }
            start = end
        }
    }

    /// Deletes every model of a type (and, by default, of its subclasses) that matches a predicate, at
    /// the next save. With no predicate, all of them.
    ///
    /// No model is made for a stored record this context does not hold: the record is deleted as it is,
    /// and at the save its delete rules apply record by record as they would to its model (`.cascade`
    /// deletes the related records, `.nullify` removes it from their inverse relationships, `.deny`
    /// refuses the save). Until the save, fetches leave the records out; ``rollback()`` keeps them. A
    /// model this context holds of a matching record, and a matching unsaved model, is deleted as
    /// ``delete(_:)`` deletes it, and is listed in ``deletedModelsArray``; the other records are not.
    /// When the context has an ``undoManager``, every matching record is deleted as a model, so that
    /// the delete can be undone.
    ///
    /// - Throws: ``FolioError/Code/invalidFetchDescriptor`` for a predicate the engine cannot evaluate.
    /// - Complexity: O(*m*) after the query, for *m* matching records.
    public func delete<T: PersistentModel>(
        model: T.Type, where predicate: Predicate<T>? = nil,
        includeSubclasses: Bool = true
    ) throws {
        let entityName = T._folioEntityName
        let found = try withContainerLock(refusingReentry: "ModelContext.delete(model:where:)") { state -> [(RowID, String?)] in
            try container.syncIndex(in: &state, fromDisk: true)
            let index = try index(in: &state)
            let rows = try QueryExecutor(plan: physicalPlan(FetchDescriptor<T>(predicate: predicate), index: index), context: self, index: index)
                .run()
            return rows.map { ($0, $0 >= 0 ? index.records.entity(of: $0) : nil) }
        }
        var unsaved: [RowID: any PersistentModel]?
        for (row, stored) in found {
            if row < 0 {
                if unsaved == nil { unsaved = unsavedModelsByRow() }
                guard let model = unsaved?[row], includeSubclasses || type(of: model) == T.self else { continue }
                deleteModel(model)
            } else if let model = registered[row]?.model as? any PersistentModel {
                if includeSubclasses || type(of: model) == T.self { deleteModel(model) }
            } else if let stored, includeSubclasses || stored == entityName {
                if undoManager != nil, let model = self.model(forRecordNumber: row) {
                    // A delete the undo manager can undo is a delete of models.
                    deleteModel(model)
                } else {
                    deletedRecords.insert(row, entity: stored)
                }
            }
        }
        if !deletedRecords.isEmpty { scheduleAutosave() }
    }

    /// The matching rows of a descriptor.
    func rows<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> [RowID] {
        try runQuery(descriptor).rows
    }

    /// Compiles, plans and runs a descriptor; returns the matching rows and the executor that found them.
    func runQuery<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> (rows: [RowID], executor: QueryExecutor) {
        return try withContainerLock(refusingReentry: "ModelContext.fetch(_:)") { state in
            try container.syncIndex(in: &state, fromDisk: true)
            let index = try index(in: &state)
            let executor = try QueryExecutor(plan: try physicalPlan(descriptor, index: index), context: self, index: index)
            return (try executor.run(), executor)
        }
    }

    /// The plan for a descriptor, chosen from `index`, which the caller read holding the container's lock.
    func physicalPlan<T: PersistentModel>(_ descriptor: FetchDescriptor<T>, index: RecordIndex) throws -> PhysicalPlan {
        let query = try LogicalQuery.compile(descriptor, schema: schema(knowing: T.self))
        let pending = query.includePendingChanges && PendingOverlay.touches(self, entities: query.entities)
        return QueryPlanner.plan(query, index: index, hasPendingChanges: pending)
    }

    /// The model of a row: a stored record's instance, or an unsaved inserted model.
    func row(_ id: RowID) -> (any PersistentModel)? {
        if id >= 0 { return model(forRecordNumber: id) }
        return insertedModelsArray.first { PendingOverlay.rowID(of: $0) == id }
    }

    /// Whether an unsaved model found for `row` still is that row: the block may have saved or deleted it.
    private func isStillUnsaved(_ model: any PersistentModel, row: RowID) -> Bool {
        inserted[ObjectIdentifier(model)] != nil && PendingOverlay.rowID(of: model) == row
    }

    /// The unsaved inserted models by row, for finding many rows' models without a search each.
    func unsavedModelsByRow() -> [RowID: any PersistentModel] {
        Dictionary(insertedModelsArray.map { (PendingOverlay.rowID(of: $0), $0) }, uniquingKeysWith: { first, _ in first })
    }
}
