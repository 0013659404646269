import Foundation
import FolioStorage

/// `folio import STORE FILE`: records from an export (jsonl, json, csv) into a store, in one transaction.
enum ImportCommand: FolioSubcommand {
    static let spec = CommandSpec(
        name: "import", abstract: "Add records from a jsonl, json or csv file to a store, in one transaction.",
        discussion: """
            Reads what 'folio export' writes. The store is created if the directory does not exist. Identifiers
            are kept when none of them is already used or was ever allocated in the store (importing into a new
            store keeps them); otherwise every imported record gets a new identifier and relationships between
            imported records are rewritten, which needs a schema (the store's, or the one in a json export).
            A json export's schema is recorded when the store has none. CSV needs --entity; cells are typed by
            the schema (Int, Double, Bool, Date, relationships as identifiers), otherwise read as JSON when they
            parse and as text when they do not. The transaction's author is 'folio import' unless --author is given.
            """,
        arguments: [
            .init(name: "STORE", help: "The store directory (created if missing)."),
            .init(name: "FILE", help: "The file to read, or - for standard input."),
        ],
        options: [
            .option("--format", value: "FORMAT", help: "jsonl, json or csv (default: from the file name, else jsonl)."),
            .option("--entity", "-e", value: "ENTITY", help: "The entity of CSV rows."),
            .option("--author", value: "NAME", help: "The transaction's author (default 'folio import')."),
        ],
        examples: ["folio export Old > all.jsonl && folio import New all.jsonl", "folio import Store trips.csv --entity Trip"])

    static func run(_ arguments: ParsedArguments, console: Console) throws -> Int32 {
        let path = arguments.positionals[0]
        let file = arguments.positionals[1]
        let formatText =
            arguments.value("--format")
            ?? (file.hasSuffix(".csv") ? "csv" : file.hasSuffix(".json") ? "json" : "jsonl")
        guard let format = ExportCommand.Format(rawValue: formatText) else {
            throw UsageError(
                "The value '\(formatText)' is invalid for '--format <FORMAT>'.", help: "Use one of: jsonl, json, csv.", command: spec.name)
        }
        if format == .csv, arguments.value("--entity") == nil {
            throw UsageError("CSV import needs the entity of its rows.", help: "Add --entity ENTITY.", command: spec.name)
        }
        let data: Data
        if file == "-" {
            data = FileHandle.standardInput.readDataToEndOfFile()
        } else {
            guard let contents = FileHandle(forReadingAtPath: file).map({ $0.readDataToEndOfFile() }) else {
                throw CommandFailure("Cannot read '\(file)'.", help: "Check the path; use - for standard input.")
            }
            data = contents
        }
        let store = try StoreAccess.openWritable(path, create: true)
        defer { store.close() }
        var fileSchema: JSONValue? = nil
        var records: [StoredRecord] = []
        switch format {
        case .jsonl:
            var number = 0
            for line in data.split(separator: 0x0A, omittingEmptySubsequences: false) {
                number += 1
                var bytes = Array(line)
                if bytes.last == 0x0D { bytes.removeLast() }
                if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { continue }
                records.append(try record(from: bytes, where: "\(file):\(number)"))
            }
        case .json:
            let root: JSONValue
            do { root = try JSONReader().parse(Array(data)) } catch {
                throw CommandFailure("\(file) is not valid JSON: \(error.message)", help: "Give a file written by 'folio export --format json'.")
            }
            guard let object = root.objectValue, let list = object["records"]?.arrayValue else {
                throw CommandFailure(
                    "\(file) is not a folio export: it has no \"records\" array.", help: "Give a file written by 'folio export --format json'.")
            }
            fileSchema = object["schema"]
            for (index, element) in list.enumerated() {
                records.append(try record(from: element, where: "\(file): record \(index + 1)"))
            }
        case .csv:
            let entity = arguments.value("--entity")!
            guard let text = String(data: data, encoding: .utf8) else { throw CommandFailure("\(file) is not UTF-8 text.") }
            let rows = try CSV.parse(text)
            guard let header = rows.first else { throw CommandFailure("\(file) is empty.") }
            let schema = SchemaInfo(store.schema)
            var nextTemporary: Int64 = 1
            for (index, row) in rows.dropFirst().enumerated() where !(row.count == 1 && row[0].isEmpty) {
                var values: [String: JSONValue] = [:]
                var id: Int64? = nil
                for (column, name) in header.enumerated() where column < row.count {
                    let cell = row[column]
                    if name == "id" {
                        guard let number = Int64(cell) else { throw CommandFailure("\(file) row \(index + 2): id '\(cell)' is not a whole number.") }
                        id = number
                        continue
                    }
                    if cell.isEmpty { continue }
                    values[name] = typed(cell, property: schema?.property(name, of: entity))
                }
                let recordID: Int64
                if let id {
                    recordID = id
                } else {
                    recordID = -nextTemporary
                    nextTemporary += 1
                }
                records.append(StoredRecord(entity: entity, id: recordID, values: values))
            }
        }
        if records.isEmpty && fileSchema == nil {
            console.print("\(file) holds no records: nothing imported.")
            return ExitCode.success
        }
        var seen = Set<Int64>()
        for record in records where !seen.insert(record.id).inserted {
            throw CommandFailure("\(file) holds two records with identifier \(record.id).", help: "Identifiers must be unique across the file.")
        }
        let schema = SchemaInfo(store.schema ?? fileSchema)
        let keepIdentifiers = records.allSatisfy { $0.id >= store.nextID && $0.id > 0 }
        if !keepIdentifiers, schema == nil, records.contains(where: { !$0.values.isEmpty }) {
            // Without a schema, relationships cannot be told from numbers: refuse rather than corrupt them.
            if records.contains(where: { $0.id > 0 }) {
                throw CommandFailure(
                    "The imported identifiers collide with identifiers the store has used, and the store records no schema to rewrite relationships with.",
                    help: "Import into a new store, or export with --format json (which carries the schema).")
            }
        }
        let progress = Progress("Importing", total: records.count, console: console)
        var mapping: [Int64: Int64] = [:]
        let committed: JournalTransaction?
        do {
            committed = try store.write(author: arguments.value("--author") ?? "folio import") { transaction in
                if store.schema == nil, let fileSchema { transaction.setSchema(fileSchema) }
                for record in records {
                    mapping[record.id] = keepIdentifiers ? record.id : transaction.allocateID()
                }
                for record in records {
                    var values = record.values
                    if !keepIdentifiers, let schema {
                        for relationship in schema.relationships(of: record.entity) {
                            guard let value = values[relationship.name] else { continue }
                            switch value {
                            case .int(let target): values[relationship.name] = .int(mapping[target] ?? target)
                            case .array(let targets):
                                values[relationship.name] = .array(targets.map { $0.intValue.map { .int(mapping[$0] ?? $0) } ?? $0 })
                            default: break
                            }
                        }
                    }
                    try transaction.insert(entity: record.entity, id: mapping[record.id]!, values: values)
                    progress.advance()
                }
            }
        } catch let error as StorageError {
            progress.finish()
            throw CommandFailure("Nothing was imported: \(error)", help: "Fix the file (see 'folio help import') and run the import again.")
        }
        progress.finish()
        let entities = Dictionary(grouping: records, by: \.entity).mapValues(\.count).sorted { $0.key < $1.key }
        console.print(
            "Imported \(records.count) record\(records.count == 1 ? "" : "s") into \(store.directory?.path ?? path) in transaction \(committed?.sequence ?? store.lastSequence)\(keepIdentifiers ? "" : " (with new identifiers)"):"
        )
        for (entity, count) in entities { console.print("  \(entity): \(count)") }
        return ExitCode.success
    }

