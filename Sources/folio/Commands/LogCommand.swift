import Foundation
import FolioStorage

/// `folio log STORE`: transactions newest first, like `git log`.
enum LogCommand: FolioSubcommand {
    static let spec = CommandSpec(
        name: "log", abstract: "Show the store's transactions, newest first, like git log.",
        discussion: """
            Lists the transactions still in the store's history (the journal, plus what compaction retained in
            history.jsonl). Filters combine: a transaction is shown when it matches all of them. With --entity
            or --id, --stat and -p show only the matching changes. --entity includes subentities.
            Dates are UTC: 2026-06-01, 2026-06-01T09:30, 2026-06-01T09:30:00Z, or 3d/12h/30m/2w ago.
            """,
        arguments: [.init(name: "STORE", help: "The store directory.")],
        options: [
            .option("--author", value: "NAME", help: "Only transactions by this author."),
            .option("--entity", value: "ENTITY", help: "Only transactions that change records of this entity."),
            .option("--id", value: "ID", help: "Only transactions that change the record with this identifier."),
            .option("--since", value: "DATE", help: "Only transactions at or after this time."),
            .option("--until", value: "DATE", help: "Only transactions at or before this time."),
            .option("--max-count", "-n", value: "N", help: "Show at most N transactions."),
            .flag("--stat", help: "Show the number of inserted, updated and deleted records per entity."),
            .flag("--patch", "-p", help: "Show the changes: inserted values, updated values, deleted tombstones."),
            .flag("--oneline", help: "One line per transaction."),
            .flag("--reverse", help: "Oldest first."),
            .flag("--json", help: "One JSON object per transaction (with its changes when -p is given)."),
        ],
        examples: [
            "folio log Store -n 5", "folio log Store --author demo -p", "folio log Store --entity Trip --since 1d --stat",
            "folio log Store --id 42 -p",
        ])

    struct Selection {
        var entities: Set<String>?
        var id: Int64?

        func includes(_ entity: String, _ id: Int64) -> Bool {
            (entities?.contains(entity) ?? true) && (self.id.map { $0 == id } ?? true)
        }
    }

