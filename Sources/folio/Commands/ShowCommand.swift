import Foundation
import FolioStorage

/// `folio show STORE ID`: one record, its relationships (both ways) and its history.
enum ShowCommand: FolioSubcommand {
    static let spec = CommandSpec(
        name: "show", abstract: "Show one record with its relationships and its history.",
        discussion: "Identifiers are store-wide, so the entity need not be given. A deleted record is shown from its history.",
        arguments: [.init(name: "STORE", help: "The store directory."), .init(name: "ID", help: "The record's identifier.")],
        options: [
            .flag("--json", help: "Print one JSON object."),
            .option("--at", value: "POINT", help: "Read the store as it was at POINT: " + StorePoint.help + "."),
        ],
        examples: ["folio show Store 42", "folio show Store 42 --json | jq .history"])

    static func run(_ arguments: ParsedArguments, console: Console) throws -> Int32 {
        let path = arguments.positionals[0]
        guard let id = Int64(arguments.positionals[1]) else {
            throw UsageError(
                "The value '\(arguments.positionals[1])' is invalid for 'ID'.", help: "Give a record identifier, a whole number (see 'folio cat').",
                command: spec.name)
        }
        let store = try StoreAccess.openReadOnly(path, at: arguments.value("--at").map(StorePoint.init))
        defer { store.close() }
        let schema = SchemaInfo(store.schema)
        guard let details = try RecordDetails.load(id: id, store: store, schema: schema) else {
            throw CommandFailure(
                "No record with identifier \(id) in the store at '\(path)'.",
                help: "Find identifiers with 'folio cat \(path) ENTITY'; identifiers of records deleted before the retained history are gone.")
        }
        let record = details.record
        let entity = details.entity
        let outgoing = details.outgoing.map { (name: $0.name, targets: $0.targets, destination: $0.destination) }
        let incoming = details.incoming.map { ($0.record, $0.relationship) }
        let history = details.history.map(\.transaction)

        if arguments.flag("--json") {
            console.print(ValueFormatting.json(details.json))
            return ExitCode.success
        }

        var title = "\(entity) \(id)"
        if let superentity = schema?.entities[entity]?.superentity { title += " (a \(superentity))" }
        if record == nil { title += " — deleted" }
        console.print(console.styled(title, .bold))
        if let record {
            let names = schema.map { s in s.propertyNames(of: entity).filter { !(s.property($0, of: entity)?.isRelationship ?? false) } } ?? []
            let keys = names + record.values.keys.filter { !names.contains($0) && !outgoing.map(\.name).contains($0) }.sorted()
            let width = (keys + outgoing.map(\.name)).map(\.count).max() ?? 0
            for key in keys {
                let value = record.values[key]
                var text = value.map { $0.stringValue ?? ValueFormatting.json($0) } ?? console.styled("(not stored)", .dim)
                if value?.isNull == true { text = "null" }
                console.print("  \(key.padding(toLength: width, withPad: " ", startingAt: 0))  \(text)")
            }
            if !outgoing.isEmpty {
                console.print()
                console.print(console.styled("Relationships", .bold))
                for (name, targets, destination) in outgoing {
                    let described = targets.map { target -> String in
                        guard let related = store.record(id: target) else { return "\(target) (missing!)" }
                        return "\(related.entity) \(target)" + (SchemaInfo.label(of: related).map { " \"\($0)\"" } ?? "")
                    }
                    let text =
                        described.isEmpty ? console.styled("none", .dim) + (destination.map { " (\($0))" } ?? "") : described.joined(separator: ", ")
                    console.print("  \(name.padding(toLength: width, withPad: " ", startingAt: 0))  → \(text)")
                }
            }
        }
        if !incoming.isEmpty {
            console.print()
            console.print(console.styled("Referred to by", .bold))
            for (other, relationship) in incoming.prefix(50) {
                console.print("  \(other.entity) \(other.id)\(SchemaInfo.label(of: other).map { " \"\($0)\"" } ?? "") via \(relationship)")
            }
            if incoming.count > 50 { console.print("  … and \(incoming.count - 50) more") }
        }
        console.print()
        console.print(console.styled("History", .bold))
        if history.isEmpty { console.print("  " + console.styled("no retained transaction changed this record", .dim)) }
        for transaction in history {
            guard let change = LogCommand.changes(of: transaction).first(where: { $0.id == id }) else { continue }
            let verb = ["insert": "inserted", "update": "updated", "delete": "deleted"][change.kind] ?? change.kind
            var line = "  \(console.styled(String(transaction.sequence), .yellow)) \(DateText.format(transaction.timestamp)) \(verb)"
            if let author = transaction.author { line += " by \(author)" }
            if change.kind == "update" {
                line += ": " + change.values.keys.sorted().map { "\($0) = \(ValueFormatting.json(change.values[$0]!))" }.joined(separator: ", ")
            }
            console.print(line)
        }
        return ExitCode.success
    }
}
