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
    ///   a record without a value for a property a step added without a default.
    static func run(_ steps: [MigrationStep], in transaction: inout WriteTransaction,
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
        try checkRequiredValues(in: staging, after: steps, path: path)

        for step in steps {
            for migration in step.migrations { try transaction.migrate(migration) }
        }
        try addChanges(of: staging, after: startSequence, to: &transaction)
        // The copy's records are now what the transaction makes of the store's: committing takes them.
        transaction.adoptState(of: staging)
    }

    /// Refuses the migration when a record lacks a value for a property a step added without a default
    /// (which only a stage's `didMigrate` can fill in).
    private static func checkRequiredValues(in staging: Store, after steps: [MigrationStep], path: String) throws {
        for (index, step) in steps.enumerated() {
            for added in step.addedRequired {
                // The property's name once every later step has run; none if a later step removed it.
                var name: String? = added.property
                for later in steps[(index + 1)...] {
                    for migration in later.migrations where migration.entity == added.entity {
                        if migration.removesEntity || name.map(migration.removedMembers.contains) == true { name = nil }
                        name = name.map { migration.renamedMembers[$0] ?? $0 }
                    }
                }
                guard let name else { continue }
                for record in staging.records(of: added.entity) where record.values[name] == nil {
                    throw FolioError(.migrationRequired, """
                        The store at \(path) cannot be migrated (\(step.name)): after the custom stages, \(added.entity) \
                        record \(record.id) has no value for '\(name)', which is neither optional nor defaulted. Set it \
                        for every \(added.entity) in the stage's didMigrate (and save), or give it a default. The store \
                        was left unchanged.
                        """)
                }
            }
        }
    }

    /// Adds to `transaction` (whose records already went through the steps' record migrations) what the
    /// stages' saves did, by replaying the staged transactions after `startSequence` in order: their
    /// inserts, changed values and deletes (with tombstones), each in the names of the last migration,
    /// and the blobs the stages wrote.
    private static func addChanges(of staging: Store, after startSequence: UInt64, to transaction: inout WriteTransaction) throws {
        for data in staging.blobsWrittenInMemory.values { _ = try transaction.putBlob(data) }
        // The identifiers the stages allocated are allocated again, in order: records they inserted keep
        // theirs, and relationships to them stay right.
        var next = transaction.nextAllocatedID
        let stagedNext = staging.nextAllocatedID
        while next < stagedNext { next = transaction.allocateID() + 1 }

        let staged = try staging.history(after: startSequence)
        // For each staged transaction, the record migrations committed after it (the names its values
        // must be carried through); for the ones after the last migration, none.
        var migrationsAfter: [[RecordMigration]] = Array(repeating: [], count: staged.count)
        var later: [RecordMigration] = []
        for position in staged.indices.reversed() {
            migrationsAfter[position] = later
            later = staged[position].migrations + later
        }
        for (position, committed) in staged.enumerated() where committed.changedRecordCount > 0 {
            let carried = migrationsAfter[position]
            // Values in the names the records have now; nil for a record whose entity a migration removed.
            func current(_ record: StoredRecord) -> RecordValues? {
                var values = record.values
                for migration in carried where migration.entity == record.entity {
                    if migration.removesEntity { return nil }
                    values = migrated(values, by: migration)
                }
                return values
            }
            for record in committed.inserted {
                guard let values = current(record) else { continue }
                try transaction.insert(entity: record.entity, id: record.id, values: values)
            }
            for record in committed.updated {
                guard let values = current(record), transaction.entity(ofRecord: record.id) != nil else { continue }
                try transaction.update(entity: record.entity, id: record.id, values: values)
            }
            for record in committed.deleted where transaction.entity(ofRecord: record.id) != nil {
                try transaction.delete(entity: record.entity, id: record.id, tombstone: record.tombstone)
            }
        }
    }

    /// `values` with `migration`'s members removed and renamed, as the storage engine migrates a record.
    private static func migrated(_ values: RecordValues, by migration: RecordMigration) -> RecordValues {
        var dictionary = values.dictionary
        for member in migration.removedMembers { dictionary[member] = nil }
        // All old names go first, so that a swap (a → b, b → a) loses nothing.
        var renamed = dictionary
        for old in migration.renamedMembers.keys { renamed[old] = nil }
        for (old, new) in migration.renamedMembers {
            if let value = dictionary[old] { renamed[new] = value }
        }
        return RecordValues(renamed)
    }
}
