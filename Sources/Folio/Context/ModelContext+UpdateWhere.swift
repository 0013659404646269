@_spi(FolioEngine) import FolioStorage

extension ModelContext {
    /// Sets attributes of every stored record of a type (and, by default, of its subclasses) that
    /// matches a predicate, as one transaction written now, without making a model of any record: SQL's
    /// `UPDATE … WHERE`, Core Data's batch update.
    ///
    /// ```swift
    /// let changed = try context.update(model: Trip.self, where: #Predicate { $0.destination == "Paris" },
    ///                                  .set(\.price) { $0 + 1 })
    /// ```
    ///
    /// The predicate is answered from the store's records (as a fetch with `includePendingChanges`
    /// false would be); this context's unsaved changes are neither read nor written. The transaction
    /// carries the context's ``author``; its history holds each record's changed values, and results and
    /// history observers hear of it like of a save. Models of the records that contexts hold without
    /// unsaved changes read the new values (this context's at once, other contexts' on their next fetch
    /// or lookup); a model with unsaved changes keeps them, and its next save writes them over the
    /// update. No ``willSave`` or ``didSave`` notification is posted, and the change is not registered
    /// with the ``undoManager``.
    ///
    /// Records whose values the changes leave as they are are not written.
    ///
    /// - Parameters:
    ///   - model: the model type whose records to change.
    ///   - predicate: which records; nil for all of them.
    ///   - includeSubclasses: whether records of the type's subclasses are changed too.
    ///   - changes: the attributes to set (see ``AttributeUpdate``).
    /// - Returns: the number of records changed.
    /// - Throws: ``FolioError`` before anything is written: ``FolioError/Code/invalidModel`` for a key path
    ///   that names a relationship, an `.ephemeral` attribute or no stored attribute;
    ///   ``FolioError/Code/uniquenessViolation`` when two records would share the values of a `.unique`
    ///   attribute or a `#Unique` constraint; ``FolioError/Code/invalidFetchDescriptor`` for a predicate
    ///   the engine cannot evaluate; ``FolioError/Code/modelCoding`` for a stored value that does not
    ///   decode or a new value that does not encode (or the error `transform` threw);
    ///   ``FolioError/Code/saveNotAllowed`` when the container does not allow saving.
    /// - Complexity: O(*m*) after the query, for *m* matching records; O(*n*) more over the entity's *n*
    ///   records when a changed attribute is in a uniqueness constraint.
    @discardableResult
    public func update<T: PersistentModel>(
        model: T.Type, where predicate: Predicate<T>? = nil,
        includeSubclasses: Bool = true, _ changes: AttributeUpdate<T>...
    ) throws -> Int {
        try update(model: model, where: predicate, includeSubclasses: includeSubclasses, changes: changes)
    }

    /// ``update(model:where:includeSubclasses:_:)`` with the changes in an array.
    @discardableResult
    public func update<T: PersistentModel>(
        model: T.Type, where predicate: Predicate<T>? = nil,
        includeSubclasses: Bool = true, changes: [AttributeUpdate<T>]
    ) throws -> Int {
        guard !changes.isEmpty else { return 0 }
        guard container.configuration.allowsSave else {
            throw FolioError(.saveNotAllowed, "The container's configuration does not allow saving (allowsSave is false)")
        }
        let (count, committed) = try withContainerLock(refusingReentry: "ModelContext.update(model:where:)") { state in
            try update(predicate: predicate, includeSubclasses: includeSubclasses, changes, in: &state)
        }
        // Observers hear of the transaction after the lock is released: they may fetch.
        if committed != nil { container.changeHub.publish() }
        return count
    }

    /// The update, under the container's lock: returns how many records changed and the transaction.
    private func update<T: PersistentModel>(
        predicate: Predicate<T>?, includeSubclasses: Bool, _ changes: [AttributeUpdate<T>],
        in state: inout ContainerState
    ) throws -> (Int, JournalTransaction?) {
        try container.syncIndex(in: &state, fromDisk: true)
        try container.checkNotMigratedElsewhere(state)
        let schema = schema(knowing: T.self)
        guard let entity = schema.entitiesByName[T._folioEntityName] else {
            throw FolioError(.invalidModel, "\(T.self) is not in the container's schema; list it in the ModelContainer")
        }
        let targets = try UpdateTarget.sortedByName(changes, entity: entity)
        var descriptor = FetchDescriptor<T>(predicate: predicate)
        descriptor.includePendingChanges = false
        let index = try index(in: &state)
        let rows = try QueryExecutor(plan: try physicalPlan(descriptor, index: index), context: self, index: index).run()

        let records = try updates(of: rows, entity: entity, includeSubclasses: includeSubclasses, targets: targets, index: index)
        guard !records.updates.isEmpty else { return (0, nil) }
        try UniquenessCheck(updates: records.updates, names: Set(targets.map { $0.name }), entity: entity, index: index).run()

        let (committed, _) = try write(records, in: &state)
        refreshRegisteredModels(of: records.updates, in: &state)
        return (records.updates.count, committed)
    }

