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
        let store = try StoreAccess.openReadOnly(path)
        defer { store.close() }
        let schema = SchemaInfo(store.schema)

        let known = Set(store.entityNames).union(schema?.entities.keys.map { $0 } ?? [])
        guard known.contains(entity) else {
            let suggestion = EditDistance.closest(to: entity, in: Array(known))
            throw UsageError(
                "Unknown entity '\(entity)' in the store at '\(path)'.",
                help: suggestion.map { "Did you mean '\($0)'?" }
                    ?? (known.isEmpty ? "The store holds no records." : "Entities: \(known.sorted().joined(separator: ", ")).") , command: spec.name)
        }
        let entities = arguments.flag("--exact") ? [entity] : (schema?.selfAndDescendants(entity) ?? [entity])
        var fieldNames: [String] = []
        if let schema {
            var seen = Set<String>()
            for name in entities {
                for property in schema.propertyNames(of: name) where seen.insert(property).inserted { fieldNames.append(property) }
            }
        }
        var records = entities.flatMap { store.records(of: $0) }
        if fieldNames.isEmpty || schema == nil {
            fieldNames = Array(Set(records.flatMap(\.values.keys))).sorted()
        }
        // Check field names against the schema, to catch typos.
        let checkable = Set(fieldNames + ["id", "entity"])
        let wanted = (arguments.value("--fields")?.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }) ?? []
        if schema != nil {
            let mentioned: [String] = filters.flatMap { $0.fields } + sortKeys.map { $0.field } + wanted
            for field in mentioned where !checkable.contains(field) {
                let suggestion = EditDistance.closest(to: field, in: Array(checkable))
                throw UsageError(
                    "Unknown field '\(field)' for \(entity).",
                    help: suggestion.map { "Did you mean '\($0)'?" } ?? "Fields: \(fieldNames.joined(separator: ", ")).", command: spec.name)
            }
        }
        let isDate: (String) -> Bool = { field in entities.contains { schema?.property(field, of: $0)?.isDate ?? false } }
        if !filters.isEmpty {
            records = records.filter { record in filters.allSatisfy { $0.matches(record, isDate: isDate) } }
        }
        if sortKeys.isEmpty {
            records.sort { $0.id < $1.id }
        } else {
            records.sort { a, b in
                for key in sortKeys {
                    let order = compareValues(Filter.value(at: [key.field], in: a), Filter.value(at: [key.field], in: b), date: isDate(key.field))
                    if order != .orderedSame { return key.descending ? order == .orderedDescending : order == .orderedAscending }
                }
                return a.id < b.id
            }
        }
        if offset > 0 { records = Array(records.dropFirst(offset)) }
        if let limit { records = Array(records.prefix(limit)) }

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

    struct SortKey: Equatable {
        var field: String
        var descending: Bool
    }

    static func parseSort(_ text: String?) throws -> [SortKey] {
        guard let text else { return [] }
        return try text.split(separator: ",").map { part in
            var field = part.trimmingCharacters(in: .whitespaces)
            var descending = false
            if field.hasPrefix("-") {
                descending = true
                field.removeFirst()
            } else if field.hasPrefix("+") {
                field.removeFirst()
            }
            if field.hasSuffix(":desc") {
                descending = true
                field.removeLast(5)
            } else if field.hasSuffix(":asc") {
                field.removeLast(4)
            }
            guard !field.isEmpty else {
                throw UsageError("The value '\(text)' is invalid for '--sort <FIELDS>'.", help: "Write fields separated by commas: --sort destination,-price", command: spec.name)
            }
            return SortKey(field: field, descending: descending)
        }
    }

    /// Orders stored values: null first, then Booleans, numbers, dates or text, other values by their JSON.
    static func compareValues(_ a: JSONValue, _ b: JSONValue, date: Bool) -> ComparisonResult {
        func rank(_ value: JSONValue) -> Int {
            switch value {
            case .null: return 0
            case .bool: return 1
            case .int, .double: return 2
            case .string: return 3
            default: return 4
            }
        }
        if date, let x = DateText.stored(a), let y = DateText.stored(b) {
            return x < y ? .orderedAscending : (x > y ? .orderedDescending : .orderedSame)
        }
        let (ra, rb) = (rank(a), rank(b))
        if ra != rb { return ra < rb ? .orderedAscending : .orderedDescending }
        switch (a, b) {
        case (.bool(let x), .bool(let y)): return x == y ? .orderedSame : (!x ? .orderedAscending : .orderedDescending)
        case (.string(let x), .string(let y)): return x < y ? .orderedAscending : (x > y ? .orderedDescending : .orderedSame)
        case (.null, .null): return .orderedSame
        default:
            if let x = a.doubleValue, let y = b.doubleValue { return x < y ? .orderedAscending : (x > y ? .orderedDescending : .orderedSame) }
            let x = ValueFormatting.json(a), y = ValueFormatting.json(b)
            return x < y ? .orderedAscending : (x > y ? .orderedDescending : .orderedSame)
        }
    }
}
