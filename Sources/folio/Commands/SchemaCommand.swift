import Folio
import FolioStorage

/// `folio schema STORE`: the schema the store records, with its version and checksum.
enum SchemaCommand: FolioSubcommand {
    static let spec = CommandSpec(
        name: "schema", abstract: "Show the schema a store records: entities, properties, version and checksum.",
        discussion: """
            Reads the schema from the store's manifest (the app's models as they were when it last opened the store),
            without changing the store. The checksum identifies the schema's stored shape, as SwiftData's version
            hashes do; a store written before checksums were recorded shows the checksum its schema gives.
            """,
        arguments: [.init(name: "STORE", help: "The store directory.")],
        options: [
            .flag("--json", help: "Print the schema as one JSON object instead of text."),
            .option("--at", value: "POINT", help: "Read the store as it was at POINT: " + StorePoint.help + "."),
        ],
        examples: ["folio schema Store", "folio schema Store --json | jq '.entities | keys'"])

    static func run(_ arguments: ParsedArguments, console: Console) throws -> Int32 {
        let path = arguments.positionals[0]
        let store = try StoreAccess.openReadOnly(path, at: arguments.value("--at").map(StorePoint.init))
        defer { store.close() }
        let schema = try recordedSchema(of: store, path: path)
        if arguments.flag("--json") {
            var value = schema
            value.recordedChecksum = schema.checksum
            var object = value.jsonValue.objectValue ?? [:]
            object["checksumRecorded"] = .bool(schema.recordedChecksum != nil)
            console.print(ValueFormatting.json(.object(object)))
            return ExitCode.success
        }
        let bold: (String) -> String = { console.styled($0, .bold) }
        let count = schema.entities.count
        console.print("\(bold("Version"))   \(schema.version ?? "none recorded")")
        console.print("\(bold("Checksum"))  \(checksumText(schema))")
        console.print("\(bold("Entities"))  \(count)")
        for name in schema.entities.keys.sorted() {
            guard let entity = schema.entities[name] else { continue }
            console.print()
            console.print(bold(entity.superentity.map { "\(name) : \($0)" } ?? name))
            var table = TextTable(headers: ["PROPERTY", "TYPE", "OPTIONS"])
            table.maximumCellWidth = 60
            for property in entity.properties.values.sorted(by: order) {
                table.append([property.name, property.typeDescription, details(property)])
            }
            let lines = entity.properties.isEmpty ? ["  (no properties)"] : table.render(width: console.width.map { $0 - 2 })
            for line in lines { console.print("  " + line) }
            // A `.unique` attribute also declared in `#Unique` is one constraint: show it once.
            let groups: ([[String]]) -> String = { groups in
                var seen: Set<[String]> = []
                return groups.filter { seen.insert($0).inserted }.map { "(" + $0.joined(separator: ", ") + ")" }.joined(separator: " ")
            }
            if !entity.uniqueness.isEmpty { console.print("  unique: \(groups(entity.uniqueness))") }
            if !entity.indices.isEmpty { console.print("  indexed: \(groups(entity.indices))") }
        }
        return ExitCode.success
    }

    /// The store's recorded schema, or a failure that says why there is none to show.
    static func recordedSchema(of store: Store, path: String) throws -> RecordedSchema {
        guard let value = store.schema else {
            throw CommandFailure(
                "The store at '\(path)' records no schema.",
                help: "An app records its models' schema the first time it opens the store with Folio.")
        }
        do {
            return try RecordedSchema(parsing: value)
        } catch {
            throw CommandFailure(
                "The schema recorded in '\(path)/manifest.json' cannot be read: \(error).",
                help: "Run 'folio verify \(path)'; the app rewrites the schema when it next opens the store.")
        }
    }

    /// The checksum, saying when it was computed because the store records none.
    static func checksumText(_ schema: RecordedSchema) -> String {
        schema.recordedChecksum ?? "\(schema.computedChecksum) (computed: the store records none)"
    }

    /// Attributes first, then relationships, each by name.
    private static func order(_ lhs: RecordedSchema.Property, _ rhs: RecordedSchema.Property) -> Bool {
        if lhs.isRelationship != rhs.isRelationship { return !lhs.isRelationship }
        return lhs.name < rhs.name
    }

    private static func details(_ property: RecordedSchema.Property) -> String {
        var parts = property.options
        if let originalName = property.originalName { parts.append("originalName \(originalName)") }
        if let inverse = property.inverse { parts.append("inverse \(inverse)") }
        if let deleteRule = property.deleteRule { parts.append("delete \(deleteRule)") }
        return parts.joined(separator: ", ")
    }
}
