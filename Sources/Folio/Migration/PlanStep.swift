/// One step of the way through a ``SchemaMigrationPlan`` from the store's version to the models': one
/// of the plan's stages, or, between two adjacent versions that no stage joins, the lightweight step
/// Folio infers from the two schemas.
package enum PlanStep {
    case stage(MigrationStage)
    case inferred(from: any VersionedSchema.Type, to: any VersionedSchema.Type)

    /// The versioned schema the step starts from.
    package var fromVersion: any VersionedSchema.Type {
        switch self {
        case .stage(let stage): return stage.fromVersion
        case .inferred(let from, _): return from
        }
    }

    /// The versioned schema the step ends at.
    package var toVersion: any VersionedSchema.Type {
        switch self {
        case .stage(let stage): return stage.toVersion
        case .inferred(_, let to): return to
        }
    }

    /// `lightweight` or `custom` for a stage, `inferred` for a step no stage declares.
    package var kindName: String {
        switch self {
        case .stage(let stage): return stage.kindName
        case .inferred: return "inferred"
        }
    }
}

extension MigrationPlanning {
    /// The steps from `plan.schemas[source]` to `plan.schemas[target]`, in the order they run.
    ///
    /// Versions are ordered by their version identifiers, whatever order `schemas` lists them in.
    /// Upward, a version that a stage leaves upward (to a version not past the target) takes that stage;
    /// any other takes the step Folio infers to the next version, as SwiftData infers lightweight
    /// migrations no stage declares. Downward, every version on the way needs a stage that leaves it
    /// downward: Folio never infers a step down, which would silently drop what the newer version
    /// stored, and SwiftData refuses to migrate a store backwards without a stage.
    ///
    /// - Throws: what ``validate(_:)`` throws; ``FolioError/Code/schemaMismatch`` when the store is
    ///   newer than the models and no stage leads down to them, naming the stage to write.
    package static func route(
        of plan: any SchemaMigrationPlan.Type, from source: Int, to target: Int,
        store: String
    ) throws -> [PlanStep] {
        try validate(plan)
        let schemas = plan.schemas
        let order = schemas.indices.sorted { schemas[$0].versionIdentifier < schemas[$1].versionIdentifier }
        var rank: [Int: Int] = [:]
        for (place, index) in order.enumerated() { rank[index] = place }
        func place(_ type: any VersionedSchema.Type) -> Int? { position(of: type, in: schemas).flatMap { rank[$0] } }
        guard let start = rank[source], let end = rank[target] else { return [] }

        var steps: [PlanStep] = []
        var current = start
        while current != end {
            let upward = current < end
            let leaving = plan.stages.first { stage in
                guard place(stage.fromVersion) == current, let to = place(stage.toVersion) else { return false }
                return upward ? (to > current && to <= end) : (to < current && to >= end)
            }
            if let stage = leaving, let next = place(stage.toVersion) {
                steps.append(.stage(stage))
                current = next
            } else if upward {
                steps.append(.inferred(from: schemas[order[current]], to: schemas[order[current + 1]]))
                current += 1
            } else {
                throw backwardRefusal(
                    plan, store: store, source: schemas[source], target: schemas[target],
                    from: schemas[order[current]], to: schemas[order[current - 1]])
            }
        }
        return steps
    }

    /// The error for a store newer than the models with no stage down from `from`.
    private static func backwardRefusal(
        _ plan: any SchemaMigrationPlan.Type, store: String,
        source: any VersionedSchema.Type, target: any VersionedSchema.Type,
        from: any VersionedSchema.Type, to: any VersionedSchema.Type
    ) -> FolioError {
        FolioError(
            .schemaMismatch,
            """
            The store at \(store) was written by \(label(source)), newer than the models that open it \
            (\(label(target))), and the migration plan \(String(describing: plan)) has no stage down from \
            \(label(from)). A store is not migrated to an older version without a stage that says how (SwiftData \
            refuses it too: "A store file cannot be migrated backwards with staged migration"). The store was \
            left unchanged. Open it with the app version that wrote it, or add a \
            MigrationStage.custom(fromVersion: \(String(describing: from)).self, toVersion: \
            \(String(describing: to)).self, willMigrate:didMigrate:) to the plan's stages.
            """)
    }
}
