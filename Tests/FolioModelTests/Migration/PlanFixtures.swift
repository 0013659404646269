import Foundation
import Folio

// Plans for the version matching and stage ordering tests, right and wrong, over the journal schemas.

enum JournalSchemaV4: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(4, 0, 0) }
    static var models: [any PersistentModel.Type] { [JournalSchemaV3.Entry.self] }
}

/// A fourth version mistakenly declared with the third's version identifier.
enum JournalSchemaV4SharingV3: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(3, 0, 0) }
    static var models: [any PersistentModel.Type] { [JournalSchemaV3.Entry.self] }
}

/// Two versions that differ only in an index, so they share a checksum.
enum SampleSchemaV1: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(1, 0, 0) }
    static var models: [any PersistentModel.Type] { [ChecksumModelsA.Sample.self, ChecksumPart.self] }
}

enum SampleSchemaV2: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(2, 0, 0) }
    static var models: [any PersistentModel.Type] { [ChecksumModelsIndexed.Sample.self, ChecksumPart.self] }
}

enum StagesOutOfOrderPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { JournalMigrationPlan.schemas }
    static var stages: [MigrationStage] {
        [
            .lightweight(fromVersion: JournalSchemaV2.self, toVersion: JournalSchemaV3.self),
            .lightweight(fromVersion: JournalSchemaV1.self, toVersion: JournalSchemaV2.self),
        ]
    }
}

enum GapPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { JournalMigrationPlan.schemas }
    static var stages: [MigrationStage] { [.lightweight(fromVersion: JournalSchemaV2.self, toVersion: JournalSchemaV3.self)] }
}

enum NoStagesPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { JournalMigrationPlan.schemas }
    static var stages: [MigrationStage] { [] }
}

enum ForeignStagePlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { JournalMigrationPlan.schemas }
    static var stages: [MigrationStage] {
        JournalMigrationPlan.stages + [.lightweight(fromVersion: JournalSchemaV3.self, toVersion: JournalSchemaV4.self)]
    }
}

enum BackwardStagePlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { JournalMigrationPlan.schemas }
    static var stages: [MigrationStage] {
        JournalMigrationPlan.stages + [.lightweight(fromVersion: JournalSchemaV3.self, toVersion: JournalSchemaV1.self)]
    }
}

enum TwoStagesFromOneVersionPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { JournalMigrationPlan.schemas }
    static var stages: [MigrationStage] {
        JournalMigrationPlan.stages + [.lightweight(fromVersion: JournalSchemaV1.self, toVersion: JournalSchemaV3.self)]
    }
}

/// The schemas newest first, as SwiftData allows.
enum SchemasOutOfOrderPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [JournalSchemaV2.self, JournalSchemaV1.self] }
    static var stages: [MigrationStage] { [] }
}

enum EmptyPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [] }
    static var stages: [MigrationStage] { [] }
}

enum SkippingPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { JournalMigrationPlan.schemas }
    static var stages: [MigrationStage] { [.lightweight(fromVersion: JournalSchemaV1.self, toVersion: JournalSchemaV3.self)] }
}

enum StandingStillPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { JournalMigrationPlan.schemas }
    static var stages: [MigrationStage] { [.lightweight(fromVersion: JournalSchemaV2.self, toVersion: JournalSchemaV2.self)] }
}

enum SharedVersionPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [JournalSchemaV3.self, JournalSchemaV4SharingV3.self] }
    static var stages: [MigrationStage] { [] }
}
