import Foundation
import FolioStorage

/// `folio blame STORE ID`: for each value of one record, the transaction that set it and, in a git
/// work tree, the commit that brought that transaction.
enum BlameCommand: FolioSubcommand {
    static let spec = CommandSpec(
        name: "blame", abstract: "Show which transaction, and which git commit, set each value of a record.",
        discussion: """
            For each attribute and relationship of the record: its value, the retained transaction that last set it
            (sequence, author, time) and, when the store is in a git work tree, the commit that brought that
            transaction (the oldest commit that added its journal line; after a merge, the side's own commit).
            A value set before the oldest retained transaction is shown as set at or before that point: compaction
            dropped the older history (in a git work tree it keeps all of it). With --at REVISION the store is read
            from git's objects, a bare repository's too (give the store's path inside it), and the commits are
            searched from that revision back.
            """,
        arguments: [.init(name: "STORE", help: "The store directory."), .init(name: "ID", help: "The record's identifier.")],
        options: [
            .option("--at", value: "POINT", help: "Blame the record as it was at POINT: " + StorePoint.help + "."),
            .option("--entity", value: "ENTITY", help: "Require the record to be of this entity (or a subentity)."),
            .flag("--json", help: "Print one JSON object."),
        ],
        examples: ["folio blame Store 42", "folio blame Store 42 --entity Trip --json | jq '.members[].commit'"])

    static func run(_ arguments: ParsedArguments, console: Console) throws -> Int32 {
        let path = arguments.positionals[0]
        guard let id = Int64(arguments.positionals[1]) else {
            throw UsageError(
                "The value '\(arguments.positionals[1])' is invalid for 'ID'.",
                help: "Give a record identifier, a whole number (see 'folio cat').", command: spec.name)
        }
        let point = arguments.value("--at").map(StorePoint.init)
        // The work tree, and what the search of every transaction needs, are found while the record is read.
        let lookup = point == nil ? WorkTreeSearch.start(storeDirectory: try StoreAccess.directory(path)) : nil
        let (blame, revision) = try blameRecord(id, at: point, path: path, entity: arguments.value("--entity"))
        let commits: [String: TransactionCommits.Commit]?
        if let revision {
            commits = try findCommits(for: blame, in: TransactionCommits.find(revision: revision))
        } else if let found = lookup?.wait() {
            commits = try findCommits(for: blame, in: found.repository, prepared: try found.prepared.mapError(\.failure).get())
        } else {
            commits = nil
        }
        if arguments.flag("--json") {
            console.print(ValueFormatting.json(json(blame, commits: commits)))
        } else {
            printTable(blame, commits: commits, console: console)
        }
        return ExitCode.success
    }

    /// The record's blame and, for a store read from git, the revision. A store in a directory is first
    /// read from its files without opening it (``Store/blame(id:inStoreAt:configuration:)``); a store
    /// that needs a full open, or a point in its past, is opened read-only, without its records.
    static func blameRecord(_ id: Int64, at point: StorePoint?, path: String, entity: String?) throws -> (RecordBlame, GitStoreRevision?) {
        if point == nil, entity == nil {
            do {
                if let blame = try Store.blame(id: id, inStoreAt: try StoreAccess.directory(path)) { return (blame, nil) }
            } catch let error as StorageError {
                throw StoreAccess.failure(error, path: path)
            }
        }
        let store = try StoreAccess.openReadOnly(path, at: point, defersLoadingRecords: true)
        defer { store.close() }
        let blame = try blameRecord(id, in: store, path: path)
        if let entity { try check(blame, isA: entity, store: store, path: path) }
        return (blame, store.gitRevision)
    }

    /// The blame of record `id`, its errors as command failures.
    static func blameRecord(_ id: Int64, in store: Store, path: String) throws -> RecordBlame {
        do {
            return try store.blame(id: id)
        } catch let error as RecordBlameError {
            switch error {
            case .noRecord:
                throw CommandFailure(
                    "No record with identifier \(id) in the store at '\(path)'.",
                    help: "Find identifiers with 'folio cat \(path) ENTITY'; identifiers of records deleted before the retained history are gone.")
            case .deleted(let entity, _, let setter):
                throw CommandFailure(
                    "\(entity) \(id) was deleted by transaction \(setter.sequence) (\(setter.author.map { "by \($0), " } ?? "")\(DateText.format(setter.timestamp))): it has no values to blame.",
                    help: "See its history with 'folio show \(path) \(id)'.")
            }
        } catch let error as StorageError {
            throw StoreAccess.failure(error, path: path)
        }
    }

