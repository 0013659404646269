import Foundation
import FolioStorage

/// Resolves a git merge of `journal.jsonl`: two branches that each appended transactions after a common
/// one, joined with conflict markers (a plain merge) or without them (`merge=union` in `.gitattributes`).
///
/// The transactions of the first branch (git's "ours", written first) keep their sequence numbers. Each
/// later run of transactions that restarts at a sequence already used ("theirs") is replayed after them:
/// renumbered to follow on, its inserted records given fresh identifiers (both branches allocated from the
/// same counter) and every reference to those records — relationship values, updates, deletes — rewritten
/// with the store's schema. Transactions present on both sides (the same transaction `id`) are kept once.
enum JournalMerge {
    struct Outcome {
        var lines: [[UInt8]]
        var actions: [String]
    }

    enum Failure: Error, CustomStringConvertible {
        case damagedLine(Int, String)
        case noSchema
        case unsupported(String)

        var description: String {
            switch self {
            case .damagedLine(let line, let why): return "line \(line) is not a valid transaction (\(why))"
            case .noSchema: return "the store records no schema, so references to renumbered records cannot be rewritten"
            case .unsupported(let why): return why
            }
        }
    }

    /// Whether the journal looks merged: conflict markers, or a sequence number that goes back.
    static func needsMerge(_ journal: [[UInt8]]) -> Bool {
        var last: Int64 = 0
        for line in journal {
            if isMarker(line) { return true }
            guard let members = try? decode(line), let seq = members["seq"]?.intValue else { continue }
            if seq <= last { return true }
            last = seq
        }
        return false
    }

    static func isMarker(_ line: [UInt8]) -> Bool {
        line.withUnsafeBufferPointer { LineFraming.isConflictMarker($0) }
    }

    static func decode(_ line: [UInt8]) throws -> [String: JSONValue] {
        var bytes = line
        if bytes.last == 0x0D { bytes.removeLast() }
        return try bytes.withUnsafeBufferPointer { try LineFraming.decode($0) }
    }

    /// The merged journal lines (without their `\n`), or why the journal cannot be merged.
    static func merge(_ journal: [[UInt8]], manifest: [String: JSONValue]?) throws -> Outcome {
        var transactions: [(line: Int, members: [String: JSONValue])] = []
        var inBase = false
        var seenIDs = Set<String>()
        var actions: [String] = []
        var markers = 0
        for (index, line) in journal.enumerated() {
            if isMarker(line) {
                markers += 1
                if line.starts(with: Array("|||||||".utf8)) { inBase = true }
                if line.starts(with: Array("=======".utf8)) || line.starts(with: Array(">>>>>>>".utf8)) { inBase = false }
                continue
            }
            if inBase { continue }  // diff3's common-ancestor section: its lines are on both sides already
            let members: [String: JSONValue]
            do { members = try decode(line) } catch let error as StorageError {
                throw Failure.damagedLine(index + 1, error.message)
            }
            guard members["seq"]?.intValue != nil, let id = members["id"]?.stringValue else {
                throw Failure.damagedLine(index + 1, "no seq or id")
            }
            if !seenIDs.insert(id).inserted {
                actions.append("kept one copy of transaction \(id) (line \(index + 1)), which both sides had")
                continue
            }
            transactions.append((index + 1, members))
        }
        if markers > 0 { actions.insert("removed \(markers) git conflict marker line\(markers == 1 ? "" : "s")", at: 0) }

        var schema = SchemaInfo(manifest?["schema"]?.objectValue?["value"])
        var merged: [[String: JSONValue]] = []
        var index = 0
        /// The sequence number of a transaction line (checked to be present above).
        func sequence(_ members: [String: JSONValue]) -> Int64 { members["seq"]?.intValue ?? 0 }
        while index < transactions.count {
            let members = transactions[index].members
            let seq = sequence(members)
            let last = merged.last.map(sequence)
            if last.map({ seq == $0 + 1 }) ?? true {
                if let value = members["schema"]?.objectValue?["value"], let info = SchemaInfo(value) { schema = info }
                merged.append(members)
                index += 1
                continue
            }
            if let last, seq > last {
                throw Failure.unsupported("sequence \(seq) on line \(transactions[index].line) follows \(last): transactions are missing")
            }
            // A run that restarts after `base`: replay it after the merged transactions.
            let base = seq - 1
            var run: [[String: JSONValue]] = []
            var expected = seq
            while index < transactions.count, sequence(transactions[index].members) == expected {
                run.append(transactions[index].members)
                expected += 1
                index += 1
            }
            let baseNextID = merged.last(where: { sequence($0) == base })?["nextID"]?.intValue
                ?? manifest?["nextID"]?.intValue ?? 1
            var counter = merged.last?["nextID"]?.intValue ?? baseNextID
            var mapping: [Int64: Int64] = [:]
            for transaction in run {
                for entry in transaction["inserted"]?.arrayValue ?? [] {
                    if let id = entry.objectValue?["id"]?.intValue, id >= baseNextID, mapping[id] == nil {
                        mapping[id] = counter
                        counter += 1
                    }
                }
            }
            if !mapping.isEmpty && schema == nil { throw Failure.noSchema }
            let first = (merged.last?["seq"]?.intValue ?? 0) + 1
            for var transaction in run {
                transaction["seq"] = .int((merged.last?["seq"]?.intValue ?? 0) + 1)
                for key in ["inserted", "updated", "deleted"] {
                    guard let entries = transaction[key]?.arrayValue else { continue }
                    let rewritten = entries.map { entry -> JSONValue in
                        guard var object = entry.objectValue, let entity = object["entity"]?.stringValue else { return entry }
                        if let id = object["id"]?.intValue, let mapped = mapping[id] { object["id"] = .int(mapped) }
                        let valuesKey = key == "deleted" ? "tombstone" : "values"
                        if var values = object[valuesKey]?.objectValue, let schema {
                            for relationship in schema.relationships(of: entity) {
                                switch values[relationship.name] {
                                case .int(let target)?: values[relationship.name] = .int(mapping[target] ?? target)
                                case .array(let targets)?:
                                    values[relationship.name] = .array(targets.map { $0.intValue.map { .int(mapping[$0] ?? $0) } ?? $0 })
                                default: break
                                }
                            }
                            object[valuesKey] = .object(values)
                        }
                        return .object(object)
                    }
                    // Lists stay sorted by identifier.
                    transaction[key] = .array(rewritten.sorted { ($0.objectValue?["id"]?.intValue ?? 0) < ($1.objectValue?["id"]?.intValue ?? 0) })
                }
                transaction["nextID"] = .int(max(counter, transaction["nextID"]?.intValue ?? 0))
                if let value = transaction["schema"]?.objectValue?["value"], let info = SchemaInfo(value) { schema = info }
                merged.append(transaction)
            }
            actions.append(
                "replayed the \(run.count) transaction\(run.count == 1 ? "" : "s") of the other side (sequence \(seq)–\(seq + Int64(run.count) - 1) after \(base)) as \(first)–\(merged.last?["seq"]?.intValue ?? 0)"
                    + (mapping.isEmpty ? "" : ", giving their \(mapping.count) new record\(mapping.count == 1 ? "" : "s") the identifiers \(mapping.values.min()!)–\(mapping.values.max()!)"))
        }
        let lines = try merged.map { Array(try LineFraming.encode($0).dropLast()) }
        return Outcome(lines: lines, actions: actions)
    }
}
