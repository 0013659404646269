import Foundation
import Folio
import FolioStorage
import Testing

@Suite("The schema checksum")
struct SchemaChecksumTests {
    static let reference = Schema([ChecksumModelsA.Sample.self, ChecksumPart.self])

    @Test func isTheSameInEveryRunOfEveryProcess() {
        // Written down once: a checksum that changed between builds or runs would fail here.
        #expect(Self.reference.checksum == "3d020e565ddf891802e26f88d8976610a39f510285deb305e217e133d5eb3911")
        #expect(Self.reference.checksum.count == 64)
    }

    @Test func doesNotDependOnDeclarationOrderOrTheOrderModelsAreGiven() {
        let reordered = Schema([ChecksumPart.self, ChecksumModelsReordered.Sample.self])
        #expect(reordered.checksum == Self.reference.checksum)
    }

    @Test func changesWhenAPropertysTypeChanges() {
        let retyped = Schema([ChecksumModelsRetyped.Sample.self, ChecksumPart.self])
        #expect(retyped.checksum != Self.reference.checksum)
    }

    @Test func changesWhenAPropertysOptionalityChanges() {
        let required = Schema([ChecksumModelsRequired.Sample.self, ChecksumPart.self])
        #expect(required.checksum != Self.reference.checksum)
    }

    @Test func leavesOutTheVersionIdentifierAndIndexes() {
        let relabelled = Schema([ChecksumModelsA.Sample.self, ChecksumPart.self], version: Schema.Version(7, 1, 0))
        #expect(relabelled.checksum == Self.reference.checksum)
        let indexed = Schema([ChecksumModelsIndexed.Sample.self, ChecksumPart.self])
        #expect(indexed.checksum == Self.reference.checksum)
    }

    @Test func changesWithARelationshipsArityOrAnEntityName() throws {
        var recorded = RecordedSchema(Self.reference)
        let original = recorded.computedChecksum
        recorded.entities["Sample"]?.properties["parts"]?.isToMany = false
        #expect(recorded.computedChecksum != original)
        var renamed = RecordedSchema(Self.reference)
        let part = renamed.entities.removeValue(forKey: "ChecksumPart")
        #expect(part != nil)
        renamed.entities["Piece"] = part
        #expect(renamed.computedChecksum != original)
    }

    @Test func isRecordedWithTheVersionAndReadsBackAsTheSameSchema() throws {
        let description = RecordedSchema(Self.reference).jsonValue
        let root = try #require(description.objectValue)
        #expect(root["checksum"]?.stringValue == Self.reference.checksum)
        #expect(root["version"]?.stringValue == "1.0.0")
        let parsed = try RecordedSchema(parsing: description)
        #expect(parsed == RecordedSchema(Self.reference))
        #expect(parsed.recordedChecksum == parsed.computedChecksum)
    }

    @Test func aContainerRecordsTheChecksumInTheManifest() throws {
        let location = TemporaryStore()
        defer { location.cleanUp() }
        do {
            let container = try location.container(ChecksumModelsA.Sample.self, ChecksumPart.self)
            let context = ModelContext(container)
            context.insert(ChecksumModelsA.Sample(name: "one", count: 1))
            try context.save()
        }
        let store = try Store.open(at: location.url, configuration: StoreConfiguration(readOnly: true))
        defer { store.close() }
        let recorded = try RecordedSchema(parsing: try #require(store.schema))
        #expect(recorded.recordedChecksum == Self.reference.checksum)
        #expect(recorded.version == "1.0.0")
    }
}
