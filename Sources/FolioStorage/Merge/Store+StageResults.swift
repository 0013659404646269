/// What a migration plan's custom stages made of records a git merge kept for them (``AwaitingStage``),
/// and the one transaction that adds it to the store and marks those records carried.
package struct StageResults: Sendable {
    /// The merged lines whose records the stages ran over.
    package var lines: [String]
    /// The identifiers of those records: a result with one of them is a record the stages kept.
    package var awaitingIDs: Set<Int64>
    /// The records the staging store held once the stages had run, in the store's schema.
    package var records: [StoredRecord]

    /// Creates the results of running the stages over the records of `lines`.
    package init(lines: [String], awaitingIDs: Set<Int64>, records: [StoredRecord]) {
        self.lines = lines
        self.awaitingIDs = awaitingIDs
        self.records = records
    }
}

extension Store {
    /// The author of the transaction that carries records awaiting a stage, as of a merge's mend.
    package static let stageCarryAuthor = "folio merge"

    /// Adds `results` to the store in one transaction that also names `results.lines` as carried
    /// (``JournalTransaction/stageCarried``), so that a crash leaves either both or neither, and no stage
    /// ever runs twice over the same records:
    ///
    /// - a record the stages inserted gets a fresh identifier of this store, and every reference to it
    ///   among the results is rewritten (`schema`, the store's schema description, says which values
    ///   are references);
    /// - a record the stages kept (an awaiting record of an entity the migration kept, whose converted
    ///   value the merge dropped) is in the store already: the values it lacks are set, none it has is
    ///   overwritten; one deleted since is left deleted.
    ///
    /// - Returns: the transaction, or nil when another process carried some of those lines meanwhile
    ///   (nothing is written; the next open runs the stages over what still awaits).
    package func commitStageResults(_ results: StageResults, schema: JSONValue?) throws -> JournalTransaction? {
        try write(author: Self.stageCarryAuthor) { transaction in
            let awaiting = Set(withReadState { Self.awaitingStage(in: $0.retained) }.map(\.transactionID))
            guard !results.lines.isEmpty, results.lines.allSatisfy(awaiting.contains) else { return }
            let mergeSchema = MergeSchema(schema)
            var mapping: [Int64: Int64] = [:]
            var inserts: [StoredRecord] = []
            var fills: [StoredRecord] = []
            for record in results.records.sorted(by: { $0.id < $1.id }) {
                if results.awaitingIDs.contains(record.id) {
                    guard let stored = transaction.record(id: record.id), stored.entity == record.entity else { continue }
                    let missing = record.values.dictionary.filter { stored.values[$0.key] == nil }
                    if !missing.isEmpty { fills.append(StoredRecord(entity: record.entity, id: record.id, values: RecordValues(missing))) }
                } else {
                    mapping[record.id] = transaction.allocateID()
                    inserts.append(record)
                }
            }
            let renumbering = IdentifierRenumbering(mapping: mapping)
            for record in inserts { try transaction.insert(renumbering.rewritten(record, schema: mergeSchema)) }
            for record in fills {
                try transaction.update(entity: record.entity, id: record.id, values: renumbering.rewritten(record, schema: mergeSchema).values)
            }
            transaction.stageCarried = results.lines
        }
    }
}
