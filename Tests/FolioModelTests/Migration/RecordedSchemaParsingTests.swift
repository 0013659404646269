import Foundation
import Folio
import FolioStorage
import Testing

@Suite("Reading a recorded schema back")
struct RecordedSchemaParsingTests {
    /// A valid description with an inheritance tree, a relationship, options and a rename.
    static let valid: JSONValue = .object([
        "version": .string("2.1.0"),
        "checksum": .string(String(repeating: "ab", count: 32)),
        "entities": .object([
            "Recipe": .object([
                "properties": .object([
                    "name": .object(["kind": .string("attribute"), "type": .string("String"), "options": .array([.string("unique")])]),
                    "book": .object([
                        "kind": .string("relationship"), "destination": .string("Book"), "toMany": .bool(false),
                        "optional": .bool(true), "deleteRule": .string("nullify"), "inverse": .string("recipes"),
                    ]),
                ]),
                "uniqueness": .array([.array([.string("name")])]),
                "indices": .array([.array([.string("name")])]),
            ]),
            "Cake": .object([
                "superentity": .string("Recipe"),
                "properties": .object([
                    "layers": .object(["kind": .string("attribute"), "type": .string("Int"), "originalName": .string("tiers")])
                ]),
                "future": .string("a member a later version writes"),
            ]),
            "Book": .object([
                "properties": .object([
                    "recipes": .object(["kind": .string("relationship"), "destination": .string("Recipe"), "toMany": .bool(true)])
                ])
            ]),
        ]),
    ])

    @Test func aValidDescriptionReadsIntoItsValue() throws {
        let schema = try RecordedSchema(parsing: Self.valid)
        #expect(schema.version == "2.1.0")
        #expect(schema.parsedVersion == Schema.Version(2, 1, 0))
        #expect(schema.recordedChecksum == String(repeating: "ab", count: 32))
        #expect(schema.entities["Cake"]?.superentity == "Recipe")
        #expect(schema.entities["Cake"]?.properties["layers"]?.originalName == "tiers")
        #expect(schema.entities["Recipe"]?.properties["name"]?.isUnique == true)
        #expect(schema.entities["Recipe"]?.properties["book"]?.typeDescription == "to-one Book?")
        #expect(schema.entities["Book"]?.properties["recipes"]?.typeDescription == "to-many Recipe")
        #expect(schema.entities["Recipe"]?.uniqueness == [["name"]])
    }

    @Test func aDescriptionWithoutChecksumIsIdentifiedByItsStructure() throws {
        guard case .object(var root) = Self.valid else { return }
        root["checksum"] = nil
        let schema = try RecordedSchema(parsing: .object(root))
        #expect(schema.recordedChecksum == nil)
        #expect(schema.checksum == schema.computedChecksum)
    }

    /// Replaces the member at `path` (keys from the root) of the valid description.
    static func replacing(_ path: [String], with replacement: JSONValue?) -> JSONValue {
        func replace(_ value: JSONValue, _ path: ArraySlice<String>) -> JSONValue {
            guard let key = path.first, case .object(var members) = value else { return replacement ?? .null }
            if path.count == 1 {
                members[key] = replacement
            } else {
                members[key] = replace(members[key] ?? .object([:]), path.dropFirst())
            }
            return .object(members)
        }
        return replace(valid, path[...])
    }

    struct Hostile: CustomStringConvertible, Sendable {
        let value: JSONValue
        let entity: String?
        let property: String?
        let key: String
        var description: String { "\(entity ?? "-").\(property ?? "-").\(key)" }
    }

