import Foundation
@_spi(FolioEngine) import FolioStorage

/// Runs a migration plan's custom stages over the records a git merge kept for them (see
/// `AwaitingStage` and `docs/git.md`): inserts of a clone that went on with the old schema, which only
/// the stages' code can carry into the migrated store.
///
/// The records are put, alone, into a store in memory that records their schema; the plan's way from
/// that schema to the container's then runs there exactly as a migration runs (``StagedMigration``:
/// each stage's `willMigrate` with the old models' context, the inferred changes, `didMigrate` with the
/// new models' context). What that store holds afterwards is what the stages inserted or kept.
enum AwaitingStageRun {
    /// The results of running `plan`'s stages from the schema with checksum `from` to `schema` over
    /// `lines` (all written with that schema); nil when the plan has no schema with that checksum, or
    /// its way from there runs no custom stage (the records then go on awaiting).
    ///
    /// - Throws: what a stage's code throws; what ``StoreMigration/steps(from:to:plan:store:)`` and
    ///   ``StagedMigration/run(_:in:of:path:)`` throw for the way through the plan.
    static func results(
        of lines: [AwaitingStageRecords], from checksum: String, plan: any SchemaMigrationPlan.Type, to schema: Schema,
        description: JSONValue, path: String
    ) throws -> StageResults? {
        guard let version = plan.schemas.first(where: { Schema(versionedSchema: $0).checksum == checksum }) else {
            return nil
        }
        let written = Schema(versionedSchema: version)
        let steps = try StoreMigration.steps(from: RecordedSchema(written), to: schema, plan: plan, store: path)
        guard steps.contains(where: { $0.custom != nil }) else { return nil }

        let records = lines.flatMap(\.awaiting.inserted)
        let staging = Store.inMemory()
        try staging.write(author: nil) { transaction in
            for record in records { try transaction.insert(record) }
            transaction.setSchema(SchemaDescription.make(written))
        }
        try staging.write(author: steps.map(\.name).joined(separator: ", ")) { transaction in
            try StagedMigration.run(steps, in: &transaction, of: staging, path: path)
            transaction.setSchema(description)
        }
        var results: [StoredRecord] = []
        staging.forEachRecord { id, entity, values in results.append(StoredRecord(entity: entity, id: id, values: values)) }
        return StageResults(lines: lines.map(\.transactionID), awaitingIDs: Set(records.map(\.id)), records: results)
    }
}
