/// The third phase of loading: `history.jsonl`, the retained transactions a compaction already folded
/// into the snapshots. Opening skips it (stores read it on first use); verification and the merge
/// mend read it.
///
/// - Input: the store's paths and configuration.
/// - Output: the file's transactions in file order (none without the file). They are never applied:
///   the snapshots hold them.
/// - Invariant: each transaction's sequence is one past the previous line's, or the break is reported
///   (``StorageError/Code/duplicateSequence`` or ``StorageError/Code/missingSequence``) with the file,
///   line and offset; an incomplete last line is reported as ``StorageError/Code/malformedLine``.
enum HistoryPhase {
    /// Reads `history.jsonl`.
    static func read(
        _ paths: StorePaths, configuration: StoreConfiguration, report: (StorageError) throws -> Void
    ) throws -> [JournalTransaction] {
        let context = LoadContext(paths: paths, configuration: configuration, checkingBlobReferences: false, unsafePaths: [])
        let fs = configuration.fileSystem
        guard try fs.status(atPath: paths.history) != nil else { return [] }
        let file = try fs.open(paths.history, .read)
        defer { fs.close(file) }
        var previous: UInt64? = nil
        var transactions: [JournalTransaction] = []
        let scanned = try context.readTransactions(file, report: report) { transaction, line in
            if let previous, transaction.sequence != previous + 1 {
                try report(
                    StorageError(
                        transaction.sequence <= previous ? .duplicateSequence : .missingSequence,
                        "history sequence \(transaction.sequence) follows \(previous)", file: paths.history, line: line.number,
                        offset: line.offset))
            }
            previous = transaction.sequence
            transactions.append(transaction)
        }
        guard let result = scanned else { return transactions }
        if result.tailLength > 0 {
            try report(
                StorageError(
                    .malformedLine, "history ends in an incomplete line", file: paths.history, line: result.lineCount + 1,
                    offset: result.validEnd))
        }
        return transactions
    }

    /// `transactions` (oldest first) together with those of `history.jsonl`, oldest first; a sequence in
    /// both (the files overlap after an interrupted compaction) is taken from `transactions`.
    static func merging(
        _ transactions: [JournalTransaction], withHistoryFileIn paths: StorePaths, configuration: StoreConfiguration
    ) throws -> [JournalTransaction] {
        combining(history: try read(paths, configuration: configuration, report: { throw $0 }), journal: transactions)
    }

    /// The transactions of the history file and of the journal in one list, ascending by sequence; a
    /// sequence in both is taken from the journal.
    static func combining(history: [JournalTransaction], journal: [JournalTransaction]) -> [JournalTransaction] {
        var bySequence: [UInt64: JournalTransaction] = [:]
        for transaction in history { bySequence[transaction.sequence] = transaction }
        for transaction in journal { bySequence[transaction.sequence] = transaction }
        return bySequence.keys.sorted().compactMap { bySequence[$0] }
    }
}
