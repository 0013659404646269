/// Finds the steps that bring a store written by another schema to the container's schema: the way
/// through the plan from the store's version to the models' (its stages, and the steps Folio infers
/// between versions no stage joins), or, without a plan, the one step Folio infers.
enum StoreMigration {
    /// The steps from the schema the store records to `schema`, in the order they run; empty when the
    /// stored shape already is `schema`'s.
    ///
    /// - Throws: ``FolioError/Code/migrationRequired`` when a step needs a change Folio cannot infer,
    ///   naming each change and the stage to write; ``FolioError/Code/schemaMismatch`` when the plan does
    ///   not know the store's version (a newer store, or a shipped version's models changed) or has no
    ///   stage down to the models from a newer store; ``FolioError/Code/invalidSchema`` for a plan that
    ///   cannot be used.
    static func steps(
        from recorded: RecordedSchema, to schema: Schema, plan: (any SchemaMigrationPlan.Type)?,
        store: String
    ) throws -> [MigrationStep] {
        guard let plan else { return try stepsWithoutPlan(from: recorded, to: schema, store: store) }
        let schemas = plan.schemas
        let source: Int
        do {
            try MigrationPlanning.validate(plan)
            source = try MigrationPlanning.sourceIndex(of: recorded, in: schemas, store: store)
        } catch let error as FolioError where error.code == .schemaMismatch && plan.stages.isEmpty {
            // A plan without stages runs no staged migration in SwiftData: a store its schemas do not
            // know is migrated as without a plan, by the changes inferred from the store's own schema.
            return try stepsWithoutPlan(from: recorded, to: schema, store: store)
        }
        // The models are one of the plan's versions, or else they differ from the newest in what Folio
        // infers (an added optional property): that difference is one more inferred step.
        let matchedTarget = MigrationPlanning.targetIndex(of: schema, in: schemas)
        guard let target = matchedTarget ?? MigrationPlanning.newestIndex(of: schemas) else { return [] }
        var steps: [MigrationStep] = []
        for planned in try MigrationPlanning.route(of: plan, from: source, to: target, store: store) {
            steps.append(try step(for: planned, in: plan, store: store))
        }
        let reached = steps.isEmpty ? recorded : RecordedSchema(Schema(versionedSchema: schemas[target]))
        if matchedTarget == nil, reached.checksum != schema.checksum {
            steps.append(
                try inferredStep(
                    from: reached, to: schema, fromName: reached.version ?? "(no version recorded)",
                    toName: schema.version.description, store: store))
        }
        return steps
    }

    /// What one step of the way through a plan does to the records: a stage's changes (and code), or
    /// the changes between two adjacent versions that no stage joins, which must then be lightweight.
    private static func step(
        for planned: PlanStep, in plan: any SchemaMigrationPlan.Type,
        store: String
    ) throws -> MigrationStep {
        let from = planned.fromVersion, to = planned.toVersion
        let fromSchema = Schema(versionedSchema: from), toSchema = Schema(versionedSchema: to)
        let name = "\(MigrationPlanning.label(from)) → \(MigrationPlanning.label(to))"
        let changes = SchemaDifference.changes(from: RecordedSchema(fromSchema), to: toSchema)
        switch planned {
        case .inferred:
            try SchemaDifference.requireLightweight(changes, from: from, to: to, noStageIn: plan, store: store)
            return MigrationStep(name: name, changes: changes)
        case .stage(.lightweight):
            try SchemaDifference.requireLightweight(
                changes, from: MigrationPlanning.label(from),
                to: MigrationPlanning.label(to), store: store)
            return MigrationStep(name: name, changes: changes)
        case .stage(.custom(_, _, let willMigrate, let didMigrate)):
            try requireStoredShapeKept(changes, stage: name, store: store)
            return MigrationStep(
                name: name, changes: changes,
                custom: MigrationStep.CustomStage(
                    from: fromSchema, to: toSchema, willMigrate: willMigrate, didMigrate: didMigrate))
        }
    }

    /// The one step Folio infers from the store's schema to the models' when there is no plan.
    private static func stepsWithoutPlan(
        from recorded: RecordedSchema, to schema: Schema,
        store: String
    ) throws -> [MigrationStep] {
        if recorded.checksum == schema.checksum { return [] }
        // Models that keep none of the store's entities would have every record deleted: far more
        // likely the wrong store than the next version of the app.
        let kept = Set(recorded.entities.keys).intersection(schema.entities.map(\.name))
        if kept.isEmpty, !recorded.entities.isEmpty {
            let stored = recorded.entities.keys.sorted().joined(separator: ", ")
            let models = schema.entities.map(\.name).sorted().joined(separator: ", ")
            throw FolioError(
                .schemaMismatch,
                """
                The store at \(store) records the entities \(stored), and the models (\(models)) keep none of \
                them: it is not this app's store. Open it with its own models, or, if the app really \
                replaced all of its models, remove the store. Nothing was changed.
                """)
        }
        // An older app opening a newer store would delete what the newer models added.
        if let stored = recorded.parsedVersion, stored > schema.version {
            throw FolioError(
                .schemaMismatch,
                """
                The store at \(store) was written by schema version \(stored), newer than the models' \
                \(schema.version); it was left unchanged. Open it with the app version that wrote it.
                """)
        }
        var from = recorded.version ?? "(no version recorded)"
        var to = schema.version.description
        if from == to {
            // Models changed without a new version identifier: the checksums tell the two apart.
            from += " (\(recorded.checksum.prefix(8)))"
            to += " (\(schema.checksum.prefix(8)))"
        }
        return [try inferredStep(from: recorded, to: schema, fromName: from, toName: to, store: store)]
    }

    /// Refuses a custom stage whose changes Folio cannot carry out even with the stage's code: a change
    /// of an entity's superentity.
    private static func requireStoredShapeKept(_ changes: [SchemaChange], stage: String, store: String) throws {
        let blocking = changes.filter { !$0.isFilledByCustomStage }
        guard !blocking.isEmpty else { return }
        let list = blocking.map { "  \($0)" }.joined(separator: "\n")
        throw FolioError(
            .migrationRequired,
            """
            The store at \(store) cannot be migrated by the custom stage \(stage): Folio does not move records \
            to another superentity, even in a custom stage:
            \(list)
            Declare the entity anew under its new superentity, copy the records across in that stage's \
            didMigrate, and remove the old entity in a later version. The store was left unchanged.
            """)
    }

    /// The step that carries out the changes from `old` to `new`, which must all be lightweight.
    private static func inferredStep(
        from old: RecordedSchema, to new: Schema, fromName: String, toName: String,
        store: String
    ) throws -> MigrationStep {
        let changes = SchemaDifference.changes(from: old, to: new)
        try SchemaDifference.requireLightweight(changes, from: fromName, to: toName, store: store)
        return MigrationStep(name: "\(fromName) → \(toName)", changes: changes)
    }
}
