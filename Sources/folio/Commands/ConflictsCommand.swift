import Foundation
import FolioStorage

/// `folio conflicts STORE [--json] [--clear]`: the values merges did not keep.
enum ConflictsCommand: FolioSubcommand {
    static let spec = CommandSpec(
        name: "conflicts", abstract: "List the conflicting values merges of the store resolved, or forget them.",
        discussion: """
            When both sides of a git merge changed the same attribute of a record, 'folio merge-driver' keeps the
            later value and records the other here; when one side deleted a record the other changed, the record
            stays deleted and the other side's values are recorded. A record of a clone that had not run a schema
            migration, which only the migration's custom stage can carry, is marked as awaiting that stage (the
            next open with the migration plan runs it) or carried by it. Each conflict shows the record, the
            attribute, the value kept, the value lost and the transaction that wrote it. --clear commits one
            transaction that forgets the conflicts listed (they stay readable in 'folio log -p').
            """,
        arguments: [.init(name: "STORE", help: "The store directory.")],
        options: [
            .flag("--json", help: "One JSON object per conflict."),
            .flag("--clear", help: "Forget the conflicts listed (commits a transaction)."),
        ],
        examples: ["folio conflicts Trips.folio", "folio conflicts Trips.folio --json", "folio conflicts Trips.folio --clear"])

    static func run(_ arguments: ParsedArguments, console: Console) throws -> Int32 {
        let path = arguments.positionals[0]
        let clearing = arguments.flag("--clear")
        let store = try clearing ? StoreAccess.openWritable(path) : StoreAccess.openReadOnly(path)
        defer { store.close() }
        let conflicts: [Store.ResolvedConflict]
        do { conflicts = try store.conflicts() } catch let error as StorageError { throw StoreAccess.failure(error, path: path) }
        if clearing {
            do { try store.clearConflicts(author: "folio conflicts --clear") } catch let error as StorageError {
                throw StoreAccess.failure(error, path: path)
            }
            console.write("Forgot \(conflicts.count) conflict(s) of \(path).\n")
            return ExitCode.success
        }
        if arguments.flag("--json") {
            for resolved in conflicts {
                let conflict = resolved.conflict
                var object: [String: JSONValue] = [
                    "entity": .string(conflict.entity), "id": .int(conflict.id), "member": .string(conflict.member),
                    "lost": conflict.lost, "lostTransaction": .string(conflict.lostTransaction),
                    "sequence": .int(Int64(clamping: resolved.sequence)), "transaction": .string(resolved.transactionID),
                ]
                object["kept"] = conflict.kept ?? .null
                object["deleted"] = .bool(conflict.kept == nil)
                switch resolved.stage {
                case .awaiting?: object["stage"] = .string("awaiting")
                case .carried(let by)?:
                    object["stage"] = .string("carried")
                    object["carriedBy"] = .string(by)
                case nil: break
                }
                console.write(ValueFormatting.json(.object(object)) + "\n")
            }
            return ExitCode.success
        }
        if conflicts.isEmpty {
            console.write("No conflicts recorded in \(path).\n")
            return ExitCode.success
        }
        for resolved in conflicts {
            let conflict = resolved.conflict
            let kept = conflict.kept.map(ValueFormatting.json) ?? "(record deleted)"
            // A merge of compacted snapshots names no transaction when the history no longer holds it.
            let writer = conflict.lostTransaction.isEmpty ? "a transaction no longer in the history" : "transaction \(conflict.lostTransaction)"
            let stage: String
            switch resolved.stage {
            case .awaiting?: stage = "; the record awaits the migration's custom stage (open the store with the migration plan)"
            case .carried(let by)?: stage = "; the migration's custom stage carried the record (transaction \(by))"
            case nil: stage = ""
            }
            console.write(
                """
                \(conflict.entity) \(conflict.id) \(conflict.member): kept \(kept) (transaction \(resolved.sequence)), \
                lost \(ValueFormatting.json(conflict.lost)) (\(writer))\(stage)

                """)
        }
        console.write("\(conflicts.count) conflict(s); 'folio conflicts \(path) --clear' forgets them.\n")
        return ExitCode.success
    }
}
