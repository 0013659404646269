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
        let error = try #require(Self.failure {
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
        let error = try #require(Self.failure {
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
        let error = try #require(Self.failure {
            _ = try MigrationPlanning.sourceIndex(of: unknown, in: Self.journal, store: "s")
        })
        #expect(error.code == .schemaMismatch)
        #expect(error.message.contains("version 1.5.0"))
        #expect(error.message.contains("JournalSchemaV1 (1.0.0), JournalSchemaV2 (2.0.0), JournalSchemaV3 (3.0.0)"))
    }

    // MARK: Stage ordering

    @Test func stagesRunInVersionOrderWhateverOrderThePlanListsThem() throws {
        let stages = try MigrationPlanning.stages(of: StagesOutOfOrderPlan.self, from: 0)
        #expect(stages.map { $0.fromVersion.versionIdentifier } == [Schema.Version(1, 0, 0), Schema.Version(2, 0, 0)])
    }

    @Test func aStageMaySkipAVersion() throws {
        let stages = try MigrationPlanning.stages(of: SkippingPlan.self, from: 0)
        #expect(stages.map { $0.toVersion.versionIdentifier } == [Schema.Version(3, 0, 0)])
    }

    @Test func aGapBetweenTheStoresVersionAndTheNewestIsRefused() throws {
        #expect(try MigrationPlanning.stages(of: GapPlan.self, from: 1).count == 1)
        let error = try #require(Self.failure { _ = try MigrationPlanning.stages(of: GapPlan.self, from: 0) })
        #expect(error.code == .invalidSchema)
        #expect(error.message.contains("no stage from JournalSchemaV1 (1.0.0)"))
        #expect(error.message.contains("add a MigrationStage from 1.0.0 to 2.0.0"))
        let none = try #require(Self.failure { _ = try MigrationPlanning.stages(of: NoStagesPlan.self, from: 1) })
        #expect(none.message.contains("no stage from JournalSchemaV2 (2.0.0)"))
    }

    @Test func aStageNamingASchemaOutsideThePlanIsRefused() throws {
        let error = try #require(Self.failure { _ = try MigrationPlanning.stages(of: ForeignStagePlan.self, from: 0) })
        #expect(error.code == .invalidSchema)
        #expect(error.message.contains("JournalSchemaV4 is not in its schemas"))
    }

    @Test func aStageThatGoesBackwardIsRefused() throws {
        let error = try #require(Self.failure { _ = try MigrationPlanning.stages(of: BackwardStagePlan.self, from: 0) })
        #expect(error.message.contains("from JournalSchemaV3 (3.0.0) to JournalSchemaV1 (1.0.0), which does not go forward"))
    }

    @Test func twoStagesFromOneVersionAreRefused() throws {
        let error = try #require(Self.failure { _ = try MigrationPlanning.stages(of: TwoStagesFromOneVersionPlan.self, from: 0) })
        #expect(error.message.contains("two stages from JournalSchemaV1 (1.0.0)"))
    }

    @Test func schemasOutOfReleaseOrderOrNoSchemasAreRefused() throws {
        let unordered = try #require(Self.failure { _ = try MigrationPlanning.stages(of: SchemasOutOfOrderPlan.self, from: 0) })
        #expect(unordered.message.contains("out of release order"))
        let empty = try #require(Self.failure { _ = try MigrationPlanning.stages(of: EmptyPlan.self, from: 0) })
        #expect(empty.message.contains("lists no schemas"))
    }
}
