import Foundation
import FolioStorage

/// `folio verify STORE`: every check, a summary, exit 1 on problems.
enum VerifyCommand: FolioSubcommand {
    static let spec = CommandSpec(
        name: "verify", abstract: "Check every file, record, reference, unique constraint and blob of a store.",
        discussion: """
            The storage checks read every line of every file: checksums, JSON, line structure, merge-conflict
            markers, the manifest, contiguous sequence numbers, snapshot record counts and order. When the store
            opens, the model checks use the schema it records: entities and properties the schema knows, values
            of the stored form of their declared type (String, Int, Double, Date, Data, …), relationships that point at existing records of the right entity, unique constraints, and blobs that
            exist with the right SHA-256. Exits with 1 when any problem is found, 0 otherwise (warnings do not
            fail). Nothing is changed.
            """,
        arguments: [.init(name: "STORE", help: "The store directory.")],
        options: [
            .flag("--json", help: "Print one JSON object with the problems, warnings and counts."),
            .flag("--quiet", "-q", help: "Print only problems and the summary line."),
            .flag("--all", help: "Print every problem (the default prints the first 50 of each kind)."),
            .flag("--repair", help: "When there are problems in the files, run 'folio repair' (with a backup) afterwards."),
        ],
        examples: ["folio verify Store", "folio verify Store --json | jq '.problems[]'"])

    struct Problem {
        var check: String
        var location: String?
        var code: String
        var message: String

        var text: String {
            (location.map { "\($0): " } ?? "") + "[\(code)] \(message)"
        }
    }