    static let hostile: [Hostile] = [
        Hostile(value: .array([]), entity: nil, property: nil, key: "schema"),
        Hostile(value: .string("v1"), entity: nil, property: nil, key: "schema"),
        Hostile(value: replacing(["entities"], with: nil), entity: nil, property: nil, key: "entities"),
        Hostile(value: replacing(["entities"], with: .array([.string("Recipe")])), entity: nil, property: nil, key: "entities"),
        Hostile(value: replacing(["version"], with: .int(2)), entity: nil, property: nil, key: "version"),
        Hostile(value: replacing(["checksum"], with: .string("not-a-checksum")), entity: nil, property: nil, key: "checksum"),
        Hostile(value: replacing(["checksum"], with: .bool(true)), entity: nil, property: nil, key: "checksum"),
        Hostile(value: replacing(["entities", "Book"], with: .int(1)), entity: "Book", property: nil, key: "Book"),
        Hostile(value: replacing(["entities", "Book", "properties"], with: nil), entity: "Book", property: nil, key: "properties"),
        Hostile(value: replacing(["entities", "Book", "properties"], with: .array([])), entity: "Book", property: nil, key: "properties"),
        Hostile(
            value: replacing(["entities", "Recipe", "properties", "name"], with: .string("String")),
            entity: "Recipe", property: "name", key: "name"),
        Hostile(
            value: replacing(["entities", "Recipe", "properties", "name", "kind"], with: nil),
            entity: "Recipe", property: "name", key: "kind"),
        Hostile(
            value: replacing(["entities", "Recipe", "properties", "name", "kind"], with: .string("column")),
            entity: "Recipe", property: "name", key: "kind"),
        Hostile(
            value: replacing(["entities", "Recipe", "properties", "name", "type"], with: nil),
            entity: "Recipe", property: "name", key: "type"),
        Hostile(
            value: replacing(["entities", "Recipe", "properties", "name", "type"], with: .array([])),
            entity: "Recipe", property: "name", key: "type"),
        Hostile(
            value: replacing(["entities", "Recipe", "properties", "name", "options"], with: .string("unique")),
            entity: "Recipe", property: "name", key: "options"),
        Hostile(
            value: replacing(["entities", "Recipe", "properties", "name", "options"], with: .array([.int(1)])),
            entity: "Recipe", property: "name", key: "options"),
        Hostile(
            value: replacing(["entities", "Recipe", "properties", "name", "optional"], with: .string("yes")),
            entity: "Recipe", property: "name", key: "optional"),
        Hostile(
            value: replacing(["entities", "Recipe", "properties", "book", "destination"], with: nil),
            entity: "Recipe", property: "book", key: "destination"),
        Hostile(
            value: replacing(["entities", "Recipe", "properties", "book", "destination"], with: .string("Shelf")),
            entity: "Recipe", property: "book", key: "destination"),
        Hostile(
            value: replacing(["entities", "Recipe", "properties", "book", "toMany"], with: nil),
            entity: "Recipe", property: "book", key: "toMany"),
        Hostile(
            value: replacing(["entities", "Recipe", "properties", "book", "toMany"], with: .int(0)),
            entity: "Recipe", property: "book", key: "toMany"),
        Hostile(
            value: replacing(["entities", "Recipe", "properties", "book", "inverse"], with: .int(0)),
            entity: "Recipe", property: "book", key: "inverse"),
        Hostile(
            value: replacing(["entities", "Cake", "properties", "layers", "originalName"], with: .null),
            entity: "Cake", property: "layers", key: "originalName"),
        Hostile(value: replacing(["entities", "Cake", "superentity"], with: .string("Pastry")), entity: "Cake", property: nil, key: "superentity"),
        Hostile(value: replacing(["entities", "Recipe", "superentity"], with: .string("Cake")), entity: "Cake", property: nil, key: "superentity"),
        Hostile(value: replacing(["entities", "Recipe", "uniqueness"], with: .object([:])), entity: "Recipe", property: nil, key: "uniqueness"),
        Hostile(
            value: replacing(["entities", "Recipe", "uniqueness"], with: .array([.string("name")])),
            entity: "Recipe", property: nil, key: "uniqueness"),
        Hostile(
            value: replacing(["entities", "Recipe", "indices"], with: .array([.array([.double(1.5)])])),
            entity: "Recipe", property: nil, key: "indices"),
    ]

    @Test(arguments: hostile)
    func aHostileDescriptionThrowsAnErrorNamingTheKeyAtFault(_ hostile: Hostile) {
        #expect {
            _ = try RecordedSchema(parsing: hostile.value)
        } throws: { error in
            guard let error = error as? RecordedSchemaError else { return false }
            return error.entity == hostile.entity && error.property == hostile.property && error.key == hostile.key
                && "\(error)".contains("'\(hostile.key)'")
        }
    }

    @Test func anEmptyEntityOrPropertyNameIsRefused() {
        let emptyEntity = Self.replacing(["entities", ""], with: .object(["properties": .object([:])]))
        #expect(throws: RecordedSchemaError.self) { _ = try RecordedSchema(parsing: emptyEntity) }
        let emptyProperty = Self.replacing(
            ["entities", "Book", "properties", ""], with: .object(["kind": .string("attribute"), "type": .string("Int")]))
        #expect(throws: RecordedSchemaError.self) { _ = try RecordedSchema(parsing: emptyProperty) }
    }

    /// Every member of the valid description replaced, one at a time, by values of every JSON kind:
    /// each either reads or throws, and never traps.
    @Test func replacingAnyMemberWithAnyValueReadsOrThrowsWithoutTrapping() {
        func paths(_ value: JSONValue, _ prefix: [String]) -> [[String]] {
            guard let members = value.objectValue else { return [] }
            return members.keys.sorted().flatMap { key in [prefix + [key]] + paths(members[key] ?? .null, prefix + [key]) }
        }
        let replacements: [JSONValue] = [
            .null, .bool(false), .int(-1), .double(0.5), .string(""), .string("Recipe"),
            .array([.null]), .object([:]), .object(["kind": .string("relationship")]),
        ]
        var outcomes = (read: 0, refused: 0)
        for path in paths(Self.valid, []) {
            for replacement in replacements {
                if (try? RecordedSchema(parsing: Self.replacing(path, with: replacement))) != nil {
                    outcomes.read += 1
                } else {
                    outcomes.refused += 1
                }
            }
        }
        #expect(outcomes.read > 0)
        #expect(outcomes.refused > 0)
    }

    @Test func versionsReadOnlyInTheirThreeNumberForm() {
        #expect(Schema.Version(parsing: "1.20.3") == Schema.Version(1, 20, 3))
        for text in ["", "1", "1.2", "1.2.3.4", "1..3", "a.b.c", "-1.0.0", "1.0.0 ", "99999999999999999999.0.0", "１.0.0"] {
            #expect(Schema.Version(parsing: text) == nil, "\(text)")
        }
    }
}
