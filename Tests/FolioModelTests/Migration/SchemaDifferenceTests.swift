import Foundation
import Folio
import Testing

@Suite("Schema differences and their classification")
struct SchemaDifferenceTests {
    typealias Property = RecordedSchema.Property

    static func allLightweight(_ changes: [SchemaChange]) -> Bool {
        changes.allSatisfy(\.isLightweight)
    }

    /// The changes from the new schema's record, edited by `edit` into an old one, to the new schema.
    static func changes(_ edit: (inout RecordedSchema) -> Void) -> [SchemaChange] {
        let schema = DifferenceModels.schema
        var old = RecordedSchema(schema)
        old.version = "1.0.0"
        edit(&old)
        return SchemaDifference.changes(from: old, to: schema)
    }

    /// The error refusing `changes` between versions 1.0.0 and 2.0.0, if any.
    static func refusal(_ changes: [SchemaChange]) -> FolioError? {
        do {
            try SchemaDifference.requireLightweight(changes, from: "1.0.0", to: "2.0.0", store: "/tmp/notes.store")
            return nil
        } catch let error as FolioError {
            return error
        } catch {
            return nil
        }
    }

    @Test func theSameSchemaHasNoChangesAndTheSameChecksum() {
        let schema = DifferenceModels.schema
        #expect(SchemaDifference.changes(from: RecordedSchema(schema), to: schema).isEmpty)
        #expect(RecordedSchema(schema).computedChecksum == schema.checksum)
    }

    @Test func anEphemeralPropertyTakesNoPartInTheDifference() {
        let changes = Self.changes { $0.entities["Note"]?.properties["isSelected"] = nil }
        #expect(changes.isEmpty)
    }

    // MARK: Lightweight: inferred, no plan needed

    @Test func anAddedOptionalAttributeIsLightweight() {
        let changes = Self.changes { $0.entities["Note"]?.properties["subtitle"] = nil }
        #expect(changes == [.attributeAdded(entity: "Note", property: "subtitle", type: "String", isOptional: true, hasDefault: false)])
        #expect(Self.allLightweight(changes))
        #expect(Self.refusal(changes) == nil)
    }

    @Test func anAddedAttributeWithADefaultIsLightweight() {
        let changes = Self.changes { $0.entities["Note"]?.properties["pinned"] = nil }
        #expect(changes == [.attributeAdded(entity: "Note", property: "pinned", type: "Bool", isOptional: false, hasDefault: true)])
        #expect(Self.allLightweight(changes))
    }

