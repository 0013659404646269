import Foundation

extension Store {
    /// Which retained transaction last set each value of the record with identifier `id` (identifiers
    /// are unique across the store, whatever the entity), read from the retained history: `history.jsonl`
    /// and the journal. In a git work tree compaction keeps every transaction it folds, so the history is
    /// whole there; elsewhere values set before the oldest retained transaction are said to be.
    ///
    /// - Throws: ``RecordBlameError`` when no record has the identifier; errors reading `history.jsonl`.
    package func blame(id: Int64) throws -> RecordBlame {
        if let blame = try blameWithoutLoading(id: id) { return blame }
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