    static func run(_ arguments: ParsedArguments, console: Console) throws -> Int32 {
        let path = arguments.positionals[0]
        let url = try StoreAccess.directory(path)
        var problems: [Problem] = []
        var warnings: [String] = []
        var counts: [(String, Int)] = []
        func relative(_ file: String?) -> String? {
            guard let file else { return nil }
            let prefix = url.path.hasSuffix("/") ? url.path : url.path + "/"
            return file.hasPrefix(prefix) ? String(file.dropFirst(prefix.count)) : file
        }
        func location(_ error: StorageError) -> String? {
            guard var text = relative(error.file) else { return nil }
            if let line = error.line { text += ":\(line)" }
            if let offset = error.offset { text += " (byte \(offset))" }
            return text
        }

        // 1. Files: what the engine checks.
        let verification = StoreVerifier.verify(at: url)
        for error in verification.problems {
            problems.append(Problem(check: "files", location: location(error), code: error.code.rawValue, message: error.message))
        }
        func addWarning(_ text: String) {
            let relativeText = text.replacingOccurrences(of: url.path + "/", with: "")
            if !warnings.contains(relativeText) { warnings.append(relativeText) }
        }
        verification.warnings.forEach(addWarning)
        SnapshotCacheCheck.notes(store: url).forEach(addWarning)
        let fileCount =
            (try? FileManager.default.subpathsOfDirectory(atPath: url.path))?.filter { name in
                var isDirectory: ObjCBool = false
                return FileManager.default.fileExists(atPath: url.appendingPathComponent(name).path, isDirectory: &isDirectory)
                    && !isDirectory.boolValue
            }.count ?? 0
        counts.append(("files", fileCount))

        // 2. Model checks, when the store opens.
        var opened = false
        if verification.problems.isEmpty,
            let store = try? Store.open(at: url, configuration: StoreConfiguration(compactionThreshold: nil, readOnly: true))
        {
            opened = true
            defer { store.close() }
            if let note = store.inMemoryReconciliationNote { addWarning(note) }
            let schema = SchemaInfo(store.schema)
            let entityNames = store.entityNames
            let total = entityNames.reduce(0) { $0 + store.count(of: $1) }
            counts.append(("records", total))
            counts.append(("entities", entityNames.count))
            let history = (try? StoreAccess.retainedHistory(store)) ?? []
            counts.append(("transactions", history.count))
            let progress = Progress("Checking records", total: total, console: console)
            var references = 0
            var inverseMismatches = 0
            var blobs: [String: String] = [:]  // hash → first place it is referred to
            if schema == nil, total > 0 {
                warnings.append(
                    "the store records no schema, so references and unique constraints cannot be checked (open it once with a ModelContainer)")
            }
            for entity in entityNames {
                let records = store.records(of: entity)
                let entitySchema = schema?.entities[entity]
                if schema != nil, entitySchema == nil {
                    problems.append(
                        Problem(
                            check: "schema", location: "snapshots/\(entity).jsonl", code: "unknownEntity",
                            message: "\(records.count) record(s) of \(entity), an entity the store's schema does not declare"))
                }
                let relationships = schema?.relationships(of: entity) ?? []
                for record in records {
                    progress.advance()
                    collectBlobs(.object(record.values.dictionary), place: "\(entity) \(record.id)", into: &blobs)
                    if let schema, entitySchema != nil {
                        for key in record.values.keys.sorted() {
                            guard let property = schema.property(key, of: entity) else {
                                problems.append(
                                    Problem(
                                        check: "schema", location: "\(entity) \(record.id)", code: "unknownProperty",
                                        message: "property '\(key)' is not declared by \(entity) in the store's schema"))
                                continue
                            }
                            guard !property.isRelationship, let type = property.type, let value = record.values[key],
                                let problem = StoredValueCheck.problem(with: value, type: type, isOptional: property.isOptional)
                            else { continue }
                            problems.append(
                                Problem(
                                    check: "schema", location: "\(entity) \(record.id)", code: "wrongType",
                                    message: "'\(key)' holds \(problem)"))
                        }
                    }
                    for relationship in relationships {
                        guard let value = record.values[relationship.name], !value.isNull else { continue }
                        let shapeOK: Bool
                        if relationship.isToMany {
                            shapeOK = value.arrayValue?.allSatisfy { $0.intValue != nil } ?? false
                        } else {
                            shapeOK = value.intValue != nil
                        }
                        if !shapeOK {
                            problems.append(
                                Problem(
                                    check: "references", location: "\(entity) \(record.id)", code: "malformedReference",
                                    message:
                                        "'\(relationship.name)' should hold \(relationship.isToMany ? "an array of identifiers" : "an identifier or null"), not \(ValueFormatting.json(value))"
                                ))
                            continue
                        }
                        for target in RelationshipValue.identifiers(value) {
                            references += 1
                            if let inverse = relationship.inverse, let related = store.record(id: target),
                                !RelationshipValue.identifiers(related.values[inverse]).contains(record.id),
                                related.values[inverse] != nil || schema?.property(inverse, of: related.entity) != nil
                            {
                                inverseMismatches += 1
                                if inverseMismatches <= 20 {
                                    addWarning(
                                        "\(entity) \(record.id).\(relationship.name) refers to \(related.entity) \(target), whose inverse '\(inverse)' does not refer back"
                                    )
                                }
                            }
                            guard let related = store.record(id: target) else {
                                problems.append(
                                    Problem(
                                        check: "references", location: "\(entity) \(record.id)", code: "danglingReference",
                                        message: "'\(relationship.name)' refers to record \(target), which does not exist"))
                                continue
                            }
                            if let destination = relationship.destination, let schema, !schema.isKind(related.entity, of: destination) {
                                problems.append(
                                    Problem(
                                        check: "references", location: "\(entity) \(record.id)", code: "wrongEntity",
                                        message: "'\(relationship.name)' refers to \(related.entity) \(target), but it holds \(destination) records"))
                            }
                        }
                    }
                }
            }
            progress.finish()
            if inverseMismatches > 20 { addWarning("… \(inverseMismatches - 20) more relationships whose inverse does not refer back") }
            counts.append(("references", references))

            // Unique constraints, across the entity and its subentities.
            var constraints = 0
            if let schema {
                var checked = Set<String>()
                for entity in schema.entities.values.sorted(by: { $0.name < $1.name }) {
                    for group in entity.uniqueness {
                        // A subentity inherits its superentity's constraint: check each once, at the top.
                        let owner = topmostDeclaring(group, from: entity.name, schema: schema)
                        guard checked.insert("\(owner)|\(group.joined(separator: ","))").inserted else { continue }
                        constraints += 1
                        var seen: [String: StoredRecord] = [:]
                        for member in schema.selfAndDescendants(owner) {
                            for record in store.records(of: member) {
                                let values = group.map { record.values[$0] ?? .null }
                                // Like SQL's UNIQUE, missing values (nil) never collide.
                                if values.contains(where: \.isNull) { continue }
                                let key = ValueFormatting.json(.array(values))
                                if let first = seen[key] {
                                    problems.append(
                                        Problem(
                                            check: "unique", location: "\(record.entity) \(record.id)", code: "uniqueViolation",
                                            message:
                                                "\(group.joined(separator: ", ")) = \(key) is also held by \(first.entity) \(first.id), but \(owner) declares it unique"
                                        ))
                                } else {
                                    seen[key] = record
                                }
                            }
                        }
                    }
                }
            }
            counts.append(("unique constraints", constraints))

            // Blobs: every reference present with the right hash; unreferenced files are only a warning.
            for transaction in history {
                for change in LogCommand.changes(of: transaction) {
                    collectBlobs(.object(change.values), place: "transaction \(transaction.sequence)", into: &blobs)
                }
            }
            for (hash, place) in blobs.sorted(by: { $0.key < $1.key }) {
                do { _ = try store.blob(hash) } catch let error as StorageError {
                    problems.append(
                        Problem(
                            check: "blobs", location: relative(error.file) ?? "blobs", code: error.code.rawValue,
                            message: "\(error.message) (referred to by \(place))"))
                } catch {
                    problems.append(Problem(check: "blobs", location: "blobs", code: "blobNotFound", message: "\(error) (referred to by \(place))"))
                }
            }
            let blobFolder = url.appendingPathComponent("blobs")
            for shard in (try? FileManager.default.contentsOfDirectory(atPath: blobFolder.path)) ?? [] {
                for name in (try? FileManager.default.contentsOfDirectory(atPath: blobFolder.appendingPathComponent(shard).path)) ?? []
                where blobs[name] == nil && !name.contains(".tmp-") {
                    warnings.append("blobs/\(shard)/\(name) is not referred to by any record or retained transaction; the next compaction removes it")
                }
            }
            counts.append(("blobs", blobs.count))
            store.warnings.forEach(addWarning)
        }
        if !opened, verification.problems.isEmpty {
            problems.append(Problem(check: "files", location: nil, code: "openFailed", message: "the store does not open"))
        }

        if arguments.flag("--json") {
            let object: [String: JSONValue] = [
                "store": .string(url.path), "healthy": .bool(problems.isEmpty),
                "problems": .array(
                    problems.map { p in
                        var members: [String: JSONValue] = ["check": .string(p.check), "code": .string(p.code), "message": .string(p.message)]
                        if let location = p.location { members["location"] = .string(location) }
                        return .object(members)
                    }),
                "warnings": .array(warnings.map { .string($0) }),
                "checked": .object(Dictionary(uniqueKeysWithValues: counts.map { ($0.0, JSONValue.int(Int64($0.1))) })),
                "modelChecks": .bool(opened),
            ]
            console.print(ValueFormatting.json(.object(object)))
            return problems.isEmpty ? ExitCode.success : ExitCode.failure
        }
        var shownPerCode: [String: Int] = [:]
        for problem in problems {
            shownPerCode[problem.code, default: 0] += 1
            let shown = shownPerCode[problem.code]!
            if shown <= 50 || arguments.flag("--all") {
                console.print("\(console.styled("problem", .red))  \(problem.text)")
            }
        }
        for (code, count) in shownPerCode.sorted(by: { $0.key < $1.key }) where count > 50 && !arguments.flag("--all") {
            console.print("\(console.styled("problem", .red))  … and \(count - 50) more [\(code)] problems (--all or --json shows them)")
        }
        for warning in warnings { console.print("\(console.styled("warning", .yellow))  \(warning)") }
        if !arguments.flag("--quiet") {
            console.print("Checked \(counts.map { "\($0.1) \($0.1 == 1 ? singular($0.0) : $0.0)" }.joined(separator: ", ")).")
            if !opened { console.print("Model checks (schema, references, unique constraints, blobs) were skipped: the files have problems.") }
        }
        if problems.isEmpty {
            console.print(
                console.styled("OK", .green)
                    + ": no problems\(warnings.isEmpty ? "" : ", \(warnings.count) warning\(warnings.count == 1 ? "" : "s")").")
            return ExitCode.success
        }
        let fileProblems = problems.contains { $0.check == "files" }
        console.print(
            console.styled("FAILED", .red)
                + ": \(problems.count) problem\(problems.count == 1 ? "" : "s"), \(warnings.count) warning\(warnings.count == 1 ? "" : "s").")
        if fileProblems && arguments.flag("--repair") {
            console.print()
            console.flush()
            return try RepairCommand.run(ParsedArguments(positionals: [path]), console: console)
        } else if fileProblems {
            console.print("Run 'folio repair \(path)' to set damaged lines aside (it writes a backup first).")
        } else {
            console.print(
                "These problems are in the data itself; 'folio repair' does not change records. Fix them in the app, or edit with 'folio import'.")
        }
        return ExitCode.failure
    }

    static func topmostDeclaring(_ group: [String], from entity: String, schema: SchemaInfo) -> String {
        var owner = entity
        while let parent = schema.entities[owner]?.superentity, schema.entities[parent]?.uniqueness.contains(group) == true {
            owner = parent
        }
        return owner
    }

    static func collectBlobs(_ value: JSONValue, place: String, into blobs: inout [String: String]) {
        switch value {
        case .object(let members):
            if let hash = BlobStore.referencedHash(value) {
                if blobs[hash] == nil { blobs[hash] = place }
                return
            }
            for member in members.values { collectBlobs(member, place: place, into: &blobs) }
        case .array(let elements):
            for element in elements { collectBlobs(element, place: place, into: &blobs) }
        default:
            break
        }
    }
}

/// The singular of a count's noun: "1 entity", "1 unique constraint", "1 blob".
private func singular(_ noun: String) -> String {
    if noun.hasSuffix("ies") { return String(noun.dropLast(3)) + "y" }
    if noun.hasSuffix("s") { return String(noun.dropLast()) }
    return noun
}