    static func run(_ arguments: ParsedArguments, console: Console) throws -> Int32 {
        let path = arguments.positionals[0]
        let since = try date(arguments, "--since")
        let until = try date(arguments, "--until")
        let limit = try arguments.integer("--max-count", command: spec.name)
        var id: Int64? = nil
        if let text = arguments.value("--id") {
            guard let number = Int64(text) else {
                throw UsageError(
                    "The value '\(text)' is invalid for '--id <ID>'.", help: "Give a record identifier, a whole number.", command: spec.name)
            }
            id = number
        }
        let store = try StoreAccess.openReadOnly(path)
        defer { store.close() }
        let schema = SchemaInfo(store.schema)
        var selection = Selection(entities: nil, id: id)
        if let entity = arguments.value("--entity") {
            selection.entities = Set(schema?.selfAndDescendants(entity) ?? [entity])
        }
        var transactions =
            try StoreAccess.retainedHistory(store).reversed().filter { transaction in
                if let author = arguments.value("--author"), transaction.author != author { return false }
                if let since, transaction.timestamp < since { return false }
                if let until, transaction.timestamp > until { return false }
                if selection.entities != nil || selection.id != nil {
                    // A migration changes every record of its entity, so it matches the entity and any id of it.
                    if let entities = selection.entities, transaction.migrations.contains(where: { entities.contains($0.entity) }) { return true }
                    return changes(of: transaction).contains { selection.includes($0.entity, $0.id) }
                }
                return true
            } as [JournalTransaction]
        if let limit { transactions = Array(transactions.prefix(limit)) }
        if arguments.flag("--reverse") { transactions.reverse() }
        let showPatch = arguments.flag("--patch")
        let showStat = arguments.flag("--stat")

        if arguments.flag("--json") {
            for transaction in transactions {
                var object = summaryJSON(transaction).objectValue ?? [:]
                if !transaction.migrations.isEmpty {
                    object["migrations"] = .array(transaction.migrations.map { .string(migrationText($0)) })
                }
                if showPatch {
                    object["changes"] = .array(
                        changes(of: transaction).filter { selection.includes($0.entity, $0.id) }.map { change in
                            .object([
                                "kind": .string(change.kind), "entity": .string(change.entity), "id": .int(change.id),
                                "values": .object(change.values),
                            ])
                        })
                }
                console.print(ValueFormatting.json(.object(object)))
            }
            return ExitCode.success
        }
        if transactions.isEmpty, store.lastSequence > 0, try StoreAccess.retainedHistory(store).isEmpty {
            console.warning("no history is retained: compaction dropped it (see historyRetention)")
        }
        for (position, transaction) in transactions.enumerated() {
            let all = changes(of: transaction)
            let shown = all.filter { selection.includes($0.entity, $0.id) }
            if arguments.flag("--oneline") {
                let who = transaction.author.map { " \($0)" } ?? ""
                console.print(
                    "\(console.styled(String(transaction.sequence), .yellow)) \(DateText.format(transaction.timestamp))\(console.styled(who, .cyan)) \(summary(of: transaction))"
                )
                continue
            }
            if position > 0 { console.print() }
            console.print(console.styled("transaction \(transaction.sequence) \(transaction.transactionID)", .yellow))
            if let author = transaction.author { console.print("Author: \(author)") }
            console.print("Date:   \(DateText.format(transaction.timestamp, milliseconds: true))")
            console.print()
            console.print("    \(summary(of: transaction))")
            for migration in transaction.migrations where selection.entities?.contains(migration.entity) ?? true {
                console.print("    " + console.styled(migrationText(migration), .magenta))
            }
            if showStat, !shown.isEmpty {
                console.print()
                var counts: [String: (Int, Int, Int)] = [:]
                for change in shown {
                    var count = counts[change.entity] ?? (0, 0, 0)
                    switch change.kind {
                    case "insert": count.0 += 1
                    case "update": count.1 += 1
                    default: count.2 += 1
                    }
                    counts[change.entity] = count
                }
                let width = counts.keys.map(\.count).max() ?? 0
                for (entity, count) in counts.sorted(by: { $0.key < $1.key }) {
                    var parts: [String] = []
                    if count.0 > 0 { parts.append(console.styled("+\(count.0)", .green)) }
                    if count.1 > 0 { parts.append(console.styled("~\(count.1)", .yellow)) }
                    if count.2 > 0 { parts.append(console.styled("-\(count.2)", .red)) }
                    console.print(" \(entity.padding(toLength: width, withPad: " ", startingAt: 0)) | \(parts.joined(separator: " "))")
                }
            }
            if showPatch, !shown.isEmpty {
                console.print()
                for change in shown {
                    let (mark, style): (String, Console.Style) =
                        change.kind == "insert" ? ("+", .green) : change.kind == "update" ? ("~", .yellow) : ("-", .red)
                    var line = "\(mark) \(change.entity) \(change.id)"
                    if !change.values.isEmpty { line += " " + ValueFormatting.json(.object(change.values)) }
                    console.print(console.styled(line, style))
                }
            }
        }
        return ExitCode.success
    }

    struct Change {
        var kind: String
        var entity: String
        var id: Int64
        var values: [String: JSONValue]
    }

    /// The first of ``changes(of:)`` that is about record `id`, found without making the others.
    static func change(of id: Int64, in transaction: JournalTransaction) -> Change? {
        if let inserted = transaction.inserted.first(where: { $0.id == id }) {
            return Change(kind: "insert", entity: inserted.entity, id: id, values: inserted.values.dictionary)
        }
        if let updated = transaction.updated.first(where: { $0.id == id }) {
            return Change(kind: "update", entity: updated.entity, id: id, values: updated.values.dictionary)
        }
        return transaction.deleted.first { $0.id == id }.map { Change(kind: "delete", entity: $0.entity, id: id, values: $0.tombstone) }
    }

