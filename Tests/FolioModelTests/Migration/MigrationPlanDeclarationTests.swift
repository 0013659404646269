import Foundation
import Folio
import Testing

@Suite("A SwiftData-style migration plan")
struct MigrationPlanDeclarationTests {

    static func allLightweight(_ changes: [SchemaChange]) -> Bool {
        changes.allSatisfy(\.isLightweight)
    }
    @Test func aV1ToV3PlanOrdersItsStagesFromEachVersion() throws {
        let fromV1 = try MigrationPlanning.route(of: JournalMigrationPlan.self, from: 0, to: 2, store: "s")
        #expect(fromV1.map(\.kindName) == ["custom", "lightweight"])
        #expect(fromV1.map { $0.toVersion.versionIdentifier } == [Schema.Version(2, 0, 0), Schema.Version(3, 0, 0)])
        let fromV2 = try MigrationPlanning.route(of: JournalMigrationPlan.self, from: 1, to: 2, store: "s")
        #expect(fromV2.map { $0.fromVersion.versionIdentifier } == [Schema.Version(2, 0, 0)])
        #expect(try MigrationPlanning.route(of: JournalMigrationPlan.self, from: 2, to: 2, store: "s").isEmpty)
    }

    @Test func eachStepOfThePlanIsClassifiedAsSwiftDataWouldInferIt() {
        let v1 = RecordedSchema(Schema(versionedSchema: JournalSchemaV1.self))
        let v2 = RecordedSchema(Schema(versionedSchema: JournalSchemaV2.self))
        let toV2 = SchemaDifference.changes(from: v1, to: Schema(versionedSchema: JournalSchemaV2.self))
        #expect(
            toV2 == [
                .propertyRenamed(entity: "Entry", from: "title", to: "heading"),
                .attributeAdded(entity: "Entry", property: "wordCount", type: "Int", isOptional: false, hasDefault: true),
            ])
        #expect(Self.allLightweight(toV2))
        let toV3 = SchemaDifference.changes(from: v2, to: Schema(versionedSchema: JournalSchemaV3.self))
        #expect(toV3 == [.propertyRemoved(entity: "Entry", property: "mood")])
    }

    @Test func theCustomStagesClosureRunsOnAContextOverTheNewModels() throws {
        guard case .custom(_, _, let willMigrate, let didMigrate?) = JournalMigrationPlan.migrateV1toV2 else {
            Issue.record("the first stage is a custom stage with a didMigrate")
            return
        }
        #expect(willMigrate == nil)
        let container = try ModelContainer(
            for: Schema(versionedSchema: JournalSchemaV2.self),
            configurations: [ModelConfiguration(isStoredInMemoryOnly: true)])
        let context = ModelContext(container)
        context.insert(JournalSchemaV2.Entry(heading: "Monday", body: "rain all day long", mood: "grey"))
        try context.save()
        try didMigrate(context)
        let entries = try ModelContext(container).fetch(FetchDescriptor<JournalSchemaV2.Entry>())
        #expect(entries.map(\.wordCount) == [4])
    }

    @Test func versionedSchemasBuildSchemasWithTheirVersion() {
        let schema = Schema(versionedSchema: JournalSchemaV3.self)
        #expect(schema.version == Schema.Version(3, 0, 0))
        #expect(schema.entities.map(\.name) == ["Entry"])
        #expect(JournalMigrationPlan.schemas.count == 3)
    }
}
