import Foundation

/// Brings the records of a compaction point back to an earlier sequence with the values the retained
/// history holds: a record a retained transaction inserted is replayed from that insert; an older
/// record keeps its compacted values except the members changed since, which take the value the
/// history last wrote before.
///
/// - Input: the records at the compaction point `C` (the snapshots alone), and the retained
///   transactions up to `C`, ascending (`history.jsonl`'s, then the journal's up to `C`).
/// - Output: the records, schema and sequence after transaction `s`, for any `s` from
///   ``oldestReachable`` up to `C`; the identifier counters stay the compaction point's, which are
///   past every identifier in use at `s` (identifiers are never reused).
/// - Invariant: a sequence below ``oldestReachable`` would need a value no retained transaction holds
///   (a record deleted since, a member first written since, a schema set since, a migration since),
///   and is refused rather than guessed.
struct HistoryRollback {
    /// One change of one record by one transaction.
    private enum Change {
        case insert(RecordValues)
        case update(RecordValues)
        case delete
    }

    /// Every change of one record in the usable history, oldest first.
    private struct Trace {
        var entity: String
        var changes: [(sequence: UInt64, change: Change)] = []
    }

    /// The compaction point the records are at.
    let compactionPoint: UInt64
    /// The oldest sequence whose records the history can rebuild.
    private(set) var oldestReachable: UInt64
    /// The usable transactions: the contiguous run ending at the compaction point, after its last migration.
    private let transactions: [JournalTransaction]
    private var traces: [Int64: Trace] = [:]

    /// Prepares a rollback of records at `compactionPoint`.
    ///
    /// - Parameter history: retained transactions, ascending by sequence; those after `compactionPoint`
    ///   and compaction marks are ignored.
    init(history: [JournalTransaction], compactionPoint: UInt64) {
        self.compactionPoint = compactionPoint
        // The run of consecutive sequences that ends at the compaction point, after the last migration:
        // a migration rewrote records in ways the history does not undo.
        var usable: [JournalTransaction] = []
        for transaction in history.reversed() where transaction.sequence <= compactionPoint && !transaction.isCompactionMark {
            guard transaction.sequence == (usable.last?.sequence ?? compactionPoint + 1) - 1,
                transaction.writtenMigrations.isEmpty
            else { break }
            usable.append(transaction)
        }
        transactions = usable.reversed()
        let first = transactions.first?.sequence ?? compactionPoint + 1
        oldestReachable = first - 1
        for transaction in transactions {
            for record in transaction.deleted {
                traces[record.id, default: Trace(entity: record.entity)].changes.append((transaction.sequence, .delete))
            }
            for record in transaction.inserted {
                traces[record.id, default: Trace(entity: record.entity)].changes.append((transaction.sequence, .insert(record.values)))
            }
            for record in transaction.updated {
                traces[record.id, default: Trace(entity: record.entity)].changes.append((transaction.sequence, .update(record.values)))
            }
        }
        // A history that starts with the store knows everything before it: nothing.
        guard first > 1 else { return }
        if let schemaSet = transactions.first(where: { $0.schema != nil }) { oldestReachable = max(oldestReachable, schemaSet.sequence) }
        for trace in traces.values {
            guard let firstChange = trace.changes.first, !Self.isInsert(firstChange.change) else { continue }
            // A record older than the history: each member's value before its first retained write is
            // unknown, and so are all of them before its delete.
            var seen = Set<String>()
            for (sequence, change) in trace.changes {
                switch change {
                case .delete: oldestReachable = max(oldestReachable, sequence)
                case .update(let values):
                    for (name, _) in values where seen.insert(name).inserted { oldestReachable = max(oldestReachable, sequence) }
                case .insert: break
                }
            }
        }
    }

    private static func isInsert(_ change: Change) -> Bool {
        if case .insert = change { return true }
        return false
    }

    /// Rolls `state`, the records at the compaction point, back to sequence `target`.
    ///
    /// - Precondition: `oldestReachable <= target <= compactionPoint`.
    func rollBack(_ state: inout StoreState, to target: UInt64) {
        let later = transactions.filter { $0.sequence > target }
        var touched = Set<Int64>()
        for transaction in later {
            for record in transaction.inserted { touched.insert(record.id) }
            for record in transaction.updated { touched.insert(record.id) }
            for record in transaction.deleted { touched.insert(record.id) }
        }
        var replaced: [(id: Int64, entity: String, values: RecordValues, version: UInt64)] = []
        var removed: [DeletedRecord] = []
        for id in touched.sorted() {
            guard let trace = traces[id] else { continue }
            if let current = state.record(id: id) { removed.append(DeletedRecord(entity: current.entity, id: id)) }
            if let past = past(of: trace, id: id, in: state, at: target) {
                replaced.append((id, trace.entity, past.values, past.version))
            }
        }
        let removal = JournalTransaction(
            sequence: compactionPoint, transactionID: "", timestamp: .distantPast, author: nil, inserted: [], updated: [],
            deleted: removed, nextID: state.nextID)
        _ = state.apply(removal, globalBase: .max)
        for record in replaced {
            _ = state.insert(id: record.id, entity: state.position(ofEntity: record.entity), values: record.values, version: record.version)
        }
        // A schema set since `target` is the one set last before it, or none before a history that starts
        // with the store (an older unknown one puts `target` below ``oldestReachable``).
        if later.contains(where: { $0.schema != nil }) {
            state.schema = transactions.last(where: { $0.sequence <= target && $0.schema != nil })?.schema
        }
        state.lastSequence = target
    }

    /// A record's values after `target` and the sequence that last wrote them; nil when it did not exist.
    private func past(of trace: Trace, id: Int64, in state: StoreState, at target: UInt64) -> (values: RecordValues, version: UInt64)? {
        let known = trace.changes.filter { $0.sequence <= target }
        if let firstChange = trace.changes.first, Self.isInsert(firstChange.change) {
            var values: RecordValues? = nil
            var version: UInt64 = 0
            for (sequence, change) in known {
                switch change {
                case .insert(let inserted): values = inserted
                case .update(let changed): values = values?.merging(changed)
                case .delete: values = nil
                }
                version = sequence
            }
            return values.map { ($0, version) }
        }
        // A record older than the history: alive at the compaction point unless deleted in between.
        guard var values = state.record(id: id)?.values else { return nil }
        var version: UInt64 = 0
        var restored: [String: JSONValue] = [:]
        for (sequence, change) in known {
            guard case .update(let changed) = change else { continue }
            for (name, value) in changed { restored[name] = value }
            version = sequence
        }
        values = values.merging(RecordValues(restored))
        return (values, version)
    }
}
