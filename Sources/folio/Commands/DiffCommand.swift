import Foundation
import FolioStorage

/// `folio diff A B`: the records two stores hold, compared record by record, like `diff`.
enum DiffCommand: FolioSubcommand {
    static let spec = CommandSpec(
        name: "diff", abstract: "Compare the records of two stores: inserted, changed attribute by attribute, deleted.",
        discussion: """
            Opens both stores read-only and compares their current records by identifier, entity by entity
            (entities by name, identifiers ascending): '+' a record only B holds, with every value; '~' a
            record both hold, with only the attributes that differ (old → new, '(none)' for an attribute one
            side lacks); '-' a record only A holds, with its first text value (every value with --all). Values
            are shown as the canonical JSON the store keeps. A summary line follows, with the schema versions.
            With --from and --to, a side is read as it was at a point of its past: a transaction of its retained
            history, or a git revision of the repository it is in (read from git's objects; the work tree is
            not touched). With one STORE, both sides are that store: 'folio diff Store --from HEAD~1' shows
            what changed since the previous commit. With --markdown the changes are printed as a Markdown
            heading and a table per entity, at most --max-rows records (each value cut to 80 characters),
            for a pull request's description or a CI comment.
            Exits with 0 when the stores hold the same records and schema, 1 when they differ, 2 when a store
            cannot be read (like diff).
            """,
        arguments: [
            .init(name: "A", help: "The store to compare from (the old side)."),
            .init(name: "B", help: "The store to compare to (the new side); A again when omitted (then give --from).", isOptional: true),
        ],
        options: [
            .option("--from", value: "POINT", help: "Read A as it was at POINT: " + StorePoint.help + "."),
            .option("--to", value: "POINT", help: "Read B as it was at POINT (the default: as it is now)."),
            .option("--entity", value: "ENTITY", help: "Only records of this entity and its subentities."),
            .flag("--all", help: "Show every value of a deleted record, not only its first text value."),
            .flag("--json", help: "Print one JSON object with every change and the summary."),
            .flag("--markdown", help: "Print Markdown for a pull request or a CI comment: a table per entity, bounded in length."),
            .option("--max-rows", value: "N", help: "With --markdown: list at most N records in all (default 100)."),
        ],
        examples: [
            "folio diff Store.backup Store", "folio diff old new --entity Trip", "folio diff old new --json | jq '.changes[]'",
            "folio diff Store --from HEAD~3 --to HEAD", "folio diff Store --from 120",
            "folio diff Store --from origin/main --markdown > changes.md",
        ])

    /// The exit code for a store that cannot be read: 1 means "they differ", as for diff(1).
    static let troubleExitCode: Int32 = 2

    /// One record that differs between the two stores.
    struct RecordChange: Equatable {
        enum Kind: String {
            case insert, update, delete
        }

        var kind: Kind
        var entity: String
        var id: Int64
        /// A's values: every value of a deleted record, or the differing attributes A holds of a changed one.
        var old: [String: JSONValue]
        /// B's values: every value of an inserted record, or the differing attributes B holds of a changed one.
        var new: [String: JSONValue]

        /// The attributes shown for a change, sorted as canonical JSON sorts keys.
        var changedNames: [String] { DiffCommand.sortedNames(Set(old.keys).union(new.keys)) }
    }

    /// What comparing two stores found.
    struct Comparison {
        /// The changes, entities by name, identifiers ascending within each.
        var changes: [RecordChange]
        var oldSchema: JSONValue?
        var newSchema: JSONValue?

        var schemaChanged: Bool { oldSchema != newSchema }
        var isEqual: Bool { changes.isEmpty && !schemaChanged }
        func count(_ kind: RecordChange.Kind) -> Int { changes.filter { $0.kind == kind }.count }
        var entities: [String] { Array(Set(changes.map(\.entity))).sorted() }
    }

