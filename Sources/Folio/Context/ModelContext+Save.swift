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
    /// a save with no changes posts neither. A save ends the ``undoManager``'s event: the changes made
    /// before it are undone as one group, apart from those made after it.
    ///
    /// - Throws: ``FolioError``. After an error nothing was written and the pending changes remain.
    public func save() throws {
        // A save ends the undo manager's event, whether or not there is anything to write.
        endUndoEvent()
        guard hasChanges else { return }
        guard container.configuration.allowsSave else {
            throw FolioError(.saveNotAllowed, "The container's configuration does not allow saving (allowsSave is false)")
        }
        postWillSave()
        let committed = try withContainerLock(refusingReentry: "ModelContext.save()") { state in try save(in: &state) }
        // Observers hear of the transaction after the lock is released: they may fetch.
        container.changeHub.publish()
        postDidSave(committed)
    }

    /// Saves, and returns the transaction written (nil when the changes came to nothing); the caller
    /// holds the container's lock.
    ///
    /// The steps: collect the changes, read the models into records (on this thread, the context's:
    /// nothing else reads a model), write the records as one transaction (which touches no model),
    /// then bring the models in step with what was written.
    private func save(in state: inout ContainerState) throws -> JournalTransaction? {
        try container.syncIndex(in: &state, fromDisk: true)
        try container.checkNotMigratedElsewhere(state)
        // Each step reads the index anew: a subclass added to the schema meanwhile gets its indexes. The
        // first read also serves the lookups the models' code makes (``heldIndex``).
        let nullified = try applyDeleteRules(in: index(in: &state))
        try checkRelationshipCounts()
        let changes = SaveChanges(
            inserted: insertionOrder.compactMap { inserted[$0] }, changed: Array(changed.values),
            deleted: deletionOrder.compactMap { deleted[$0] })
        var records: SaveRecords
        do {
            records = try encodeRecords(of: changes, index: index(in: &state))
        } catch let error as ModelCodingError {
            throw FolioError(.modelCoding, "The changes could not be saved", underlying: error)
        }
        records.updates += nullified
        records.deletes += try recordDeletes(in: index(in: &state))
        let (committed, outcome) = try write(records, in: &state)
        try bringInStep(changes, with: outcome, committed: committed, in: &state)
        // A context that saves in batches keeps the tables' room for the next batch, instead of growing
        // them again step by step; after a very large save it lets the memory go.
        let keepsRoom = insertionOrder.count <= 100_000
        inserted.removeAll(keepingCapacity: keepsRoom)
        insertionOrder.removeAll(keepingCapacity: keepsRoom)
        changed = [:]
        deleted = [:]
        deletionOrder = []
        deletedRecords.removeAll()
        if !deletionUndos.isEmpty { deletionUndos = [:] }
        return committed
    }

    /// Writes `records` to the store as one transaction, and hands it to the index; the caller holds the
    /// container's lock. When subclasses the models do not list were added to the schema since the store
    /// last recorded it, the transaction records the schema too, so that the store never holds records
    /// of an entity it does not describe.
    func write(_ records: SaveRecords, in state: inout ContainerState) throws -> (committed: JournalTransaction?, outcome: SaveOutcome) {
        let indexing = ConcurrentIndexApplication()
        var outcome = SaveOutcome()
        let container = self.container
        let schemaGeneration = container.schemaGenerationToRecord(state)
        let schema = self.schema
        // An index that needs none of its old values for these records lets go of them while the store
        // applies the write, which can then change its table in place.
        let index = state.isIndexLoaded ? container.currentIndex(in: &state) : nil
        let lentAt = index.flatMap { $0.needsNoOldValues(for: records) ? $0.lastSequence : nil }
        if lentAt != nil { index?.lendRecords() }
        let written = Result {
            try container.store.write(author: author) { transaction in
                outcome = try records.write(into: &transaction, schema: schema)
                if schemaGeneration != nil, let description = container.schemaDescription(merging: transaction.schema) {
                    transaction.setSchema(description)
                }
            }
        }
        if case .success = written, let schemaGeneration { container.noteSchemaRecorded(generation: schemaGeneration, in: &state) }
        if let lentAt, let index {
            // Only this write's own transaction, on the lent version, can advance a lent index.
            var advancesAsLent = false
            if case .success(_?) = written { advancesAsLent = outcome.baseSequence == lentAt }
            if !advancesAsLent { index.takeBackRecords(container.store.currentRecords) }
        }
        // A large committed transaction goes to the index on another thread, and the save returns without
        // waiting for it: whatever reads the index next waits instead (making models for the next save, or
        // anything else the caller does first, overlaps with it).
        var indexIsApplying = false
        if case .success(let committedNow?) = written {
            indexIsApplying = indexing.start(
                committed: committedNow, baseSequence: outcome.baseSequence,
                records: container.store.currentRecords,
                index: state.isIndexLoaded ? container.currentIndex(in: &state) : nil)
        }
        if indexIsApplying {
            state.finishIndexingLater(indexing)
            // Another thread changes the index now: lookups read it again, once that thread is done.
            heldIndex = nil
        }
        let committed: JournalTransaction?
        do {
            committed = try written.get()
        } catch let error as FolioError {
            throw error
        } catch {
            throw FolioError(.storage, "The changes could not be saved", underlying: error)
        }
        if !indexIsApplying { try container.syncIndex(in: &state, committed: committed.map { [$0] } ?? []) }
        return (committed, outcome)
    }

    /// Brings the saved models in step with the store, which has their changes: numbers, versions, and
    /// the registry of the context's models.
    private func bringInStep(
        _ changes: SaveChanges, with outcome: SaveOutcome, committed: JournalTransaction?,
        in state: inout ContainerState
    ) throws {
        let version = try committed?.sequence ?? index(in: &state).lastSequence
        let storeIdentity = container.storeIdentity
        for (model, number) in zip(changes.inserted, outcome.numbers) {
            let backing = model.persistentBackingData
            if let previous = registered[number]?.model as? any PersistentModel, previous !== model {
                // An upsert replaced a registered instance: load the merged values into it.
                try? reload(previous, recordNumber: number, in: index(in: &state))
            }
            if !outcome.upsertsIntoSubclassRecords.isEmpty, outcome.upsertsIntoSubclassRecords.contains(number) {
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
        for model in changes.changed {
            model.persistentBackingData.changedProperties = []
            model.persistentBackingData.loadedVersion = version
        }
        for model in changes.deleted {
            let backing = model.persistentBackingData
            if let number = backing.storedRecordNumber { registered[number] = nil }
            backing.context = nil
        }
    }
}