    /// The changes `targets` make to the records `rows`, each with only the values that change; records
    /// that keep their values are left out. Not generic, so that the loop over a large update runs as
    /// specialized code.
    private func updates(
        of rows: [RowID], entity: Schema.Entity, includeSubclasses: Bool, targets: [UpdateTarget],
        index: RecordIndex
    ) throws -> SaveRecords {
        var records = SaveRecords()
        records.updates.reserveCapacity(rows.count)
        // Closures, not key paths: a key path into a generic type is looked up anew each time it is made.
        let readsCurrentValues = targets.contains { $0.readsCurrentValue }
        let allNamesLayout = RecordLayout.interned(sortedNames: targets.map { $0.name })
        var newValues = ContiguousArray<JSONValue>(repeating: .null, count: targets.count)
        var oldValues = [JSONValue?](repeating: nil, count: targets.count)
        // Records come in runs of one entity and of one layout: the entity, and each target's slot in the
        // layout, are looked up once per run.
        var lastEntity: Schema.Entity?
        var slots: (layout: ObjectIdentifier, slots: [Int?])?
        for id in rows.sorted() {
            guard let entry = index.records[id], includeSubclasses || entry.entity == entity.name else { continue }
            if lastEntity?.name != entry.entity { lastEntity = schema.entitiesByName[entry.entity] }
            guard let recordEntity = lastEntity else { continue }
            let current = readsCurrentValues ? try readExternalValues(entry.values, entity: recordEntity) : entry.values
            if slots?.layout != ObjectIdentifier(current.layout) {
                slots = (ObjectIdentifier(current.layout), targets.map { current.layout.slot(of: $0.name) })
            }
            var changedCount = 0
            for (position, target) in targets.enumerated() {
                // A record written before the attribute existed reads the value the store records for it.
                let old =
                    slots?.slots[position].map { current.values.value(atSlot: $0) }
                    ?? index.storedDefaults.value(of: target.name, in: entry.entity)
                oldValues[position] = old
                do {
                    newValues[position] = try target.newValue(old, target.defaultValue, target.name)
                } catch {
                    throw FolioError(.modelCoding, "\(entry.entity) record \(id) could not be updated", underlying: error)
                }
                if newValues[position] != old { changedCount += 1 }
            }
            guard changedCount > 0 else { continue }
            let values: RecordValues
            if changedCount == targets.count {
                values = RecordValues(layout: allNamesLayout, values: newValues)
            } else {
                // Only the values that change are written, so that the history lists only those.
                var changed: [String: JSONValue] = [:]
                for (position, target) in targets.enumerated() where newValues[position] != oldValues[position] {
                    changed[target.name] = newValues[position]
                }
                values = RecordValues(changed)
            }
            if records.externalStorageNames[entry.entity] == nil, !recordEntity.externalStorageAttributeNames.isEmpty {
                records.externalStorageNames[entry.entity] = recordEntity.externalStorageAttributeNames
            }
            records.updates.append(SaveRecords.Update(entity: entry.entity, id: id, values: values))
        }
        return records
    }

    /// Loads the new values into the models this context holds of updated records, unless they have
    /// unsaved changes; the caller holds the container's lock.
    private func refreshRegisteredModels(of updates: [SaveRecords.Update], in state: inout ContainerState) {
        guard !registered.isEmpty, let index = try? index(in: &state) else { return }
        for update in updates {
            guard let model = registered[update.id]?.model as? any PersistentModel, !model.persistentBackingData.hasChanges else { continue }
            try? reload(model, recordNumber: update.id, in: index)
        }
    }
}

/// One attribute an update sets, checked against the schema.
private struct UpdateTarget {
    let name: String
    let defaultValue: Any?
    let readsCurrentValue: Bool
    /// ``AttributeUpdate/newValue``.
    let newValue: (_ current: JSONValue?, _ defaultValue: Any?, _ name: String) throws -> JSONValue

    /// The targets of `changes`, by name.
    ///
    /// - Throws: ``FolioError/Code/invalidModel`` when a key path names no stored attribute, or when two
    ///   changes set one attribute.
    static func sortedByName<Model>(_ changes: [AttributeUpdate<Model>], entity: Schema.Entity) throws -> [UpdateTarget] {
        let targets = try changes.map { try UpdateTarget(change: $0, entity: entity) }.sorted { $0.name < $1.name }
        for (first, second) in zip(targets, targets.dropFirst()) where first.name == second.name {
            throw FolioError(.invalidModel, "An update of \(entity.name) sets \(first.name) twice; set each attribute once")
        }
        return targets
    }

    /// - Throws: ``FolioError/Code/invalidModel`` when the key path names no stored attribute.
    init<Model>(change: AttributeUpdate<Model>, entity: Schema.Entity) throws {
        guard let name = entity.propertyNamesByKeyPath[change.keyPath] else {
            throw FolioError(.invalidModel, "An update of \(entity.name) names a key path that is not a stored property of \(entity.name)")
        }
        if change.isRelationship || entity.relationshipsByName[name] != nil {
            throw FolioError(
                .invalidModel,
                "\(entity.name).\(name) is a relationship; an update by predicate sets attributes only: change relationships through models")
        }
        guard let attribute = entity.attributesByName[name] else {
            throw FolioError(.invalidModel, "\(entity.name).\(name) is not a stored attribute")
        }
        if attribute.isTransient {
            throw FolioError(.invalidModel, "\(entity.name).\(name) is .ephemeral: it is never stored, so an update by predicate cannot set it")
        }
        self.name = name
        self.defaultValue = attribute.defaultValue
        self.readsCurrentValue = change.readsCurrentValue
        self.newValue = change.newValue
    }
}