    /// Requires the record to be of `entity` or one of its subentities; an entity the store does not know is a usage mistake.
    static func check(_ blame: RecordBlame, isA entity: String, store: Store, path: String) throws {
        let schema = SchemaInfo(store.schema)
        let known = schema.map { $0.entities[entity] != nil } ?? store.entityNames.contains(entity)
        guard known else {
            throw UsageError(
                "Unknown entity '\(entity)' in the store at '\(path)'.", help: "List the entities with 'folio info \(path)'.",
                command: spec.name)
        }
        let accepted = Set(schema?.selfAndDescendants(entity) ?? [entity])
        guard accepted.contains(blame.entity) else {
            throw CommandFailure(
                "Record \(blame.id) is a \(blame.entity), not a \(entity).", help: "Leave out --entity, or give '--entity \(blame.entity)'.")
        }
    }

    /// The commits that brought the setting transactions; nil outside a git work tree.
    static func findCommits(
        for blame: RecordBlame, in repository: TransactionCommits?, prepared: TransactionCommits.Preparation? = nil
    ) throws -> [String: TransactionCommits.Commit]? {
        guard let repository else { return nil }
        var identifiers = Set(blame.members.compactMap(\.origin.setter?.transactionID))
        if let insertion = blame.insertion { identifiers.insert(insertion.transactionID) }
        do {
            return try repository.commits(bringing: identifiers, prepared: prepared)
        } catch {
            throw error.failure
        }
    }

    // MARK: Output

    static func printTable(_ blame: RecordBlame, commits: [String: TransactionCommits.Commit]?, console: Console) {
        console.print(console.styled("\(blame.entity) \(blame.id)", .bold))
        var headers = ["ATTRIBUTE", "VALUE", "SEQ", "AUTHOR", "TIME"]
        if commits != nil { headers += ["COMMIT", "SUBJECT"] }
        var table = TextTable(headers: headers)
        table.rightAligned = [2]
        var notes: [String] = []
        for member in blame.members {
            let value = member.value.isNull ? "null" : member.value.stringValue ?? ValueFormatting.json(member.value)
            var row = [member.name, value]
            switch member.origin {
            case .set(let setter):
                row += [String(setter.sequence), setter.author ?? "", DateText.format(setter.timestamp)]
                if let commits {
                    let commit = commits[setter.transactionID]
                    row += [commit?.shortHash ?? "(uncommitted)", commit?.subject ?? ""]
                }
            case .beforeRetainedHistory(let sequence):
                row += ["≤\(sequence)", "", ""]
                let note = "≤\(sequence): set at or before transaction \(sequence); older history is not retained (see historyRetention)."
                if !notes.contains(note) { notes.append(note) }
            case .notInHistory:
                row += ["-", "", ""]
                let note = "-: not the value any retained transaction wrote; a merge mended it in memory, and the next writable open commits it."
                if !notes.contains(note) { notes.append(note) }
            }
            table.append(row)
        }
        if blame.members.isEmpty {
            console.print("  " + console.styled("no values", .dim))
        } else {
            for line in table.render(width: console.width, headerStyle: { console.styled($0, .bold) }) { console.print(line) }
        }
        for note in notes { console.print(console.styled(note, .dim)) }
    }

    static func json(_ blame: RecordBlame, commits: [String: TransactionCommits.Commit]?) -> JSONValue {
        func transaction(_ setter: RecordBlame.Setter) -> JSONValue {
            var object: [String: JSONValue] = [
                "seq": .int(Int64(clamping: setter.sequence)), "id": .string(setter.transactionID), "time": .string(DateText.iso(setter.timestamp)),
            ]
            if let author = setter.author { object["author"] = .string(author) }
            if let commits {
                object["commit"] =
                    commits[setter.transactionID].map { commit in
                        .object([
                            "hash": .string(commit.hash), "author": .string(commit.author), "date": .string(commit.date),
                            "subject": .string(commit.subject),
                        ])
                    } ?? .null
            }
            return .object(object)
        }
        let members: [JSONValue] = blame.members.map { member in
            var object: [String: JSONValue] = ["name": .string(member.name), "value": member.value]
            switch member.origin {
            case .set(let setter):
                object["origin"] = .string("transaction")
                object["transaction"] = transaction(setter)
            case .beforeRetainedHistory(let sequence):
                object["origin"] = .string("beforeRetainedHistory")
                object["setAtOrBefore"] = .int(Int64(clamping: sequence))
            case .notInHistory(let lastSetter):
                object["origin"] = .string("notInHistory")
                if let lastSetter { object["lastWrittenBy"] = transaction(lastSetter) }
            }
            return .object(object)
        }
        return .object([
            "entity": .string(blame.entity), "id": .int(blame.id), "members": .array(members),
            "inserted": blame.insertion.map(transaction) ?? .null,
            "oldestRetainedSequence": .int(Int64(clamping: blame.oldestRetainedSequence)),
            "gitWorkTree": .bool(commits != nil),
        ])
    }
}

extension RecordBlame.Origin {
    /// The transaction the value is blamed on, if any.
    var setter: RecordBlame.Setter? {
        if case .set(let setter) = self { return setter }
        return nil
    }
}