    static func run(_ arguments: ParsedArguments, console: Console) throws -> Int32 {
        let old: Store
        let new: Store
        let from = arguments.value("--from").map(StorePoint.init)
        let to = arguments.value("--to").map(StorePoint.init)
        let oldPath = arguments.positionals[0]
        let newPath = arguments.positional(1) ?? oldPath
        guard arguments.positional(1) != nil || from != nil || to != nil else {
            throw UsageError(
                "Give two stores to compare, or one store with --from or --to.",
                help: "folio diff Store.backup Store, or folio diff Store --from HEAD~1.", command: spec.name)
        }
        do {
            old = try StoreAccess.openReadOnly(oldPath, at: from)
        } catch {
            return report(error, console: console)
        }
        defer { old.close() }
        do {
            new = try StoreAccess.openReadOnly(newPath, at: to)
        } catch {
            return report(error, console: console)
        }
        defer { new.close() }

        var selected: Set<String>? = nil
        if let entity = arguments.value("--entity") {
            let schemas = [SchemaInfo(old.schema), SchemaInfo(new.schema)].compactMap { $0 }
            let known = Set(old.entityNames + new.entityNames + schemas.flatMap { $0.entities.keys })
            guard known.contains(entity) else {
                let suggestion = EditDistance.closest(to: entity, in: Array(known))
                throw UsageError(
                    "Unknown entity '\(entity)' in both stores.",
                    help: suggestion.map { "Did you mean '\($0)'?" }
                        ?? (known.isEmpty
                            ? "Neither store holds records or a schema." : "Entities: \(known.sorted().joined(separator: ", "))."),
                    command: spec.name)
            }
            selected = Set([entity] + schemas.flatMap { $0.selfAndDescendants(entity) })
        }
        let comparison = compare(old, new, entities: selected)
        if arguments.flag("--markdown") {
            guard !arguments.flag("--json") else {
                throw UsageError("Give --json or --markdown, not both.", help: "folio diff A B --markdown", command: spec.name)
            }
            var markdown = DiffMarkdown()
            if let text = arguments.value("--max-rows") {
                guard let rows = Int(text), rows >= 0 else {
                    throw UsageError(
                        "The value '\(text)' is invalid for '--max-rows'.", help: "Give a whole number of records, such as 100.", command: spec.name)
                }
                markdown.maximumRows = rows
            }
            let label = { (path: String, point: String?) in point.map { "\(path) at \($0)" } ?? path }
            let title = "\(label(oldPath, arguments.value("--from"))) → \(label(newPath, arguments.value("--to")))"
            console.write(markdown.render(comparison, title: title))
        } else if arguments.flag("--json") {
            console.print(ValueFormatting.json(json(comparison)))
        } else {
            printText(comparison, all: arguments.flag("--all"), console: console)
        }
        return comparison.isEqual ? ExitCode.success : ExitCode.failure
    }

    /// Prints a failure to open a store as every command does, with the exit code of diff(1)'s trouble.
    static func report(_ error: any Error, console: Console) -> Int32 {
        switch error {
        case let failure as CommandFailure:
            console.error("\(console.errorStyled("Error:", .red)) \(failure.message)")
            if let help = failure.help { console.error("Help: \(help)") }
        case let error as StorageError:
            console.error("\(console.errorStyled("Error:", .red)) \(error)")
            console.error("Help: Run 'folio verify' on the store for details.")
        default:
            console.error("\(console.errorStyled("Error:", .red)) \(error)")
        }
        return troubleExitCode
    }

    /// Compares the current records of two stores (of the `entities` given, or all).
    ///
    /// Walks each store once in identifier order and looks the other side up by identifier, so that
    /// neither store's records are copied; only the differences are kept. A record whose identifier
    /// belongs to another entity on the other side is a delete there and an insert here.
    static func compare(_ old: Store, _ new: Store, entities: Set<String>? = nil) -> Comparison {
        func isSelected(_ entity: String) -> Bool { entities?.contains(entity) ?? true }
        var byEntity: [String: [RecordChange]] = [:]
        old.forEachRecord { id, entity, values in
            guard isSelected(entity) else { return }
            guard let other = new.record(id: id), other.entity == entity else {
                let change = RecordChange(kind: .delete, entity: entity, id: id, old: values.dictionary, new: [:])
                byEntity[entity, default: []].append(change)
                return
            }
            guard other.values != values else { return }
            var before: [String: JSONValue] = [:]
            var after: [String: JSONValue] = [:]
            for name in Set(values.keys).union(other.values.keys) where values[name] != other.values[name] {
                before[name] = values[name]
                after[name] = other.values[name]
            }
            byEntity[entity, default: []].append(RecordChange(kind: .update, entity: entity, id: id, old: before, new: after))
        }
        new.forEachRecord { id, entity, values in
            guard isSelected(entity) else { return }
            if let mine = old.record(id: id), mine.entity == entity { return }
            byEntity[entity, default: []].append(RecordChange(kind: .insert, entity: entity, id: id, old: [:], new: values.dictionary))
        }
        // Each walk is in identifier order; merging the two walks needs one sort of the differences.
        let changes = byEntity.keys.sorted().flatMap { entity in (byEntity[entity] ?? []).sorted { $0.id < $1.id } }
        return Comparison(changes: changes, oldSchema: old.schema, newSchema: new.schema)
    }

    // MARK: Text

