import Foundation
import FolioStorage

/// `folio export STORE --format jsonl|json|csv`.
enum ExportCommand: FolioSubcommand {
    static let spec = CommandSpec(
        name: "export", abstract: "Write a store's records as JSON lines, one JSON document, or CSV.",
        discussion: """
            jsonl: one {"entity":…,"id":…,"values":{…}} object per line, entities in name order, records by id.
            json:  {"format":"folio-export","version":1,"schema":…,"records":[…]} with the same record objects.
            csv:   one entity (give --entity), a header row of id and the property names, values as text
                   (dates as stored, arrays and objects as JSON, null as an empty cell).
            'folio import' reads all three back.
            """,
        arguments: [.init(name: "STORE", help: "The store directory.")],
        options: [
            .option("--format", value: "FORMAT", help: "jsonl (the default), json or csv."),
            .option("--entity", "-e", value: "ENTITY", help: "Only this entity (with its subentities unless --exact).", repeatable: true),
            .flag("--exact", help: "With --entity: not its subentities."),
            .option("--output", "-o", value: "FILE", help: "Write to FILE instead of standard output."),
            .option("--at", value: "POINT", help: "Read the store as it was at POINT: " + StorePoint.help + "."),
        ],
        examples: [
            "folio export Store > store.jsonl", "folio export Store --format csv --entity Trip -o trips.csv",
            "folio export Store --format json | jq '.records | length'",
        ])

    enum Format: String, CaseIterable { case jsonl, json, csv }

    static func run(_ arguments: ParsedArguments, console: Console) throws -> Int32 {
        let path = arguments.positionals[0]
        let formatText = arguments.value("--format") ?? "jsonl"
        guard let format = Format(rawValue: formatText) else {
            throw UsageError(
                "The value '\(formatText)' is invalid for '--format <FORMAT>'.",
                help: "Use one of: jsonl, json, csv.", command: spec.name)
        }
        let store = try StoreAccess.openReadOnly(path, at: arguments.value("--at").map(StorePoint.init))
        defer { store.close() }
        let schema = SchemaInfo(store.schema)
        var entities = store.entityNames
        let requested = arguments.all("--entity")
        if !requested.isEmpty {
            let known = Set(store.entityNames).union(schema?.entities.keys.map { $0 } ?? [])
            var selected: [String] = []
            for name in requested {
                guard known.contains(name) else {
                    throw UsageError(
                        "Unknown entity '\(name)' in the store at '\(path)'.",
                        help: EditDistance.closest(to: name, in: Array(known)).map { "Did you mean '\($0)'?" }
                            ?? "Entities: \(known.sorted().joined(separator: ", ")).",
                        command: spec.name)
                }
                selected += arguments.flag("--exact") ? [name] : (schema?.selfAndDescendants(name) ?? [name])
            }
            entities = Array(Set(selected)).sorted()
        }
        if format == .csv, Set(entities).count > 1 || (entities.isEmpty && requested.isEmpty) {
            throw UsageError(
                "CSV holds one entity, and this export has \(entities.count): \(entities.joined(separator: ", ")).",
                help: "Give one with --entity ENTITY --exact, or use --format jsonl.", command: spec.name)
        }
        var output: FileHandle? = nil
        if let file = arguments.value("--output") {
            guard FileManager.default.createFile(atPath: file, contents: nil), let handle = FileHandle(forWritingAtPath: file) else {
                throw CommandFailure("Cannot write to '\(file)'.", help: "Check that its directory exists and is writable.")
            }
            output = handle
        }
        defer { try? output?.close() }
        var buffer: [UInt8] = []
        func emit(_ text: String) {
            buffer.append(contentsOf: text.utf8)
            if buffer.count > 1 << 16 { flush() }
        }
        func flush() {
            if let output { output.write(Data(buffer)) } else { console.write(bytes: buffer) }
            buffer.removeAll(keepingCapacity: true)
        }
        let total = entities.reduce(0) { $0 + store.count(of: $1) }
        let progress = Progress("Exporting", total: total, console: console)
        switch format {
        case .jsonl:
            for entity in entities {
                for record in store.records(of: entity) {
                    emit(ValueFormatting.json(ValueFormatting.recordJSON(record)) + "\n")
                    progress.advance()
                }
            }
        case .json:
            emit("{\n  \"format\": \"folio-export\",\n  \"version\": 1,\n")
            if let schemaValue = store.schema { emit("  \"schema\": \(ValueFormatting.json(schemaValue)),\n") }
            emit("  \"records\": [")
            var first = true
            for entity in entities {
                for record in store.records(of: entity) {
                    emit((first ? "\n    " : ",\n    ") + ValueFormatting.json(ValueFormatting.recordJSON(record)))
                    first = false
                    progress.advance()
                }
            }
            emit(first ? "]\n}\n" : "\n  ]\n}\n")
        case .csv:
            let entity = entities.first ?? requested[0]
            let records = store.records(of: entity)
            var columns = schema?.propertyNames(of: entity) ?? []
            let extra = Set(records.flatMap(\.values.keys)).subtracting(columns).sorted()
            columns += extra
            emit((["id"] + columns).map(CSV.field).joined(separator: ",") + "\r\n")
            for record in records {
                let cells =
                    ["\(record.id)"]
                    + columns.map { column -> String in
                        guard let value = record.values[column] else { return "" }
                        if value.isNull { return "" }
                        return value.stringValue ?? ValueFormatting.json(value)
                    }
                emit(cells.map(CSV.field).joined(separator: ",") + "\r\n")
                progress.advance()
            }
        }
        flush()
        progress.finish()
        if let file = arguments.value("--output") {
            console.error("Exported \(total) record\(total == 1 ? "" : "s") to \(file)")
        }
        return ExitCode.success
    }
}

/// RFC 4180 CSV: fields quoted when they hold a comma, quote, CR or LF; quotes doubled.
enum CSV {
    static func field(_ text: String) -> String {
        if text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) || text.hasPrefix(" ") || text.hasSuffix(" ") {
            return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        }
        return text
    }

    /// Parses CSV text into rows of fields.
    static func parse(_ text: String) throws -> [[String]] {
        var rows: [[String]] = []
        var row: [String] = []
        var field = ""
        var inQuotes = false
        var fieldStarted = false
        var iterator = Array(text.unicodeScalars).makeIterator()
        var pending: Unicode.Scalar? = nil
        func next() -> Unicode.Scalar? {
            if let p = pending { pending = nil; return p }
            return iterator.next()
        }
        while let c = next() {
            if inQuotes {
                if c == "\"" {
                    if let n = next() {
                        if n == "\"" { field.unicodeScalars.append("\"") } else { inQuotes = false; pending = n }
                    } else {
                        inQuotes = false
                    }
                } else {
                    field.unicodeScalars.append(c)
                }
                continue
            }
            switch c {
            case "\"" where !fieldStarted || field.isEmpty:
                inQuotes = true
                fieldStarted = true
            case ",":
                row.append(field)
                field = ""
                fieldStarted = false
            case "\r":
                continue
            case "\n":
                row.append(field)
                rows.append(row)
                row = []
                field = ""
                fieldStarted = false
            default:
                field.unicodeScalars.append(c)
                fieldStarted = true
            }
        }
        if inQuotes { throw CommandFailure("The CSV ends inside a quoted field.", help: "Close the quote.") }
        if fieldStarted || !field.isEmpty || !row.isEmpty {
            row.append(field)
            rows.append(row)
        }
        return rows
    }
}