    /// A transaction's changes: its inserts, then its updates, then its deletes; at most `limit` of them.
    static func changes(of transaction: JournalTransaction, limit: Int = .max) -> [Change] {
        var changes = Array(
            transaction.inserted.prefix(limit).map { Change(kind: "insert", entity: $0.entity, id: $0.id, values: $0.values.dictionary) })
        changes += transaction.updated.prefix(max(0, limit - changes.count)).map {
            Change(kind: "update", entity: $0.entity, id: $0.id, values: $0.values.dictionary)
        }
        changes += transaction.deleted.prefix(max(0, limit - changes.count)).map {
            Change(kind: "delete", entity: $0.entity, id: $0.id, values: $0.tombstone)
        }
        return changes
    }

    /// "2 inserted, 1 updated (Trip, Recipe)"
    ///
    /// - Complexity: O(changes), without making a ``Change`` of each.
    static func summary(of transaction: JournalTransaction) -> String {
        var parts: [String] = []
        let (inserted, updated, deleted) = (transaction.inserted.count, transaction.updated.count, transaction.deleted.count)
        if inserted > 0 { parts.append("\(inserted) inserted") }
        if updated > 0 { parts.append("\(updated) updated") }
        if deleted > 0 { parts.append("\(deleted) deleted") }
        if !transaction.migrations.isEmpty {
            parts.append("\(transaction.migrations.count) migration\(transaction.migrations.count == 1 ? "" : "s")")
        }
        if transaction.schema != nil { parts.append("schema recorded") }
        if parts.isEmpty { return transaction.author?.hasPrefix("folio repair") == true ? "empty (placeholder left by repair)" : "no changes" }
        var entities = Set(transaction.migrations.map(\.entity))
        for record in transaction.inserted { entities.insert(record.entity) }
        for record in transaction.updated { entities.insert(record.entity) }
        for record in transaction.deleted { entities.insert(record.entity) }
        return parts.joined(separator: ", ") + (entities.isEmpty ? "" : " (\(entities.sorted().joined(separator: ", ")))")
    }

    /// "migrate Trip: remove legacy; rename name → title", or "migrate Old: remove the entity and its records".
    static func migrationText(_ migration: RecordMigration) -> String {
        var parts: [String] = []
        if migration.removesEntity { parts.append("remove the entity and its records") }
        if !migration.removedMembers.isEmpty { parts.append("remove " + migration.removedMembers.joined(separator: ", ")) }
        if !migration.renamedMembers.isEmpty {
            parts.append("rename " + migration.renamedMembers.sorted { $0.key < $1.key }.map { "\($0.key) → \($0.value)" }.joined(separator: ", "))
        }
        return "migrate \(migration.entity): " + parts.joined(separator: "; ")
    }

    static func summaryJSON(_ transaction: JournalTransaction) -> JSONValue {
        var object: [String: JSONValue] = [
            "seq": .int(Int64(transaction.sequence)), "id": .string(transaction.transactionID),
            "time": .string(DateText.iso(transaction.timestamp)),
            "inserted": .int(Int64(transaction.inserted.count)), "updated": .int(Int64(transaction.updated.count)),
            "deleted": .int(Int64(transaction.deleted.count)),
            "entities": .array(transaction.entities.sorted().map { .string($0) }),
        ]
        if let author = transaction.author { object["author"] = .string(author) }
        return .object(object)
    }

    static func date(_ arguments: ParsedArguments, _ key: String) throws -> Date? {
        guard let text = arguments.value(key) else { return nil }
        guard let date = StoreAccess.parseDate(text) else {
            throw UsageError(
                "The value '\(text)' is invalid for '\(key) <DATE>'.",
                help: "Write a UTC date like 2026-06-01 or 2026-06-01T09:30:00Z, or a time ago like 3d, 12h, 30m.", command: spec.name)
        }
        return date
    }
}

extension DateText {
    /// `2026-03-01T09:30:00.000Z` (the journal's form).
    static func iso(_ date: Date) -> String {
        let text = format(date, milliseconds: true)  // "2026-03-01 09:30:00.000 UTC"
        return String(text.prefix(10)) + "T" + String(text.dropFirst(11).prefix(12)) + "Z"
    }
}