    static func printText(_ comparison: Comparison, all: Bool, console: Console) {
        var index = 0
        let changes = comparison.changes
        while index < changes.count {
            let entity = changes[index].entity
            var end = index
            while end < changes.count, changes[end].entity == entity { end += 1 }
            let group = changes[index..<end]
            let width = group.map { String($0.id).count }.max() ?? 0
            console.print(console.styled(entity, .bold))
            for change in group {
                let (mark, style): (String, Console.Style) =
                    change.kind == .insert ? ("+", .green) : change.kind == .update ? ("~", .yellow) : ("-", .red)
                let parts = describe(change, all: all)
                var line = "  \(mark) \(String(change.id))"
                if !parts.isEmpty {
                    line = line.padding(toLength: 4 + width, withPad: " ", startingAt: 0) + "  " + parts.joined(separator: "  ")
                }
                console.print(console.styled(line, style))
            }
            index = end
        }
        console.print(summary(comparison))
    }

    /// The attributes shown for one change: `name "Lisbon"`, or `price 99.0 → 120.0` for a changed one.
    static func describe(_ change: RecordChange, all: Bool) -> [String] {
        switch change.kind {
        case .insert:
            return sortedNames(change.new.keys).map { "\($0) \(text(change.new[$0]))" }
        case .update:
            return change.changedNames.map { "\($0) \(text(change.old[$0])) → \(text(change.new[$0]))" }
        case .delete:
            let names = sortedNames(change.old.keys)
            if all { return names.map { "\($0) \(text(change.old[$0]))" } }
            // A short identification: the first text value, else the first value of any kind.
            let first = names.first { change.old[$0]?.stringValue != nil } ?? names.first
            return first.map { ["\($0) \(text(change.old[$0]))"] } ?? []
        }
    }

    /// A value as canonical JSON, or `(none)` for an attribute the record does not hold.
    static func text(_ value: JSONValue?) -> String {
        value.map(ValueFormatting.json) ?? "(none)"
    }

    /// "2 inserted, 1 changed, 1 deleted in 1 entity; schema unchanged"
    static func summary(_ comparison: Comparison) -> String {
        let records: String
        if comparison.changes.isEmpty {
            records = "No records differ"
        } else {
            let count = comparison.entities.count
            records =
                "\(comparison.count(.insert)) inserted, \(comparison.count(.update)) changed, \(comparison.count(.delete)) deleted"
                + " in \(count) \(count == 1 ? "entity" : "entities")"
        }
        return "\(records); \(schemaText(comparison))"
    }

    static func schemaText(_ comparison: Comparison) -> String {
        guard comparison.schemaChanged else { return "schema unchanged" }
        let old = version(comparison.oldSchema) ?? "(none)"
        let new = version(comparison.newSchema) ?? "(none)"
        return old == new ? "schema changed (version \(old) on both sides)" : "schema \(old) → \(new)"
    }

    /// The version a schema description names, if the slot holds one.
    static func version(_ schema: JSONValue?) -> String? {
        guard let schema else { return nil }
        return schema.objectValue?["version"]?.stringValue ?? "unversioned"
    }

    // MARK: JSON

    /// `{"changes":[…],"deleted":1,"entities":["Trip"],"equal":false,"inserted":2,"schema":{…},"updated":1}`
    static func json(_ comparison: Comparison) -> JSONValue {
        let changes: [JSONValue] = comparison.changes.map { change in
            var members: [String: JSONValue] = [
                "kind": .string(change.kind.rawValue), "entity": .string(change.entity), "id": .int(change.id),
            ]
            switch change.kind {
            case .insert: members["values"] = .object(change.new)
            case .delete: members["values"] = .object(change.old)
            case .update:
                members["old"] = .object(change.old)
                members["new"] = .object(change.new)
            }
            return .object(members)
        }
        var schema: [String: JSONValue] = ["changed": .bool(comparison.schemaChanged)]
        schema["old"] = version(comparison.oldSchema).map { .string($0) } ?? .null
        schema["new"] = version(comparison.newSchema).map { .string($0) } ?? .null
        return .object([
            "equal": .bool(comparison.isEqual), "changes": .array(changes),
            "inserted": .int(Int64(comparison.count(.insert))), "updated": .int(Int64(comparison.count(.update))),
            "deleted": .int(Int64(comparison.count(.delete))), "entities": .array(comparison.entities.map { .string($0) }),
            "schema": .object(schema),
        ])
    }

    /// Names in the order canonical JSON writes keys: by their UTF-8 bytes.
    static func sortedNames(_ names: some Sequence<String>) -> [String] {
        names.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }
}