    static func record(from bytes: [UInt8], where place: String) throws -> StoredRecord {
        let value: JSONValue
        do { value = try JSONReader().parse(bytes) } catch {
            throw CommandFailure(
                "\(place) is not valid JSON: \(error.message)",
                help: "Each line must be {\"entity\":…,\"id\":…,\"values\":{…}}, as 'folio export' writes.")
        }
        return try record(from: value, where: place)
    }

    static func record(from value: JSONValue, where place: String) throws -> StoredRecord {
        guard let object = value.objectValue, let entity = object["entity"]?.stringValue, let id = object["id"]?.intValue,
            let values = object["values"]?.objectValue
        else {
            throw CommandFailure(
                "\(place) is not a record.", help: "Each record must be {\"entity\":…,\"id\":…,\"values\":{…}}, as 'folio export' writes.")
        }
        guard Store.isValidEntityName(entity) else {
            throw CommandFailure("\(place): '\(entity)' is not a valid entity name.", help: "Use ASCII letters, digits, '_', '-', '.'.")
        }
        return StoredRecord(entity: entity, id: id, values: values)
    }

    /// A CSV cell as a stored value, typed by the schema when it knows the property.
    static func typed(_ cell: String, property: SchemaInfo.Property?) -> JSONValue {
        if let property {
            if property.isRelationship {
                if let id = Int64(cell) { return .int(id) }
                if let parsed = try? JSONReader().parse(cell) { return parsed }
            }
            switch property.type {
            case "String": return .string(cell)
            case "Int", "Int64", "Int32", "Int16", "Int8", "UInt", "UInt64", "UInt32", "UInt16", "UInt8":
                if let number = Int64(cell) { return .int(number) }
            case "Double", "Float", "CGFloat", "Decimal":
                if let number = Double(cell) { return .double(number) }
            case "Bool":
                if cell == "true" || cell == "false" { return .bool(cell == "true") }
            case "Date":
                if let date = DateText.parse(cell) { return .string(DateText.canonical(date)) }
            default:
                break
            }
        }
        if let parsed = try? JSONReader().parse(cell) { return parsed }
        return .string(cell)
    }
}

extension DateText {
    /// Folio's stored form: `2026-03-01T09:30:00Z`, with a fraction only when there is one.
    static func canonical(_ date: Date) -> String {
        let iso = self.iso(date)  // …:00.000Z
        if iso.hasSuffix(".000Z") { return String(iso.dropLast(5)) + "Z" }
        var trimmed = String(iso.dropLast())
        while trimmed.hasSuffix("0") { trimmed.removeLast() }
        return trimmed + "Z"
    }
}
