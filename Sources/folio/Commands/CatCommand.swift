import Foundation
import FolioStorage

/// `folio cat STORE ENTITY`: the records of an entity, filtered, sorted and limited.
enum CatCommand: FolioSubcommand {
    static let spec = CommandSpec(
        name: "cat", abstract: "Print the records of an entity, filtered with --where, sorted and limited.",
        discussion: """
            Prints an aligned table on a terminal and JSON lines ({"entity":…,"id":…,"values":{…}}) otherwise.
            Records of subentities are included (as a fetch of the superclass returns them) unless --exact is given.

            The --where syntax (see docs/cli.md):
              FIELD OP VALUE      OP is ==, =, !=, <, <=, >, >= or contains
              A and B, A or B, not A, ( … )     'and' binds tighter than 'or'
              VALUE               a number, true, false, null, "quoted" or 'quoted' text, or a bare word
            Fields are property names, plus id and entity; a.b reads inside an object value. 'contains' is a
            case-insensitive substring test on text, or membership in an array (a to-many relationship).
            Dates compare as dates: startDate >= 2026-06-01.
            """,
        arguments: [
            .init(name: "STORE", help: "The store directory."),
            .init(name: "ENTITY", help: "The entity (model type) to print."),
        ],
        options: [
            .option("--where", "-w", value: "FILTER", help: "Only records matching the filter.", repeatable: true),
            .option("--sort", "-s", value: "FIELDS", help: "Sort by fields, comma-separated; -field or field:desc for descending."),
            .option("--limit", "-n", value: "N", help: "Print at most N records."),
            .option("--offset", value: "N", help: "Skip the first N records (after sorting)."),
            .option("--fields", "-f", value: "FIELDS", help: "Only these fields, comma-separated (id is always shown)."),
            .flag("--exact", help: "Only records of ENTITY itself, not of its subentities."),
            .flag("--json", help: "JSON lines even on a terminal."),
            .flag("--table", help: "An aligned table even when not on a terminal."),
            .flag("--count", help: "Print only the number of matching records."),
            .option("--at", value: "POINT", help: "Read the store as it was at POINT: " + StorePoint.help + "."),
        ],
        examples: [
            "folio cat Store Trip --where 'destination == Rome and price < 1200' --sort -price --limit 5",
            "folio cat Store Recipe --where 'name contains tart' --fields name,servings",
            "folio cat Store Trip --json | jq .values.name",
        ])

    static func run(_ arguments: ParsedArguments, console: Console) throws -> Int32 {
        let path = arguments.positionals[0]
        let entity = arguments.positionals[1]
        let filters: [Filter] = try arguments.all("--where").map { (text: String) throws -> Filter in
            do { return try Filter.parse(text) } catch let error as FilterSyntaxError {
                throw UsageError(
                    "Invalid filter '\(text)': \(error.message) (at character \(error.column + 1)).",
                    help: "Write comparisons like \"price < 100\" joined with and/or; see 'folio help cat'.", command: spec.name)
            }
        }
        let sortKeys = try parseSort(arguments.value("--sort"))
        let limit = try arguments.integer("--limit", command: spec.name)
        let offset = try arguments.integer("--offset", command: spec.name) ?? 0
        let wanted = (arguments.value("--fields")?.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }) ?? []
        let store = try StoreAccess.openReadOnly(path, at: arguments.value("--at").map(StorePoint.init))
        defer { store.close() }
        let schema = SchemaInfo(store.schema)
        let query = RecordQuery(
            entity: entity, filters: filters, sortKeys: sortKeys, wantedFields: wanted,
            exact: arguments.flag("--exact"), offset: offset, limit: limit)
        let result: RecordQuery.Result
        do { result = try query.run(on: store, schema: schema) } catch {
            let message = if case .unknownEntity = error { "\(error.message) in the store at '\(path)'." } else { error.message }
            throw UsageError(message, help: error.help, command: spec.name)
        }
        let records = result.records
        let fieldNames = result.fieldNames
        let entities = result.entities

        if arguments.flag("--count") {
            console.print("\(records.count)")
            return ExitCode.success
        }
        let columns = wanted.isEmpty ? fieldNames : wanted.filter { $0 != "id" }
        let asTable = arguments.flag("--table") || (console.outputIsTerminal && !arguments.flag("--json"))
        if !asTable {
            for record in records {
                var shown = record
                if !wanted.isEmpty { shown.values = record.values.filter { columns.contains($0) } }
                console.print(ValueFormatting.json(ValueFormatting.recordJSON(shown)))
            }
            return ExitCode.success
        }
        let showEntity = entities.count > 1
        var table = TextTable(headers: ["ID"] + (showEntity ? ["ENTITY"] : []) + columns)
        table.rightAligned = [0]
        for (index, column) in columns.enumerated() {
            let values = records.compactMap { $0.values[column] }
            if !values.isEmpty, values.allSatisfy({ $0.doubleValue != nil }) { table.rightAligned.insert(index + 1 + (showEntity ? 1 : 0)) }
        }
        for record in records {
            table.append(["\(record.id)"] + (showEntity ? [record.entity] : []) + columns.map { ValueFormatting.cell(record.values[$0]) })
        }
        for line in table.render(width: console.width, headerStyle: { console.styled($0, .bold) }) { console.print(line) }
        console.print(console.styled("(\(records.count) record\(records.count == 1 ? "" : "s"))", .dim))
        return ExitCode.success
    }

    typealias SortKey = RecordQuery.SortKey

    static func parseSort(_ text: String?) throws -> [SortKey] {
        guard let text else { return [] }
        guard let keys = RecordQuery.parseSort(text) else {
            throw UsageError(
                "The value '\(text)' is invalid for '--sort <FIELDS>'.", help: "Write fields separated by commas: --sort destination,-price",
                command: spec.name)
        }
        return keys
    }
}
