import Foundation
@_spi(FolioEngine) import FolioStorage

/// Runs a migration whose steps include custom stages: first on an in-memory copy of the store, where
/// each stage's `willMigrate` and `didMigrate` work with contexts as they would on the store itself;
/// then the store's own (still uncommitted) transaction takes the copy's commits: the steps' record
/// migrations followed by what the stages' code changed. So the store sees one transaction, or nothing
/// if any code throws.
enum StagedMigration {
    /// Stages `steps` on a copy of what `transaction` sees and makes their effect `transaction`'s, which
    /// must be unchanged so far and takes no other change but its schema. `store` is the store being
    /// migrated, `path` names it in errors.
    ///
    /// - Throws: what a stage's code throws; ``FolioError/Code/migrationRequired`` when the stages left
    ///   a record without a value for a property a step added without a default.
    static func run(
        _ steps: [MigrationStep], in transaction: inout WriteTransaction,
        of store: Store, path: String
    ) throws {
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
        // The copy's commits become the transaction: its records are what committing makes the store's.
        try transaction.takeCommits(of: staging, after: startSequence)
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
                    throw FolioError(
                        .migrationRequired,
                        """
                        The store at \(path) cannot be migrated (\(step.name)): after the custom stages, \(added.entity) \
                        record \(record.id) has no value for '\(name)', which is neither optional nor defaulted. Set it \
                        for every \(added.entity) in the stage's didMigrate (and save), or give it a default. The store \
                        was left unchanged.
                        """)
                }
            }
        }
    }
}
