import Foundation
@_spi(FolioEngine) import FolioStorage

/// Runs a migration whose steps include custom stages: first on an in-memory copy of the store, where
/// each stage's `willMigrate` and `didMigrate` work with contexts as they would on the store itself;
/// then, in the store's own (still uncommitted) transaction, the steps' record migrations followed by
/// what the stages' code changed. So the store sees one transaction, or nothing if any code throws.
enum StagedMigration {
    /// Stages `steps` on a copy of what `transaction` sees and adds their effect to `transaction`, which
    /// must be unchanged so far. `store` is the store being migrated, `path` names it in errors.
    ///
    /// - Throws: what a stage's code throws; ``FolioError/Code/migrationRequired`` when the stages left
    ///   a record without a value that `schema` requires.
    static func run(_ steps: [MigrationStep], to schema: Schema, in transaction: inout WriteTransaction,
                    of store: Store, path: String) throws {
        let staging = try store.stagingCopy(of: transaction)
        let startSequence = staging.lastSequence
        for step in steps {
            if let stage = step.custom, let willMigrate = stage.willMigrate {
                try willMigrate(ModelContext(try ModelContainer(stagingSchema: stage.from, store: staging)))
            }
            if !step.migrations.isEmpty {
                try staging.write(author: step.name) { staged in
                    for migration in step.migrations { try staged.migrate(migration) }
                }
            }
            if let stage = step.custom, let didMigrate = stage.didMigrate {
                try didMigrate(ModelContext(try ModelContainer(stagingSchema: stage.to, store: staging)))
            }
        }
        try checkRequiredValues(in: staging, schema: schema, path: path)

        let entities = Set(store.entityNames).union(staging.entityNames)
        for step in steps {
            for migration in step.migrations { try transaction.migrate(migration) }
        }
        try addChanges(of: staging, after: startSequence, startingAt: store.nextID, entities: entities, to: &transaction)
    }

    /// Refuses the migration when a record lacks a value `schema` requires: a property the stages added
    /// without filling it in.
    private static func checkRequiredValues(in staging: Store, schema: Schema, path: String) throws {
        for entity in schema.entities {
            let required = SchemaCheck.requiredProperties(of: entity)
            guard !required.isEmpty else { continue }
            for record in staging.records(of: entity.name) {
                for property in required where record.values[property.name] == nil {
                    throw FolioError(.migrationRequired, """
                        The store at \(path) cannot be migrated: after the custom stages, \(entity.name) record \
                        \(record.id) has no value for '\(property.name)', which is neither optional nor defaulted. \
                        Set it for every \(entity.name) in a stage's didMigrate (and save), or give it a default. \
                        The store was left unchanged.
                        """)
                }
            }
        }
    }

    /// Adds to `transaction` (whose records already went through the steps' record migrations) the
    /// difference between what it sees and the staged records: inserts, changed values, deletes (with the
    /// tombstones of the staged transactions after `startSequence`), and the blobs the stages wrote.
    private static func addChanges(of staging: Store, after startSequence: UInt64, startingAt firstNewID: Int64, entities: Set<String>,
                                   to transaction: inout WriteTransaction) throws {
        for data in staging.blobsWrittenInMemory.values { _ = try transaction.putBlob(data) }
        // The identifiers the stages allocated are allocated again, in order: records they inserted keep
        // theirs, and relationships to them stay right.
        var next = firstNewID
        while next < staging.nextID { next = transaction.allocateID() + 1 }

        var tombstones: [Int64: [String: JSONValue]] = [:]
        for staged in try staging.history(after: startSequence) {
            for deleted in staged.deleted { tombstones[deleted.id] = deleted.tombstone }
        }
        for entity in entities.sorted() {
            for record in transaction.records(of: entity) where staging.record(id: record.id) == nil {
                try transaction.delete(entity: entity, id: record.id, tombstone: tombstones[record.id] ?? [:])
            }
        }
        var changes: [(entity: String, id: Int64, values: [String: JSONValue], isInsert: Bool)] = []
        staging.forEachRecord { id, entity, values in
            guard let current = transaction.record(id: id), current.entity == entity else {
                changes.append((entity, id, values.dictionary, true))
                return
            }
            var changed: [String: JSONValue] = [:]
            for (key, value) in values where current.values[key] != value { changed[key] = value }
            if !changed.isEmpty { changes.append((entity, id, changed, false)) }
        }
        for change in changes {
            if change.isInsert {
                try transaction.insert(entity: change.entity, id: change.id, values: change.values)
            } else {
                try transaction.update(entity: change.entity, id: change.id, values: change.values)
            }
        }
    }
}
