/// Why a merged journal cannot be resolved.
package enum JournalMergeFailure: Error, Hashable, Sendable, CustomStringConvertible {
    /// The 1-based line is not a valid transaction line (damaged, not JSON, not a transaction).
    case damagedLine(Int, String)
    /// Records must be renumbered but the store records no schema, so references to them cannot be found.
    case noSchema
    /// A transaction's sequence number skips ahead of the one before it.
    case missingTransactions(sequence: UInt64, line: Int, after: UInt64)
    /// The transaction on the 1-based `line` of `journal.jsonl` migrates `entity`'s records (see
    /// `RecordMigration`): renumbering the other side's records across a change of their shape is not
    /// done yet.
    case migratedStore(line: Int, entity: String)

    package var description: String {
        switch self {
        case .damagedLine(let line, let why): return "line \(line) is not a valid transaction (\(why))"
        case .noSchema: return "the store records no schema, so references to renumbered records cannot be rewritten"
        case .missingTransactions(let sequence, let line, let after):
            return "sequence \(sequence) on line \(line) follows \(after): transactions are missing"
        case .migratedStore(let line, let entity):
            return
                "journal.jsonl line \(line) migrates the records of \(entity): a migrated store cannot be merged yet: migrate both clones to the same schema first"
        }
    }
}
