@_spi(FolioEngine) import FolioStorage

extension ModelContext {
    /// Cascades deletes, checks `.deny` rules and nullifies inverses of the models and the records to
    /// delete, and returns the changes to records without models that nullifying makes.
    ///
    /// Records deleted without models follow their rules record by record
    /// (``applyRecordDeleteRules(in:)``) until one of them, or a record it relates to, has a model in this
    /// context: that record's model is deleted instead, and the models' rules run again, so that the
    /// models and the records the save writes never disagree. `index` is the container's, read holding
    /// its lock.
    func applyDeleteRules(in index: RecordIndex) throws -> [SaveRecords.Update] {
        deleteRegisteredRecordsAsModels()
        // Most schemas have few relationships and many have none: then no deleted model has a rule to
        // apply, and looking each one up (a hash and a cache miss per model in a large delete) is waste.
        guard schema.entities.contains(where: { !$0.relationshipsByName.isEmpty }) else { return [] }
        while true {
            try applyModelDeleteRules()
            if let nullified = try applyRecordDeleteRules(in: index) { return nullified }
        }
    }

    /// Cascades deletes, checks `.deny` rules and nullifies inverses of the models to delete.
    private func applyModelDeleteRules() throws {
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
                    for target in related { deleteCascading(target, from: model) }
                case .deny:
                    if !related.isEmpty {
                        let names = related.prefix(5).map { "\($0.persistentModelID)" }.joined(separator: ", ")
                        throw FolioError(
                            .deleteDenied,
                            "\(model.persistentModelID) cannot be deleted: its '\(relationship.name)' relationship has the .deny rule and still refers to \(names)\(related.count > 5 ? " and \(related.count - 5) more" : "")"
                        )
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
                    throw FolioError(
                        .invalidModel,
                        "\(model.persistentModelID).\(relationship.name) refers to \(count) models, fewer than its minimumModelCount of \(minimum)")
                }
                if maximum > 0 && count > maximum {
                    throw FolioError(
                        .invalidModel,
                        "\(model.persistentModelID).\(relationship.name) refers to \(count) models, more than its maximumModelCount of \(maximum)")
                }
            }
        }
    }
}
