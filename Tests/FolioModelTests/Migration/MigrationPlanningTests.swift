import Foundation
import Folio
import Testing

@Suite("Finding a store's version in a plan and ordering the stages")
struct MigrationPlanningTests {
    static let journal = JournalMigrationPlan.schemas

    static func recorded(_ schema: any VersionedSchema.Type) -> RecordedSchema {
        RecordedSchema(Schema(versionedSchema: schema))
    }

    static func failure(_ body: () throws -> Void) -> FolioError? {
        do {
            try body()
            return nil
        } catch let error as FolioError {
            return error
        } catch {
            return nil
        }
    }

    // MARK: Version matching

    @Test func aStoreIsFoundByItsRecordedChecksum() throws {
        #expect(try MigrationPlanning.sourceIndex(of: Self.recorded(JournalSchemaV1.self), in: Self.journal, store: "s") == 0)
        #expect(try MigrationPlanning.sourceIndex(of: Self.recorded(JournalSchemaV2.self), in: Self.journal, store: "s") == 1)
        #expect(try MigrationPlanning.sourceIndex(of: Self.recorded(JournalSchemaV3.self), in: Self.journal, store: "s") == 2)
    }

    @Test func theRecordedChecksumDecidesOverTheRecordedVersion() throws {
        var relabelled = Self.recorded(JournalSchemaV1.self)
        relabelled.version = "3.0.0"
        #expect(try MigrationPlanning.sourceIndex(of: relabelled, in: Self.journal, store: "s") == 0)
    }

    @Test func aStoreWithoutRecordedChecksumIsFoundByItsStructure() throws {
        var old = Self.recorded(JournalSchemaV2.self)
        old.recordedChecksum = nil
        old.version = nil
        #expect(try MigrationPlanning.sourceIndex(of: old, in: Self.journal, store: "s") == 1)
    }

    @Test func schemasSharingAChecksumAreToldApartByTheRecordedVersionElseTheNewestWins() throws {
        let schemas: [any VersionedSchema.Type] = [SampleSchemaV1.self, SampleSchemaV2.self]
        #expect(Self.recorded(SampleSchemaV1.self).checksum == Self.recorded(SampleSchemaV2.self).checksum)
        #expect(try MigrationPlanning.sourceIndex(of: Self.recorded(SampleSchemaV1.self), in: schemas, store: "s") == 0)
        #expect(try MigrationPlanning.sourceIndex(of: Self.recorded(SampleSchemaV2.self), in: schemas, store: "s") == 1)
        var unversioned = Self.recorded(SampleSchemaV1.self)
        unversioned.version = nil
        #expect(try MigrationPlanning.sourceIndex(of: unversioned, in: schemas, store: "s") == 1)
    }