    @Test func anAddedEntityIsLightweight() {
        let changes = Self.changes { old in
            old.entities["Label"] = nil
            old.entities["Note"]?.properties["labels"] = nil
        }
        #expect(
            changes == [
                .entityAdded(entity: "Label"),
                .relationshipAdded(entity: "Note", property: "labels", destination: "Label", isToMany: true, isOptional: false),
            ])
        #expect(Self.allLightweight(changes))
    }

    @Test func aRemovedEntityIsLightweight() {
        let changes = Self.changes { old in
            old.entities["Archive"] = RecordedSchema.Entity(name: "Archive", properties: [:])
        }
        #expect(changes == [.entityRemoved(entity: "Archive")])
        #expect(Self.allLightweight(changes))
    }

    @Test func aRemovedAttributeIsLightweight() {
        let changes = Self.changes { old in
            old.entities["Note"]?.properties["mood"] = Property(name: "mood", kind: .attribute, type: "String")
        }
        #expect(changes == [.propertyRemoved(entity: "Note", property: "mood")])
        #expect(Self.allLightweight(changes))
    }

    @Test func aRenameThroughOriginalNameIsLightweight() {
        let changes = Self.changes { old in
            let body = old.entities["Note"]?.properties.removeValue(forKey: "body")
            old.entities["Note"]?.properties["text"] = body.map { property in
                var renamed = property
                renamed.name = "text"
                renamed.originalName = nil
                return renamed
            }
        }
        #expect(changes == [.propertyRenamed(entity: "Note", from: "text", to: "body")])
        #expect(Self.allLightweight(changes))
    }

    @Test func aPropertyAlreadyRenamedInAnEarlierVersionIsNoChange() {
        // The store was written by a version that had the rename already: it holds `body`.
        let changes = Self.changes { _ in }
        #expect(changes.isEmpty)
    }

    @Test func anAddedOptionalRelationshipIsLightweight() {
        let changes = Self.changes { $0.entities["Note"]?.properties["folder"] = nil }
        #expect(changes == [.relationshipAdded(entity: "Note", property: "folder", destination: "Folder", isToMany: false, isOptional: true)])
        #expect(Self.allLightweight(changes))
    }

    @Test func aRelationshipMadeOptionalIsLightweight() {
        let changes = Self.changes { $0.entities["Note"]?.properties["folder"]?.isOptional = false }
        #expect(changes == [.madeOptional(entity: "Note", property: "folder")])
        #expect(Self.allLightweight(changes))
    }

    @Test func anAttributeMadeOptionalIsLightweight() {
        let changes = Self.changes { $0.entities["Note"]?.properties["subtitle"]?.isOptional = false }
        #expect(changes == [.madeOptional(entity: "Note", property: "subtitle")])
        #expect(Self.allLightweight(changes))
    }

    @Test func anOptionalMadeNonOptionalWithADefaultIsLightweight() {
        let changes = Self.changes { $0.entities["Note"]?.properties["pinned"]?.isOptional = true }
        #expect(changes == [.madeRequired(entity: "Note", property: "pinned", type: "Bool", hasDefault: true)])
        #expect(Self.allLightweight(changes))
    }

    @Test func anEntityGainingASuperentityIsLightweight() {
        let changes = Self.changes { old in
            old.entities["Document"] = nil
            old.entities["Report"]?.superentity = nil
        }
        #expect(changes == [.entityAdded(entity: "Document"), .superentityAdded(entity: "Report", superentity: "Document")])
        #expect(Self.allLightweight(changes))
    }

    @Test func aUniquenessConstraintAddedOrRemovedIsLightweight() {
        let added = Self.changes { old in
            old.entities["Person"]?.uniqueness = []
            old.entities["Person"]?.properties["email"]?.options = []
        }
        #expect(added == [.uniquenessAdded(entity: "Person", properties: ["email"])])
        #expect(Self.allLightweight(added))
        let removed = Self.changes { $0.entities["Folder"]?.uniqueness = [["name"]] }
        #expect(removed == [.uniquenessRemoved(entity: "Folder", properties: ["name"])])
        #expect(Self.allLightweight(removed))
    }

    // MARK: Needs a custom stage

    @Test func aTypeChangeNeedsACustomStageAndTheErrorSaysWhichToWrite() throws {
        let changes = Self.changes { $0.entities["Note"]?.properties["count"]?.type = "String" }
        #expect(changes == [.typeChanged(entity: "Note", property: "count", from: "String", to: "Int")])
        #expect(!Self.allLightweight(changes))
        let error = try #require(Self.refusal(changes))
        #expect(error.code == .migrationRequired)
        #expect(error.message.contains("Note.count: type changed from String to Int"))
        #expect(error.message.contains("write a MigrationStage.custom from 1.0.0 to 2.0.0".capitalizedFirst))
        #expect(error.message.contains("/tmp/notes.store"))
    }

    @Test func aToOneBecomingToManyNeedsACustomStage() throws {
        let changes = Self.changes { old in
            old.entities["Note"]?.properties["labels"]?.isToMany = false
            old.entities["Note"]?.properties["labels"]?.isOptional = true
        }
        #expect(changes == [.toOneBecameToMany(entity: "Note", property: "labels", destination: "Label")])
        let error = try #require(Self.refusal(changes))
        #expect(error.code == .migrationRequired)
        #expect(error.message.contains("Note.labels: changed from to-one Label to to-many Label"))
    }

    @Test func aToManyBecomingToOneNeedsACustomStage() {
        let changes = Self.changes { $0.entities["Note"]?.properties["folder"]?.isToMany = true }
        #expect(changes == [.toManyBecameToOne(entity: "Note", property: "folder", destination: "Folder")])
        #expect(Self.refusal(changes)?.code == .migrationRequired)
    }

    @Test func aNonOptionalAttributeAddedWithoutADefaultNeedsACustomStage() throws {
        let changes = Self.changes { $0.entities["Note"]?.properties["count"] = nil }
        #expect(changes == [.attributeAdded(entity: "Note", property: "count", type: "Int", isOptional: false, hasDefault: false)])
        let error = try #require(Self.refusal(changes))
        #expect(error.message.contains("Note.count: non-optional Int added without a default"))
        #expect(error.message.contains("MigrationStage.custom from 1.0.0 to 2.0.0"))
    }

    @Test func aNonOptionalToOneRelationshipAddedNeedsACustomStage() {
        let changes = Self.changes { $0.entities["Note"]?.properties["owner"] = nil }
        #expect(changes == [.relationshipAdded(entity: "Note", property: "owner", destination: "Person", isToMany: false, isOptional: false)])
        #expect(Self.refusal(changes)?.code == .migrationRequired)
    }

    @Test func anOptionalMadeNonOptionalWithoutADefaultNeedsACustomStage() {
        let changes = Self.changes { $0.entities["Note"]?.properties["count"]?.isOptional = true }
        #expect(changes == [.madeRequired(entity: "Note", property: "count", type: "Int", hasDefault: false)])
        #expect(Self.refusal(changes)?.code == .migrationRequired)
    }

    @Test func aChangedDestinationNeedsACustomStage() {
        let changes = Self.changes { $0.entities["Note"]?.properties["folder"]?.destination = "Label" }
        #expect(changes == [.destinationChanged(entity: "Note", property: "folder", from: "Label", to: "Folder")])
        #expect(Self.refusal(changes)?.code == .migrationRequired)
    }

    @Test func anAttributeBecomingARelationshipNeedsACustomStage() {
        let changes = Self.changes { old in
            old.entities["Note"]?.properties["folder"] = Property(name: "folder", kind: .attribute, type: "String", isOptional: true)
        }
        #expect(changes == [.typeChanged(entity: "Note", property: "folder", from: "String?", to: "to-one Folder?")])
        #expect(Self.refusal(changes)?.code == .migrationRequired)
    }

    @Test func aRemovedOrChangedSuperentityNeedsACustomStage() {
        let changes = Self.changes { $0.entities["Report"]?.superentity = "Folder" }
        #expect(changes == [.superentityChanged(entity: "Report", from: "Folder", to: "Document")])
        #expect(Self.refusal(changes)?.code == .migrationRequired)
    }

    @Test func theRefusalListsEveryChangeThatNeedsAStageAndNoLightweightOne() throws {
        let changes = Self.changes { old in
            old.entities["Note"]?.properties["count"]?.type = "String"
            old.entities["Note"]?.properties["subtitle"] = nil
            old.entities["Note"]?.properties["owner"] = nil
        }
        #expect(changes.count == 3)
        let error = try #require(Self.refusal(changes))
        #expect(error.message.contains("Note.count"))
        #expect(error.message.contains("Note.owner"))
        #expect(!error.message.contains("Note.subtitle"))
    }
}

extension String {
    /// The string with its first letter upper-cased, as it starts a sentence.
    var capitalizedFirst: String { prefix(1).uppercased() + dropFirst() }
}
