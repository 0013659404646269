/// Records a git merge kept for a schema migration's custom stage (``AwaitingStage``), until a
/// transaction carries them (``JournalTransaction/stageCarried``).
///
/// They live on journal lines, so a store that holds any does not compact (the lines would be folded
/// into snapshots, which keep records, not what awaits): automatic compactions wait, and ``compact()``
/// throws ``StorageError/Code/recordsAwaitingStage``.
extension Store {
    /// The records merges kept for a custom stage that no transaction has carried yet, oldest first.
    ///
    /// - Throws: what ``loadRecords()`` throws.
    public func recordsAwaitingStage() throws -> [AwaitingStageRecords] {
        try loadRecords()
        return withReadState { Self.awaitingStage(in: $0.retained) }
    }

    /// The lines of `transactions` with records awaiting a stage that no later one of them carried.
    static func awaitingStage(in transactions: [JournalTransaction]) -> [AwaitingStageRecords] {
        guard transactions.contains(where: { $0.awaitingStage != nil }) else { return [] }
        let carried = Set(transactions.flatMap(\.stageCarried))
        return transactions.compactMap { transaction in
            guard let awaiting = transaction.awaitingStage, !carried.contains(transaction.transactionID) else { return nil }
            return AwaitingStageRecords(transactionID: transaction.transactionID, awaiting: awaiting)
        }
    }

    /// The warning a store with records awaiting a stage gives, nil for none.
    static func awaitingStageWarning(_ awaiting: [AwaitingStageRecords]) -> String? {
        guard !awaiting.isEmpty else { return nil }
        let count = awaiting.map(\.awaiting.inserted.count).reduce(0, +)
        let schemas = Set(awaiting.map { "\($0.awaiting.fromChecksum.prefix(12)) → \($0.awaiting.toChecksum.prefix(12))" }).sorted()
        return """
            \(count) record\(count == 1 ? "" : "s") a git merge kept for a schema migration's custom stage await it \
            (schema \(schemas.joined(separator: ", "))): open the store with the app's migration plan to carry them \
            (folio conflicts lists them); until then it does not compact
            """
    }

    /// Whether records await a stage (compactions wait while they do).
    package func hasRecordsAwaitingStage() -> Bool {
        withReadState { !Self.awaitingStage(in: $0.retained).isEmpty }
    }

    /// Refuses a compaction while records await a stage.
    func checkNoRecordsAwaitingStage() throws {
        let awaiting = withReadState { Self.awaitingStage(in: $0.retained) }
        guard !awaiting.isEmpty else { return }
        throw StorageError(
            .recordsAwaitingStage,
            "the store cannot compact: \(Self.awaitingStageWarning(awaiting) ?? "records await a migration's custom stage")")
    }
}
