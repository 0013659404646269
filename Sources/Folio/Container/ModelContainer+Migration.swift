import Foundation
@_spi(FolioEngine) import FolioStorage

/// Opening a store written by another schema: the container migrates it to its own schema before it
/// reads a record, in one transaction (see `docs/migration.md`).
extension ModelContainer {
    /// Brings the store to this container's schema when it records another one: finds the steps (the
    /// way through the plan, or the step Folio infers without one), runs custom stages' code on a
    /// staging copy (``StagedMigration``), checks what the steps add (uniqueness) against the migrated
    /// records, and commits everything with the new schema as one transaction whose author names the
    /// steps. A failure leaves the store as it was.
    ///
    /// - Throws: what ``StoreMigration/steps(from:to:plan:store:)`` throws; what a custom stage's code throws;
    ///   ``FolioError/Code/migrationRequired`` when an added uniqueness constraint finds duplicates or
    ///   the container does not allow saving; ``FolioError/Code/storage`` when the write fails.
    func migrateStoreIfNeeded(to description: JSONValue) throws {
        guard let stored = store.schema, stored != description else { return }
        let path = configuration.url.path
        let recorded: RecordedSchema
        do {
            recorded = try RecordedSchema(parsing: stored)
        } catch {
            throw FolioError(
                .schemaMismatch, "The schema recorded in the store at \(path) cannot be read, so the store cannot be migrated", underlying: error)
        }
        // A plan's versions list the models that wrote the store; subclasses stored without being
        // listed (kept by the container's schema, see `Schema+UnlistedEntities.swift`) are no part of
        // them, and its stages leave their records as they are.
        let source = migrationPlan == nil ? recorded : recorded.listedOnly
        let steps = try StoreMigration.steps(from: source, to: schema, plan: migrationPlan, store: path)
        guard !steps.isEmpty else { return }
        let names = steps.map(\.name).joined(separator: ", ")
        guard configuration.allowsSave else {
            throw FolioError(
                .migrationRequired,
                """
                The store at \(path) needs migrating (\(names)), which a container that does not allow saving \
                cannot do; open it once with a configuration that allows saving.
                """)
        }
        let defaults = StoredDefaults(schema: schema)
        do {
            try store.write(author: "migration \(names)") { transaction in
                if steps.contains(where: { $0.custom != nil }) {
                    try StagedMigration.run(steps, in: &transaction, of: store, path: path)
                } else {
                    for step in steps {
                        for migration in step.migrations { try transaction.migrate(migration) }
                    }
                }
                try Self.checkAddedUniqueness(of: steps, in: transaction, defaults: defaults, store: path)
                transaction.setSchema(description)
            }
        } catch let error as StorageError {
            throw FolioError(.storage, "The store at \(path) could not be migrated (\(names)); it was left unchanged", underlying: error)
        }
        // Anything else (a FolioError, an error a stage's code threw) is passed on as it is.
    }

    /// Refuses the migration when a uniqueness constraint a step adds finds two migrated records with
    /// equal values (a missing value reads its declared default).
    private static func checkAddedUniqueness(
        of steps: [MigrationStep], in transaction: WriteTransaction,
        defaults: StoredDefaults, store: String
    ) throws {
        for (index, step) in steps.enumerated() {
            for added in step.addedUniqueness {
                // The names the constraint's properties have once every later step has run.
                var properties: [String]? = added.properties
                for later in steps[(index + 1)...] {
                    guard let migration = later.migrations.first(where: { $0.entity == added.entity }) else { continue }
                    if migration.removesEntity || properties?.contains(where: migration.removedMembers.contains) == true {
                        properties = nil
                    }
                    properties = properties?.map { migration.renamedMembers[$0] ?? $0 }
                }
                guard let properties else { continue }
                var first: [[JSONValue]: Int64] = [:]
                for record in transaction.records(of: added.entity) {
                    let key = properties.map { record.values[$0] ?? defaults.value(of: $0, in: added.entity) ?? .null }
                    if let earlier = first[key] {
                        let shown = zip(properties, key).map { property, value in
                            "\(property) = \((try? CanonicalJSONWriter().string(value)) ?? "\(value)")"
                        }.joined(separator: ", ")
                        throw FolioError(
                            .migrationRequired,
                            """
                            The store at \(store) cannot be migrated (\(step.name)): it adds uniqueness of \
                            \(added.entity) (\(properties.joined(separator: ", "))), and \(added.entity) records \
                            \(earlier) and \(record.id) both have \(shown). Remove or merge the duplicates in the \
                            willMigrate of a MigrationStage.custom for this step. The store was left unchanged.
                            """)
                    }
                    first[key] = record.id
                }
            }
        }
    }
}
