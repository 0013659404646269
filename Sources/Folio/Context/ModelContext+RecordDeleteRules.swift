@_spi(FolioEngine) import FolioStorage

/// Delete rules for records deleted without models (``ModelContext/deletedRecords``), applied to their
/// stored values as ``ModelContext/applyDeleteRules(in:)`` applies them to models. A relationship is
/// stored as record numbers: a number or `null` for a to-one relationship, an array for a to-many one.
extension ModelContext {
    /// Deletes as models the records to delete that this context holds a model of (fetched, or reached
    /// through a relationship, since they were deleted): the model then shows it is deleted, and its
    /// rules run on what the model holds, unsaved changes included.
    func deleteRegisteredRecordsAsModels() {
        guard !deletedRecords.isEmpty, !registered.isEmpty else { return }
        for id in deletedRecords.ids {
            guard let model = registered[id]?.model as? any PersistentModel else { continue }
            deletedRecords.remove(id)
            deleteModel(model)
        }
    }

    /// Applies the delete rules of the records to delete, in deletion order (the records `.cascade`
    /// adds included), and returns the records nullifying changes, each with its new relationship
    /// values; nil when a record to delete, or a record it relates to, has a model in this context
    /// (that record's model was deleted instead, and the models' rules must run again). The caller holds
    /// the container's lock.
    ///
    /// - Throws: ``FolioError/Code/deleteDenied`` when a `.deny` relationship still refers to a record
    ///   that is not deleted.
    func applyRecordDeleteRules(in index: RecordIndex) throws -> [SaveRecords.Update]? {
        guard !deletedRecords.isEmpty else { return [] }
        let records = index.records
        var nullified: [Int64: (entity: String, values: [String: JSONValue])] = [:]
        var position = 0
        // `.cascade` appends to the deletion order as it goes.
        while position < deletedRecords.order.count {
            let id = deletedRecords.order[position]
            position += 1
            guard let entityName = deletedRecords.entity(of: id), let entity = entity(named: entityName),
                !entity.relationshipsByName.isEmpty, let values = records.values(of: id)
            else { continue }
            if registered[id] != nil {
                deleteRegisteredRecordsAsModels()
                return nil
            }
            for relationship in entity.relationshipsByName.values.sorted(by: { $0.name < $1.name }) {
                let related = Self.recordNumbers(in: values[relationship.name]).filter { !isDeleted(recordNumber: $0) }
                guard !related.isEmpty, relationship.deleteRule != .noAction else { continue }
                if related.contains(where: { registered[$0] != nil }) {
                    // A related model may hold unsaved changes this record's rules must see: its model decides.
                    if let model = try loadedModel(forRecordNumber: id, loadingValues: false, in: records, index: index) {
                        deletedRecords.remove(id)
                        deleteModel(model)
                        return nil
                    }
                }
                switch relationship.deleteRule {
                case .cascade:
                    for target in related {
                        if let targetEntity = records.entity(of: target) { deletedRecords.insert(target, entity: targetEntity) }
                    }
                case .deny:
                    let names = related.prefix(5).compactMap { target in records.entity(of: target).map { "\($0) record \(target)" } }
                    throw FolioError(
                        .deleteDenied,
                        "\(entityName) record \(id) cannot be deleted: its '\(relationship.name)' relationship has the .deny rule and still refers to \(names.joined(separator: ", "))\(related.count > 5 ? " and \(related.count - 5) more" : "")"
                    )
                case .nullify:
                    guard let inverse = relationship.inverseName else { continue }
                    for target in related {
                        guard let targetEntity = records.entity(of: target), let targetValues = records.values(of: target) else { continue }
                        var change = nullified[target] ?? (targetEntity, [:])
                        let current = change.values[inverse] ?? targetValues[inverse]
                        change.values[inverse] = Self.removing(id, from: current)
                        nullified[target] = change
                    }
                case .noAction:
                    continue
                }
            }
        }
        return nullified.keys.sorted().compactMap { target in
            guard let change = nullified[target], !isDeleted(recordNumber: target) else { return nil }
            return SaveRecords.Update(entity: change.entity, id: target, values: RecordValues(change.values))
        }
    }

    /// The deletes of the records deleted without models, each with the values its history keeps (its
    /// `.preserveValueOnDeletion` attributes); the caller holds the container's lock.
    func recordDeletes(in index: RecordIndex) throws -> [SaveRecords.Delete] {
        guard !deletedRecords.isEmpty else { return [] }
        let records = index.records
        var deletes: [SaveRecords.Delete] = []
        deletes.reserveCapacity(deletedRecords.count)
        var lastEntity: (name: String, preserved: Set<String>)?
        for id in deletedRecords.ids {
            guard let entityName = deletedRecords.entity(of: id), let values = records.values(of: id) else { continue }
            if lastEntity?.name != entityName {
                lastEntity = (entityName, entity(named: entityName)?.preservedAttributeNames ?? [])
            }
            var tombstone: [String: JSONValue] = [:]
            for name in lastEntity?.preserved ?? [] {
                if let value = values[name] { tombstone[name] = value }
            }
            deletes.append(SaveRecords.Delete(entityName: entityName, id: id, tombstone: tombstone))
        }
        return deletes
    }

    /// Whether the record is deleted at this save, by predicate or as a model.
    private func isDeleted(recordNumber id: Int64) -> Bool {
        if deletedRecords.contains(id) { return true }
        guard let model = registered[id]?.model as? any PersistentModel else { return false }
        return deleted[ObjectIdentifier(model)] != nil
    }

    /// The record numbers a stored relationship value holds.
    static func recordNumbers(in value: JSONValue?) -> [Int64] {
        switch value {
        case .int(let number)?: return [number]
        case .array(let elements)?: return elements.compactMap { if case .int(let number) = $0 { number } else { nil } }
        default: return []
        }
    }

    /// A stored relationship value without the record `id`: `null` for a to-one relationship that held
    /// it, the array without it for a to-many one.
    static func removing(_ id: Int64, from value: JSONValue?) -> JSONValue {
        switch value {
        case .int(let number)?: return number == id ? .null : .int(number)
        case .array(let elements)?: return .array(elements.filter { $0 != .int(id) })
        default: return value ?? .null
        }
    }
}
