import FolioStorage

extension ModelContext {
    /// For each inserted model, by position, the number of the stored record whose unique values it
    /// has, if any: the record the insert updates instead of adding one.
    ///
    /// The plans (which indexes answer each constraint) are made here, once per entity, and the values
    /// the constraints compare are read here, on the context's thread: for a model encoded already its
    /// record, for another (one with relationships) its constrained properties. The lookups, which only
    /// read those values and the index, run in ``UniqueMatching``, on several threads for a large save.
    ///
    /// - Parameters:
    ///   - encoded: for each model, at the same position, its stored values if they were encoded already.
    ///   - recordIndex: the container's index, read holding its lock.
    func uniqueMatches(
        for models: [any PersistentModel], encoded encodedModels: [RecordValues?],
        index recordIndex: RecordIndex
    ) throws -> [Int64?] {
        var plans: [UniqueMatching.Plan] = []
        var planOfEntity: [ObjectIdentifier: Int] = [:]
        // The plan of the model type seen last: models come in runs of one type.
        var lastType: (type: ObjectIdentifier, plan: Int?)? = nil
        var planOfModel: [Int?] = []
        planOfModel.reserveCapacity(models.count)
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
                plans.append(
                    UniqueMatching.Plan(
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
        if plans.isEmpty { return [] }
        var constrained = encodedModels
        for (position, model) in models.enumerated() where constrained[position] == nil {
            guard let plan = planOfModel[position] else { continue }
            let read = try ModelRecordCoding.encodedProperties(model, only: plans[plan].names, recordNumber: Self.storedRecordNumber)
            constrained[position] = RecordValues(names: read.names, values: read.values)
        }
        return try UniqueMatching(records: constrained, plans: plans, planOfModel: planOfModel, index: recordIndex).matches()
    }

    /// The record number of a related model that has one (-1 otherwise: a new model matches nothing).
    private static func storedRecordNumber(_ object: AnyObject) -> Int64 {
        (object as? any PersistentModel)?.persistentBackingData.storedRecordNumber ?? -1
    }

    func familyRoot(of entity: Schema.Entity) -> Schema.Entity {
        var root = entity
        while let parent = root.superentity { root = parent }
        return root
    }
}