    @Test func aStoreNewerThanEverySchemaInThePlanIsRefusedNamingBothVersions() throws {
        let schemas: [any VersionedSchema.Type] = [JournalSchemaV1.self, JournalSchemaV2.self]
        let error = try #require(
            Self.failure {
                _ = try MigrationPlanning.sourceIndex(of: Self.recorded(JournalSchemaV3.self), in: schemas, store: "/data/journal")
            })
        #expect(error.code == .schemaMismatch)
        #expect(error.message.contains("written by schema version 3.0.0"))
        #expect(error.message.contains("JournalSchemaV2 (2.0.0)"))
        #expect(error.message.contains("/data/journal"))
        #expect(error.message.contains("unchanged"))
    }

    @Test func aShippedVersionWhoseModelsChangedIsRefusedWithTheDifferences() throws {
        var changed = Self.recorded(JournalSchemaV2.self)
        changed.entities["Entry"]?.properties["mood"]?.type = "Int"
        changed.recordedChecksum = changed.computedChecksum
        let error = try #require(
            Self.failure {
                _ = try MigrationPlanning.sourceIndex(of: changed, in: Self.journal, store: "s")
            })
        #expect(error.code == .schemaMismatch)
        #expect(error.message.contains("records schema version 2.0.0"))
        #expect(error.message.contains("models of a shipped version were changed"))
        #expect(error.message.contains("Entry.mood: type changed from Int to String"))
    }

    @Test func aStoreMatchingNoSchemaIsRefusedListingThePlansVersions() throws {
        var unknown = Self.recorded(JournalSchemaV2.self)
        unknown.entities["Entry"]?.properties["weather"] = RecordedSchema.Property(name: "weather", kind: .attribute, type: "String")
        unknown.recordedChecksum = nil
        unknown.version = "1.5.0"
        let error = try #require(
            Self.failure {
                _ = try MigrationPlanning.sourceIndex(of: unknown, in: Self.journal, store: "s")
            })
        #expect(error.code == .schemaMismatch)
        #expect(error.message.contains("version 1.5.0"))
        #expect(error.message.contains("JournalSchemaV1 (1.0.0), JournalSchemaV2 (2.0.0), JournalSchemaV3 (3.0.0)"))
    }

    // MARK: The way from the store's version to the models'

    static func route(_ plan: any SchemaMigrationPlan.Type, from: Int, to: Int) throws -> [String] {
        try MigrationPlanning.route(of: plan, from: from, to: to, store: "/data/journal").map { step in
            "\(step.kindName) \(step.fromVersion.versionIdentifier) → \(step.toVersion.versionIdentifier)"
        }
    }

    @Test func stagesRunInVersionOrderWhateverOrderThePlanListsThem() throws {
        #expect(try Self.route(StagesOutOfOrderPlan.self, from: 0, to: 2) == ["lightweight 1.0.0 → 2.0.0", "lightweight 2.0.0 → 3.0.0"])
    }

    @Test func aStageMaySkipAVersion() throws {
        #expect(try Self.route(SkippingPlan.self, from: 0, to: 2) == ["lightweight 1.0.0 → 3.0.0"])
    }

    @Test func aVersionNoStageLeavesTakesTheInferredStepToTheNextVersion() throws {
        #expect(try Self.route(GapPlan.self, from: 0, to: 2) == ["inferred 1.0.0 → 2.0.0", "lightweight 2.0.0 → 3.0.0"])
        #expect(try Self.route(GapPlan.self, from: 1, to: 2) == ["lightweight 2.0.0 → 3.0.0"])
        #expect(try Self.route(NoStagesPlan.self, from: 0, to: 2) == ["inferred 1.0.0 → 2.0.0", "inferred 2.0.0 → 3.0.0"])
        #expect(try Self.route(NoStagesPlan.self, from: 2, to: 2).isEmpty)
    }

    @Test func schemasListedNewestFirstAreOrderedByTheirVersions() throws {
        // SchemasOutOfOrderPlan lists JournalSchemaV2, then JournalSchemaV1.
        #expect(try Self.route(SchemasOutOfOrderPlan.self, from: 1, to: 0) == ["inferred 1.0.0 → 2.0.0"])
    }

    @Test func aStageDownIsTakenByAStoreNewerThanTheModelsAndOnlyByIt() throws {
        #expect(try Self.route(BackwardStagePlan.self, from: 2, to: 0) == ["lightweight 3.0.0 → 1.0.0"])
        #expect(try Self.route(BackwardStagePlan.self, from: 0, to: 2) == ["custom 1.0.0 → 2.0.0", "lightweight 2.0.0 → 3.0.0"])
    }

    @Test func aStoreNewerThanTheModelsWithNoStageDownIsRefusedNamingTheStageToWrite() throws {
        let error = try #require(Self.failure { _ = try Self.route(JournalMigrationPlan.self, from: 1, to: 0) })
        #expect(error.code == .schemaMismatch)
        #expect(error.message.contains("was written by JournalSchemaV2 (2.0.0), newer than the models that open it (JournalSchemaV1 (1.0.0))"))
        #expect(error.message.contains("A store file cannot be migrated backwards with staged migration"))
        #expect(error.message.contains("MigrationStage.custom(fromVersion: JournalSchemaV2.self, toVersion: JournalSchemaV1.self"))
        #expect(error.message.contains("/data/journal"))
    }

    @Test func aStageNamingASchemaOutsideThePlanIsRefused() throws {
        let error = try #require(Self.failure { _ = try Self.route(ForeignStagePlan.self, from: 0, to: 2) })
        #expect(error.code == .invalidSchema)
        #expect(error.message.contains("JournalSchemaV4 is not in its schemas"))
    }

    @Test func aStageFromAVersionToItselfIsRefused() throws {
        let error = try #require(Self.failure { _ = try Self.route(StandingStillPlan.self, from: 0, to: 2) })
        #expect(error.code == .invalidSchema)
        #expect(error.message.contains("from JournalSchemaV2 (2.0.0) to JournalSchemaV2 (2.0.0), which goes nowhere"))
    }

    @Test func twoStagesFromOneVersionInOneDirectionAreRefused() throws {
        let error = try #require(Self.failure { _ = try Self.route(TwoStagesFromOneVersionPlan.self, from: 0, to: 2) })
        #expect(error.code == .invalidSchema)
        #expect(error.message.contains("two stages from JournalSchemaV1 (1.0.0) up"))
    }

    @Test func schemasSharingAVersionOrNoSchemasAreRefused() throws {
        let shared = try #require(Self.failure { _ = try Self.route(SharedVersionPlan.self, from: 0, to: 1) })
        #expect(shared.code == .invalidSchema)
        #expect(shared.message.contains("lists JournalSchemaV3 (3.0.0) and JournalSchemaV4SharingV3 (3.0.0), which share a version"))
        let empty = try #require(Self.failure { _ = try Self.route(EmptyPlan.self, from: 0, to: 0) })
        #expect(empty.message.contains("lists no schemas"))
    }
}
