import Foundation
import FolioStorage
import Testing
@testable import Folio

@Suite("Model encoding and decoding")
struct ModelCodingTests {
    /// Record numbers for related models in tests: the object identity, as a stand-in for the context.
    static func noRelationships(_ object: AnyObject) throws -> Int64 {
        Issue.record("unexpected relationship encoding")
        return 0
    }

    @Test func persistedPropertiesOfEveryFormAreListed() {
        let names = Specimen.schemaMetadata.map(\.name)
        #expect(
            names == [
                "text", "count", "ratio", "flag", "small", "big", "precise", "single", "note", "maybeCount", "when",
                "identifier", "link", "bytes", "tags", "labels", "scores", "matrix", "byNumber", "address",
                "availability", "difficulty", "mapItem", "photo", "serial", "scratch", "code", "default", "café",
                "platformNote",
            ])
    }

    @Test func metadataCarriesTypesDefaultsAndOptions() throws {
        let metadata = Dictionary(uniqueKeysWithValues: Specimen.schemaMetadata.map { ($0.name, $0) })
        let count = try #require(metadata["count"])
        #expect(ObjectIdentifier(count.valueType) == ObjectIdentifier(Int.self))
        #expect(count.defaultValue as? Int == 0)
        #expect(count.keypath == \Specimen.count)
        #expect(metadata["text"]?.defaultValue == nil)
        #expect(metadata["note"].map { ObjectIdentifier($0.valueType) == ObjectIdentifier(String?.self) } == true)
        #expect(metadata["flag"].map { ObjectIdentifier($0.valueType) == ObjectIdentifier(Bool.self) } == true)
        #expect(metadata["platformNote"]?.defaultValue as? String == "linux")
        let mapItem = try #require(metadata["mapItem"]?.metadata as? Schema.Attribute)
        #expect(mapItem.options == [.codable])
        let serial = try #require(metadata["serial"]?.metadata as? Schema.Attribute)
        #expect(serial.options == [.preserveValueOnDeletion])
        let code = try #require(metadata["code"]?.metadata as? Schema.Attribute)
        #expect(code.options == [.unique])
        let scratch = try #require(metadata["scratch"]?.metadata as? Schema.Attribute)
        #expect(scratch.hashModifier == "v2")
    }

    @Test func everyFormRoundTripsThroughAStoredRecord() throws {
        let when = Date(timeIntervalSinceReferenceDate: 786_000_123.456_789)
        let original = Specimen(text: "alpha", when: when)
        original.count = 42
        original.note = "hello \"world\" \u{2028}"
        original.tags = ["b", "a"]
        original.labels = ["z", "y", "x"]
        original.scores = ["math": 3, "art": 5]
        original.matrix = [[1, 2.5], []]
        original.byNumber = [3: "three", 1: "one"]
        original.address = Address(street: "1 Main St", city: "Lyon", postcode: nil)
        original.availability = .seasonal(from: 3, to: 9)
        original.difficulty = .hard
        original.mapItem = MapItemIdentifier(rawValue: "I7")
        original.photo = Data(repeating: 7, count: 16)
        original.code = "S-1"
        original.default = 9
        original.café = "thé"
        original.cache = ["not": "stored"]

        let values = try ModelRecordCoding.encode(original, recordNumber: Self.noRelationships)
        #expect(values["cache"] == nil)
        #expect(values["summary"] == nil)
        #expect(values["neverPersisted"] == nil)
        #expect(values["labels"] == .array([.string("x"), .string("y"), .string("z")]))
        #expect(values["big"] == .string("18446744073709551615"))
        #expect(values["difficulty"] == .int(3))
        #expect(values["identifier"] == .string("E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))

        let decoded = try #require(try ModelRecordCoding.decode(Specimen.self, from: values) as? Specimen)
        #expect(decoded.text == "alpha")
        #expect(decoded.count == 42)
        #expect(decoded.when == when)
        #expect(decoded.note == original.note)
        #expect(decoded.tags == ["b", "a"])
        #expect(decoded.labels == ["x", "y", "z"])
        #expect(decoded.scores == ["math": 3, "art": 5])
        #expect(decoded.matrix == [[1, 2.5], []])
        #expect(decoded.byNumber == [1: "one", 3: "three"])
        #expect(decoded.address == original.address)
        #expect(decoded.availability == .seasonal(from: 3, to: 9))
        #expect(decoded.difficulty == .hard)
        #expect(decoded.mapItem == MapItemIdentifier(rawValue: "I7"))
        #expect(decoded.photo == original.photo)
        #expect(decoded.big == UInt64.max)
        #expect(decoded.precise == Decimal(string: "12.345"))
        #expect(decoded.small == -3)
        #expect(decoded.single == 1.25)
        #expect(decoded.identifier == original.identifier)
        #expect(decoded.link == original.link)
        #expect(decoded.bytes == original.bytes)
        #expect(decoded.default == 9)
        #expect(decoded.café == "thé")
        #expect(decoded.cache.isEmpty)
        #expect(decoded.platformNote == "linux")
    }

    @Test func encodingIsDeterministic() throws {
        let first = Specimen(text: "x", when: Date(timeIntervalSince1970: 1_700_000_000))
        first.labels = Set((0..<50).map { "label\($0)" })
        first.byNumber = Dictionary(uniqueKeysWithValues: (0..<50).map { ($0, "n\($0)") })
        let second = Specimen(text: "x", when: Date(timeIntervalSince1970: 1_700_000_000))
        second.labels = Set((0..<50).reversed().map { "label\($0)" })
        second.byNumber = Dictionary(uniqueKeysWithValues: (0..<50).reversed().map { ($0, "n\($0)") })
        let a = try ModelRecordCoding.encode(first, recordNumber: Self.noRelationships)
        let b = try ModelRecordCoding.encode(second, recordNumber: Self.noRelationships)
        #expect(a == b)
    }

    @Test func nilOptionalsOfEveryFormAreStoredAsNullAndReadBackAsNil() throws {
        let original = Specimen(text: "t", when: Date(timeIntervalSince1970: 0))
        original.link = nil
        let values = try ModelRecordCoding.encode(original, recordNumber: Self.noRelationships)
        // A primitive, a URL, a Codable struct, a `.codable` attribute and external storage.
        for name in ["note", "maybeCount", "link", "address", "mapItem", "photo"] {
            #expect(values[name] == .null, "\(name)")
        }
        let decoded = try #require(try ModelRecordCoding.decode(Specimen.self, from: values) as? Specimen)
        #expect(decoded.link == nil)
        #expect(decoded.address == nil)
        #expect(decoded.mapItem == nil)
        #expect(decoded.photo == nil)
    }

    @Test func missingValuesTakeDefaultsAndOptionalsBecomeNil() throws {
        let decoded = try #require(
            try ModelRecordCoding.decode(
                Specimen.self,
                from: [
                    "text": .string("t"), "when": .string("2026-03-01T09:30:00Z"),
                ]) as? Specimen)
        #expect(decoded.count == 0)
        #expect(decoded.note == nil)
        #expect(decoded.ratio == 0.5)
        #expect(decoded.when == Date(timeIntervalSince1970: 1_772_357_400))
    }

    @Test func aMissingRequiredValueIsAnErrorNamingTheProperty() {
        #expect {
            _ = try ModelRecordCoding.decode(Specimen.self, from: ["text": .string("t")])
        } throws: { error in
            let coding = error as? ModelCodingError
            return coding?.property == "when" && coding?.entityName == "Specimen"
        }
    }

    @Test func aValueOfTheWrongKindIsAnErrorNamingThePathInsideTheValue() {
        #expect {
            _ = try ModelRecordCoding.decode(
                Specimen.self,
                from: [
                    "text": .string("t"), "when": .string("2026-03-01T09:30:00Z"),
                    "address": .object(["street": .string("s"), "city": .int(3)]),
                ])
        } throws: { error in
            "\(error)".hasPrefix("Specimen.address.city:")
        }
    }

    @Test func subclassRecordsIncludeTheSuperclassPropertiesAndDecodeAsTheSubclass() throws {
        let cake = BakedGood(name: "Cake", ovenTemperature: 200, glutenFree: true)
        cake.servings = 8
        let values = try ModelRecordCoding.encode(cake, recordNumber: Self.noRelationships)
        #expect(values["name"] == .string("Cake"))
        #expect(values["servings"] == .int(8))
        #expect(values["ovenTemperature"] == .int(200))
        #expect(values["glutenFree"] == .bool(true))
        let type: any PersistentModel.Type = BakedGood.self
        let decoded = try ModelRecordCoding.decode(type, from: values)
        let asRecipe = try #require(decoded as? Recipe)
        #expect(asRecipe is BakedGood)
        #expect(asRecipe.name == "Cake")
        #expect((asRecipe as? BakedGood)?.ovenTemperature == 200)
    }

    @Test func relationshipsAreStoredAsRecordNumbers() throws {
        let recipe = Recipe(name: "Soup")
        let salt = Ingredient(name: "salt", amount: 2)
        let water = Ingredient(name: "water", amount: 500, unit: .milliliter)
        recipe.ingredients = [salt, water]
        salt.recipe = recipe
        let numbers: [ObjectIdentifier: Int64] = [
            ObjectIdentifier(salt): 11, ObjectIdentifier(water): 12, ObjectIdentifier(recipe): 10,
        ]
        let lookup: (AnyObject) throws -> Int64 = { numbers[ObjectIdentifier($0)] ?? -1 }
        let recipeValues = try ModelRecordCoding.encode(recipe, recordNumber: lookup)
        #expect(recipeValues["ingredients"] == .array([.int(11), .int(12)]))
        #expect(recipeValues["cookbook"] == .null)
        let saltValues = try ModelRecordCoding.encode(salt, recordNumber: lookup)
        #expect(saltValues["recipe"] == .int(10))
        #expect(saltValues["unit"] == .string("gram"))
    }

    @Test func encodingOnlyChangedPropertiesWritesNothingElse() throws {
        let recipe = Recipe(name: "Tea")
        var encoder = ModelRecordEncoder(
            entityName: "Recipe", backingData: recipe.persistentBackingData,
            onlyProperties: ["servings"], recordNumber: Self.noRelationships)
        try recipe._folioEncode(to: &encoder)
        #expect(encoder.values == ["servings": .int(2)])
    }

    /// A model type's encoder expects the names it encoded last time; a model that encodes other names
    /// (leaving out a relationship it has not loaded, say) must still get exactly its own values.
    @Test(arguments: [
        ["title", "author", "year"],  // as expected
        ["title", "year"],  // one left out in the middle
        ["title", "author"],  // the last left out
        ["title", "author", "year", "pages"],  // one more
        ["year", "title", "author"],  // another order
        [],
    ])
    func anEncoderGivesTheValuesEncodedWhetherOrNotTheyFollowTheExpectedNames(_ names: [String]) throws {
        let expected = try #require(RecordArrangement(names: ["title", "author", "year"]))
        for arrangement in [expected, nil] {
            var encoder = ModelRecordEncoder(
                entityName: "Book", backingData: ModelBackingData(),
                arrangement: arrangement,
                recordNumber: Self.noRelationships)
            for (position, name) in names.enumerated() { encoder.append(.int(Int64(position)), forKey: name) }
            var dictionary: [String: JSONValue] = [:]
            for (position, name) in names.enumerated() { dictionary[name] = .int(Int64(position)) }
            #expect(encoder.values == RecordValues(dictionary))
            #expect(encoder.encodedNames == names)
        }
    }

    /// A `Codable` value that writes through every kind of container, and writes some keys twice.
    struct ContainerTour: Encodable {
        enum Keys: String, CodingKey { case plain, inner, list, parent, replacedByNested, replacedByValue }
        enum InnerKeys: String, CodingKey { case x, deeper }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode(1, forKey: .plain)
            var inner = container.nestedContainer(keyedBy: InnerKeys.self, forKey: .inner)
            try inner.encode("x", forKey: .x)
            var deeper = inner.nestedUnkeyedContainer(forKey: .deeper)
            try deeper.encode(true)
            var list = container.nestedUnkeyedContainer(forKey: .list)
            try list.encode(2)
            var element = list.nestedContainer(keyedBy: InnerKeys.self)
            try element.encode("in a list", forKey: .x)
            var parent = container.superEncoder(forKey: .parent).singleValueContainer()
            try parent.encode("from super")
            try container.encode("first", forKey: .replacedByNested)
            var nested = container.nestedContainer(keyedBy: InnerKeys.self, forKey: .replacedByNested)
            try nested.encode("second", forKey: .x)
            _ = container.nestedUnkeyedContainer(forKey: .replacedByValue)
            try container.encode("last", forKey: .replacedByValue)
        }
    }

    @Test func aCodableValueEncodesThroughNestedContainersAndTheLastWriteOfAKeyWins() throws {
        let encoded = try ValueEncoder.encode(ContainerTour())
        #expect(
            encoded
                == .object([
                    "plain": .int(1),
                    "inner": .object(["x": .string("x"), "deeper": .array([.bool(true)])]),
                    "list": .array([.int(2), .object(["x": .string("in a list")])]),
                    "parent": .string("from super"),
                    "replacedByNested": .object(["x": .string("second")]),
                    "replacedByValue": .string("last"),
                ]))
    }
}
