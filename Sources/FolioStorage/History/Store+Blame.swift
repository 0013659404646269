import Foundation

/// Why a record cannot be blamed.
package enum RecordBlameError: Error, Hashable, Sendable, CustomStringConvertible {
    /// No record has the identifier, and no retained transaction deleted one that had it.
    case noRecord(id: Int64)
    /// The record was deleted by a retained transaction: it has no values to blame.
    case deleted(entity: String, id: Int64, by: RecordBlame.Setter)

    package var description: String {
        switch self {
        case .noRecord(let id):
            return "no record has identifier \(id), and no retained transaction deleted one"
        case .deleted(let entity, let id, let setter):
            return "\(entity) \(id) was deleted by transaction \(setter.sequence) (\(setter.transactionID))"
        }
    }
}

extension Store {
    /// Which retained transaction last set each value of the record with identifier `id` (identifiers
    /// are unique across the store, whatever the entity), read from the retained history: `history.jsonl`
    /// and the journal. In a git work tree compaction keeps every transaction it folds, so the history is
    /// whole there; elsewhere values set before the oldest retained transaction are said to be.
    ///
    /// - Throws: ``RecordBlameError`` when no record has the identifier; errors reading `history.jsonl`.
    package func blame(id: Int64) throws -> RecordBlame {
        let oldest = max(1, oldestRetainedSequence)
        let history = try self.history(after: oldest - 1)
        guard let record = record(id: id) else {
            if let deletion = RecordBlame.deletion(of: id, in: history) {
                throw RecordBlameError.deleted(entity: deletion.entity, id: id, by: deletion.by)
            }
            throw RecordBlameError.noRecord(id: id)
        }
        // The retained transactions are consecutive: the first one is the oldest retained.
        let first = history.first { !$0.isCompactionMark }?.sequence ?? lastSequence + 1
        return RecordBlame(record: record, history: history, oldestRetainedSequence: first)
    }
}
