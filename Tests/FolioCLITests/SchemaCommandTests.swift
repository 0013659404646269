import Foundation
import FolioStorage
import Testing

@Suite("schema, and the schema in info")
struct SchemaCommandTests {
    /// The library store's schema with a recorded checksum, as a container writes it.
    static let recordedChecksum = String(repeating: "0f", count: 32)

    /// The library store with its schema slot replaced by `schema`.
    static func writeLibrary(to url: URL, schema: JSONValue) throws {
        try LibraryStore.write(to: url)
        let store = try Store.open(at: url)
        defer { store.close() }
        try store.write(author: "test") { transaction in transaction.setSchema(schema) }
    }

    static func isChecksum(_ text: String?) -> Bool {
        guard let text else { return false }
        return text.count == 64 && text.allSatisfy { $0.isHexDigit && !$0.isUppercase }
    }

    @Test func schemaPrintsEntitiesPropertiesVersionAndTheChecksumItComputesForAnOlderStore() throws {
        let scratch = ScratchDirectory()
        defer { scratch.remove() }
        let store = scratch.appending("library")
        try LibraryStore.write(to: store)
        let run = try folio("schema", store.path)
        #expect(run.status == 0, "\(run)")
        #expect(run.stdout.contains("Version   1.0.0"))
        #expect(run.stdout.contains("(computed: the store records none)"))
        #expect(run.stdout.contains("Entities  2"))
        let lines = run.stdout.split(separator: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ") }
        #expect(lines.contains("Author"))
        #expect(lines.contains("name String unique"))
        #expect(lines.contains("born Date?"))
        #expect(lines.contains("books to-many Book inverse author, delete nullify"))
        #expect(lines.contains("title String originalName name"))
        #expect(lines.contains("cover Data? externalStorage"))
        #expect(lines.contains("author to-one Author? inverse books, delete nullify"))
        #expect(lines.contains("unique: (name)"))
    }

    @Test func schemaJSONIsTheRecordedDescriptionWithItsChecksum() throws {
        let scratch = ScratchDirectory()
        defer { scratch.remove() }
        let store = scratch.appending("library")
        try LibraryStore.write(to: store)
        let lines = try folio("schema", store.path, "--json").jsonLines()
        #expect(lines.count == 1)
        let root = try #require(lines.first?.objectValue)
        #expect(root["version"]?.stringValue == "1.0.0")
        #expect(root["checksumRecorded"]?.boolValue == false)
        #expect(Self.isChecksum(root["checksum"]?.stringValue))
        let book = root["entities"]?.objectValue?["Book"]?.objectValue?["properties"]?.objectValue
        #expect(book?["title"]?.objectValue?["originalName"]?.stringValue == "name")
        #expect(book?["author"]?.objectValue?["destination"]?.stringValue == "Author")
        #expect(book?["pages"]?.objectValue?["type"]?.stringValue == "Int")
    }

    @Test func aRecordedChecksumIsShownAsRecordedBySchemaAndInfo() throws {
        let scratch = ScratchDirectory()
        defer { scratch.remove() }
        let store = scratch.appending("library")
        guard case .object(var members) = LibraryStore.schema else { return }
        members["checksum"] = .string(Self.recordedChecksum)
        try Self.writeLibrary(to: store, schema: .object(members))
        let schema = try folio("schema", store.path)
        #expect(schema.stdout.contains("Checksum  \(Self.recordedChecksum)\n"), "\(schema)")
        let info = try folio("info", store.path)
        #expect(info.stdout.contains("Schema      version 1.0.0, 2 entities"))
        #expect(info.stdout.contains("Checksum    \(Self.recordedChecksum)\n"), "\(info)")
        let json = try #require(try folio("info", store.path, "--json").jsonLines().first?.objectValue)
        #expect(json["schemaVersion"]?.stringValue == "1.0.0")
        #expect(json["schemaChecksum"]?.stringValue == Self.recordedChecksum)
        let schemaJSON = try #require(try folio("schema", store.path, "--json").jsonLines().first?.objectValue)
        #expect(schemaJSON["checksumRecorded"]?.boolValue == true)
    }

    @Test func aStoreAnAppWroteRecordsTheChecksumItsSchemaGives() throws {
        let run = try folio("schema", DemoStore.path, "--json")
        let root = try #require(try run.jsonLines().first?.objectValue)
        #expect(root["checksumRecorded"]?.boolValue == true)
        #expect(Self.isChecksum(root["checksum"]?.stringValue))
        let text = try folio("schema", DemoStore.path)
        #expect(text.stdout.contains("BakedGood : Recipe"))
        #expect(!text.stdout.contains("computed"))
        let info = try folio("info", DemoStore.path)
        #expect(info.stdout.contains("Checksum    \(root["checksum"]?.stringValue ?? "-")"))
    }

    /// The fingerprint `docs/file-format.md` ("The schema checksum") spells out, built from a printed description.
    static func documentedFingerprint(_ description: [String: JSONValue]) -> JSONValue {
        var entities: [String: JSONValue] = [:]
        for (name, entity) in description["entities"]?.objectValue ?? [:] {
            let members = entity.objectValue ?? [:]
            var properties: [String: JSONValue] = [:]
            for (propertyName, property) in members["properties"]?.objectValue ?? [:] {
                let p = property.objectValue ?? [:]
                let options = p["options"]?.arrayValue?.compactMap(\.stringValue) ?? []
                if options.contains("ephemeral") { continue }
                var fingerprint: [String: JSONValue] = [
                    "kind": p["kind"] ?? .null, "optional": .bool(p["optional"]?.boolValue ?? false),
                    "unique": .bool(options.contains("unique")),
                ]
                if p["kind"]?.stringValue == "relationship" {
                    fingerprint["destination"] = p["destination"]
                    fingerprint["toMany"] = p["toMany"]
                } else {
                    fingerprint["type"] = p["type"]
                }
                properties[propertyName] = .object(fingerprint)
            }
            let groups = Set((members["uniqueness"]?.arrayValue ?? []).map { ($0.arrayValue ?? []).compactMap(\.stringValue).sorted() })
            var entry: [String: JSONValue] = [
                "properties": .object(properties),
                "uniqueness": .array(groups.sorted { $0.lexicographicallyPrecedes($1) }.map { .array($0.map { .string($0) }) }),
            ]
            if let superentity = members["superentity"] { entry["superentity"] = superentity }
            entities[name] = .object(entry)
        }
        return .object(["algorithm": .string("folio-schema-checksum-1"), "entities": .object(entities)])
    }

    @Test func theChecksumIsTheSHA256OfTheDocumentedFingerprint() throws {
        let root = try #require(try folio("schema", DemoStore.path, "--json").jsonLines().first?.objectValue)
        let bytes = try CanonicalJSONWriter().bytes(Self.documentedFingerprint(root))
        #expect(SHA256.hexDigest(bytes) == root["checksum"]?.stringValue)
    }

    @Test func aStoreWithoutSchemaFailsWithAHelpLine() throws {
        let scratch = ScratchDirectory()
        defer { scratch.remove() }
        let store = scratch.appending("bare")
        let bare = try Store.open(at: store)
        try bare.write(author: nil) { transaction in
            let id = transaction.allocateID()
            try transaction.insert(entity: "Thing", id: id, values: ["name": .string("one")])
        }
        bare.close()
        let run = try folio("schema", store.path)
        #expect(run.status == 1)
        #expect(run.stderr.contains("records no schema"))
        #expect(run.stderr.contains("Help: "))
        #expect(try folio("info", store.path).stdout.contains("Schema      none recorded"))
    }

    @Test func aHostileRecordedSchemaIsReportedNamingTheKeyAndInfoStillWorks() throws {
        let scratch = ScratchDirectory()
        defer { scratch.remove() }
        let store = scratch.appending("library")
        let hostile: JSONValue = .object([
            "version": .string("1.0.0"),
            "entities": .object([
                "Book": .object(["properties": .object(["pages": .object(["kind": .string("attribute"), "type": .int(3)])])])
            ]),
        ])
        try Self.writeLibrary(to: store, schema: hostile)
        let run = try folio("schema", store.path)
        #expect(run.status == 1, "\(run)")
        #expect(run.stderr.contains("entity 'Book', property 'pages', 'type' is not a type name"), "\(run)")
        #expect(!run.stderr.contains("Fatal error"))
        let info = try folio("info", store.path)
        #expect(info.status == 0, "\(info)")
        #expect(!info.stdout.contains("Checksum"))
        for value: JSONValue in [.array([]), .string("v1"), .object(["entities": .int(1)])] {
            let other = scratch.appending("other-\(UUID().uuidString.prefix(6))")
            try Self.writeLibrary(to: other, schema: value)
            let refused = try folio("schema", other.path)
            #expect(refused.status == 1, "\(refused)")
            #expect(refused.stderr.contains("cannot be read"), "\(refused)")
        }
    }

    @Test func theSchemaSubcommandIsListedInHelp() throws {
        let help = try folio("--help")
        #expect(help.stdout.contains("  schema "))
        let own = try folio("help", "schema")
        #expect(own.status == 0)
        #expect(own.stdout.contains("--json"))
    }
}
