import Foundation
import Folio
import FolioStorage

/// `folio info STORE`: format, entities and counts, sizes, journal, last transaction, compaction.
enum InfoCommand: FolioSubcommand {
    static let spec = CommandSpec(
        name: "info", abstract: "Show a store's format, entities, record counts, sizes and last transaction.",
        discussion: "Reads the store without changing it. The store may be in use by an app.",
        arguments: [.init(name: "STORE", help: "The store directory.")],
        options: [
            .flag("--json", help: "Print one JSON object instead of text."),
            .option("--at", value: "POINT", help: "Read the store as it was at POINT: " + StorePoint.help + "."),
        ],
        examples: ["folio info ~/Library/Application\\ Support/default.folio", "folio info Store --json | jq .entities"])

    static func run(_ arguments: ParsedArguments, console: Console) throws -> Int32 {
        let path = arguments.positionals[0]
        let point = arguments.value("--at").map(StorePoint.init)
        let store = try StoreAccess.openReadOnly(path, at: point)
        // Rebuilt in memory from the retained history: the store's files are today's, so none is shown.
        let inMemory = store.directory == nil
        defer { store.close() }
        let statistics = try store.statistics()
        let schema = SchemaInfo(store.schema)
        let recorded = store.schema.flatMap { try? RecordedSchema(parsing: $0) }
        let directory = store.directory ?? URL(fileURLWithPath: path)
        let manifestVersion = Self.manifestVersion(directory)
        // Sparse files may claim any size: the total is held at Int64.max rather than overflow.
        let totalBytes = statistics.fileSizes.values.saturatingSum()
        let entities = Set(statistics.recordCounts.keys).union(schema?.entities.keys.map { $0 } ?? [])

        if arguments.flag("--json") {
            var entityValues: [String: JSONValue] = [:]
            for entity in entities {
                var members: [String: JSONValue] = ["records": .int(Int64(statistics.recordCounts[entity] ?? 0))]
                if let size = statistics.fileSizes["snapshots/\(entity).jsonl"] { members["snapshotBytes"] = .int(size) }
                if let superentity = schema?.entities[entity]?.superentity { members["superentity"] = .string(superentity) }
                entityValues[entity] = .object(members)
            }
            var object: [String: JSONValue] = [
                "store": .string(directory.path), "format": .string("folio-store"),
                "version": .int(manifestVersion ?? statistics.formatVersion), "lastSequence": .int(Int64(statistics.lastSequence)),
                "nextID": .int(store.nextID), "journalTransactions": .int(Int64(statistics.journalTransactions)),
                "journalBytes": .int(statistics.journalBytes), "retainedTransactions": .int(Int64(statistics.retainedTransactions)),
                "compactionDue": .bool(statistics.isCompactionDue), "totalBytes": .int(totalBytes),
                "entities": .object(entityValues), "files": .object(statistics.fileSizes.mapValues { .int($0) }),
                "warnings": .array(store.warnings.map { .string($0) }),
            ]
            if let point { object["asOf"] = .string(asOfText(point, store)) }
            if inMemory { object["files"] = nil; object["journalBytes"] = nil; object["totalBytes"] = nil; object["compactionDue"] = nil }
            if let version = schema?.version { object["schemaVersion"] = .string(version) }
            if let recorded { object["schemaChecksum"] = .string(recorded.checksum) }
            if let last = statistics.lastTransaction { object["lastTransaction"] = LogCommand.summaryJSON(last) }
            console.print(ValueFormatting.json(.object(object)))
            return ExitCode.success
        }

        let bold: (String) -> String = { console.styled($0, .bold) }
        func row(_ label: String, _ value: String) { console.print("\(bold(label.padding(toLength: 12, withPad: " ", startingAt: 0)))\(value)") }
        row("Store", directory.path)
        if let point { row("As of", asOfText(point, store)) }
        row("Format", "folio-store version \(manifestVersion ?? statistics.formatVersion)")
        if let schema {
            row("Schema", "version \(schema.version ?? "?"), \(schema.entities.count) entit\(schema.entities.count == 1 ? "y" : "ies")")
            if let recorded { row("Checksum", SchemaCommand.checksumText(recorded)) }
        } else {
            row("Schema", "none recorded (records are shown without property kinds)")
        }
        var last = "\(statistics.lastSequence)"
        if let transaction = statistics.lastTransaction {
            last += " (last transaction \(DateText.format(transaction.timestamp, milliseconds: true))"
            if let author = transaction.author { last += " by \(author)" }
            let changes = transaction.inserted.count + transaction.updated.count + transaction.deleted.count
            last += ", \(changes) change\(changes == 1 ? "" : "s")"
            let migrated = transaction.migrations.map(\.entity)
            if !migrated.isEmpty { last += ", migrates \(Array(Set(migrated)).sorted().joined(separator: ", "))" }
            last += ")"
        }
        row("Sequence", last)
        row("Next id", "\(store.nextID)")
        if inMemory {
            row("History", "\(statistics.retainedTransactions) transaction\(statistics.retainedTransactions == 1 ? "" : "s") up to this point")
        } else {
            row(
                "Journal",
                "\(statistics.journalTransactions) transaction\(statistics.journalTransactions == 1 ? "" : "s"), \(byteCount(statistics.journalBytes))"
            )
            row("History", "\(statistics.retainedTransactions) transaction\(statistics.retainedTransactions == 1 ? "" : "s") retained")
            row(
                "Compaction",
                statistics.isCompactionDue
                    ? "due (the journal is past 8 MiB and as large as the snapshots plus the history; an app compacts on its next save): run 'folio compact \(path)'"
                    : "not due (an app compacts once the journal is past 8 MiB and as large as the snapshots plus the history)")
            row(
                "Size",
                "\(byteCount(totalBytes)) in \(statistics.fileSizes.count) file\(statistics.fileSizes.count == 1 ? "" : "s")\(statistics.fileSizes["blobs"].map { " (blobs \(byteCount($0)))" } ?? "")"
            )
        }
        console.print()
        var table = TextTable(headers: ["ENTITY", "RECORDS", "SNAPSHOT", "SUPERENTITY"])
        table.rightAligned = [1, 2]
        for entity in entities.sorted() {
            table.append([
                entity, "\(statistics.recordCounts[entity] ?? 0)",
                statistics.fileSizes["snapshots/\(entity).jsonl"].map(byteCount) ?? "-",
                schema?.entities[entity]?.superentity ?? "",
            ])
        }
        if entities.isEmpty {
            console.print("The store holds no records.")
        } else {
            for line in table.render(width: console.width, headerStyle: bold) { console.print(line) }
        }
        for warning in store.warnings { console.warning(warning) }
        return ExitCode.success
    }

    /// "revision HEAD~1 (commit 1a2b3c4…)", or "transaction 12 (rebuilt from the store's retained history)".
    static func asOfText(_ point: StorePoint, _ store: Store) -> String {
        if let revision = store.gitRevision { return "revision \(revision.revision) (commit \(revision.commit))" }
        return "\(point) (rebuilt from the store's retained history)"
    }

    static func manifestVersion(_ directory: URL) -> Int64? {
        guard let data = FileManager.default.contents(atPath: directory.appendingPathComponent("manifest.json").path),
            let value = try? JSONReader().parse(Array(data.prefix(while: { $0 != 0x0A })))
        else { return nil }
        return value.objectValue?["version"]?.intValue
    }
}

/// `1.2 KB`-style sizes (powers of 1024, one decimal).
func byteCount(_ bytes: Int64) -> String {
    if bytes < 1024 { return "\(bytes) B" }
    let units = ["KB", "MB", "GB", "TB"]
    var value = Double(bytes) / 1024
    var unit = 0
    while value >= 1024, unit < units.count - 1 {
        value /= 1024
        unit += 1
    }
    return String(format: "%.1f", value) + " " + units[unit]
}
