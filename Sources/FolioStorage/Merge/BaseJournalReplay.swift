/// Replays the merge base's journal over snapshots git merged from two copies that both compacted it.
///
/// Git merges each snapshot file against the base's, which lacks what the base's journal held
/// (``MergedBase``): a value that journal wrote and one side changed again looks changed by both
/// sides, and a record it inserted that one side deleted looks inserted by the other. The merged
/// history holds what decides them: the base journal's transactions, and each side's own folded
/// transactions marked with its compaction mark (``HistoryMerge``). For every record those base
/// transactions touched (and did not delete):
///
/// - a record either side's folded transactions deleted stays deleted, and every value the other side
///   or the merged journal wrote to it is recorded as lost;
/// - each member the base transactions wrote takes the value of the side that wrote it again, the
///   later write when both did (the other recorded as a ``MergeConflict``; a to-many relationship
///   merges as a set instead), the base's value when neither did;
/// - a member a transaction of the merged journal wrote keeps that value: the journal comes after.
///
/// The result is the changes that bring the loaded records there, and the members it decided
/// (``decided``), whose conflicts in the snapshot headers the merge recorded without knowing the base.
struct BaseJournalReplay {
    /// The author of the transaction that commits a replay.
    static let author = CrossFileReconciliation.author

    /// One member of one record.
    struct Member: Hashable {
        var entity: String
        var id: Int64
        var member: String
    }

    /// The records changed, each with only the members that change.
    private(set) var updates: [StoredRecord] = []
    /// The records deleted.
    private(set) var deletes: [DeletedRecord] = []
    /// The values not kept.
    private(set) var conflicts: [MergeConflict] = []
    /// The members the replay decided: a snapshot header's conflict on one of them is superseded.
    private(set) var decided: Set<Member> = []
    /// Records whose whole state the replay decided (deleted ones): every header conflict on them is superseded.
    private(set) var decidedRecords: Set<Int64> = []

    var isEmpty: Bool { updates.isEmpty && deletes.isEmpty }

    /// Computes the replay.
    ///
    /// - Parameters:
    ///   - state: the records as loaded: merged snapshots, then the merged journal.
    ///   - history: the retained transactions, oldest first (`history.jsonl`'s, then the journal's).
    ///   - compactionPoint: the merged compaction mark's sequence; history above it is the journal.
    /// - Throws: ``StorageError/Code/historyExpired`` when `history.jsonl` lacks a transaction of the base's
    ///   journal: what the merge needs is gone, and the file to blame is named.
    init(
        state: StoreState, history: [JournalTransaction], mergedBase: MergedBase, compactionPoint: UInt64,
        schema: MergeSchema?, historyPath: String? = nil
    ) throws {
        let folded = history.filter { $0.sequence <= compactionPoint && !$0.isCompactionMark }
        let byID = Dictionary(folded.map { ($0.transactionID, $0) }, uniquingKeysWith: { first, _ in first })
        var base: [JournalTransaction] = []
        for id in mergedBase.transactions {
            guard let transaction = byID[id] else {
                throw StorageError(
                    .historyExpired,
                    "git merged two compacted copies of this store, but history.jsonl does not hold transaction \(id) of the merge base's journal, which the merge must replay: take the merge back (git merge --abort, or git reset to the commit before it) and merge again with Folio's merge driver installed (folio git-setup)",
                    file: historyPath)
            }
            base.append(transaction)
        }
        let baseIDs = Set(mergedBase.transactions)

        // What the base's journal left of each record it touched: the members it wrote, last value first.
        var written: [Int64: (entity: String, values: [String: JSONValue])] = [:]
        var deletedByBase = Set<Int64>()
        for transaction in base {
            for record in transaction.inserted + transaction.updated {
                var entry = written[record.id] ?? (record.entity, [:])
                for (member, value) in record.values.dictionary { entry.values[member] = value }
                written[record.id] = entry
            }
            for record in transaction.deleted { deletedByBase.insert(record.id) }
        }
        guard !written.isEmpty else { return }

        // Each side's writes and deletes of those records, in history order.
        struct Write { var position: Int; var value: JSONValue; var transaction: String }
        var sideWrites: [[Int64: [String: Write]]] = [[:], [:]]
        var sideDelete: [Int64: (side: Int, transaction: String)] = [:]
        for (position, transaction) in folded.enumerated() where !baseIDs.contains(transaction.transactionID) {
            guard let mark = transaction.foldedBy, let side = mergedBase.sides.firstIndex(of: mark) else { continue }
            for record in transaction.inserted + transaction.updated where written[record.id] != nil {
                for (member, value) in record.values.dictionary {
                    sideWrites[side][record.id, default: [:]][member] = Write(
                        position: position, value: value, transaction: transaction.transactionID)
                }
            }
            for record in transaction.deleted where written[record.id] != nil && sideDelete[record.id] == nil {
                sideDelete[record.id] = (side, transaction.transactionID)
            }
        }
        // The merged journal's writes come after all of them.
        var journalWrites: [Int64: [String: Write]] = [:]
        var deletedByJournal = Set<Int64>()
        for (position, transaction) in history.enumerated() where transaction.sequence > compactionPoint {
            for record in transaction.inserted + transaction.updated where written[record.id] != nil {
                for (member, value) in record.values.dictionary {
                    journalWrites[record.id, default: [:]][member] = Write(position: position, value: value, transaction: transaction.transactionID)
                }
            }
            for record in transaction.deleted { deletedByJournal.insert(record.id) }
        }

        for id in written.keys.sorted() where !deletedByBase.contains(id) {
            guard let (entity, baseValues) = written[id] else { continue }
            if sideDelete[id] != nil { decidedRecords.insert(id) }
            for member in baseValues.keys { decided.insert(Member(entity: entity, id: id, member: member)) }
            guard !deletedByJournal.contains(id), let current = state.record(id: id) else { continue }
            if let deletion = sideDelete[id] {
                // The delete stands: what the other side and the journal wrote to the record is lost.
                deletes.append(DeletedRecord(entity: current.entity, id: id, tombstone: [:]))
                var lost = sideWrites[1 - deletion.side][id] ?? [:]
                for (member, write) in journalWrites[id] ?? [:] { lost[member] = write }
                for member in lost.keys.sorted() {
                    guard let write = lost[member] else { continue }
                    conflicts.append(
                        MergeConflict(
                            entity: current.entity, id: id, member: member, kept: nil, lost: write.value,
                            lostTransaction: write.transaction))
                }
                continue
            }
            var changed: [String: JSONValue] = [:]
            for member in baseValues.keys.sorted() where journalWrites[id]?[member] == nil {
                guard let was = baseValues[member] else { continue }
                let ours = sideWrites[0][id]?[member], theirs = sideWrites[1][id]?[member]
                var target = was
                switch (ours, theirs) {
                case (let ours?, let theirs?):
                    let (later, earlier) = ours.position > theirs.position ? (ours, theirs) : (theirs, ours)
                    target = later.value
                    guard later.value != earlier.value else { break }
                    if schema?.relationship(member, of: current.entity)?.isToMany == true,
                        let merged = SnapshotMerge.mergedMembers(was: was, kept: later.value, other: earlier.value)
                    {
                        target = merged
                    } else {
                        conflicts.append(
                            MergeConflict(
                                entity: current.entity, id: id, member: member, kept: later.value,
                                lost: earlier.value, lostTransaction: earlier.transaction))
                    }
                case (let one?, nil), (nil, let one?):
                    target = one.value
                case (nil, nil):
                    break
                }
                if current.values[member] != target { changed[member] = target }
            }
            if !changed.isEmpty { updates.append(StoredRecord(entity: current.entity, id: id, values: RecordValues(changed))) }
        }
    }

    /// `recorded` (snapshot header conflicts by entity) without those on members the replay decided.
    func superseding(_ recorded: [String: [MergeConflict]]) -> [String: [MergeConflict]] {
        guard !decided.isEmpty || !decidedRecords.isEmpty else { return recorded }
        var result: [String: [MergeConflict]] = [:]
        for (entity, conflicts) in recorded {
            let kept = conflicts.filter { conflict in
                !decidedRecords.contains(conflict.id) && !decided.contains(Member(entity: conflict.entity, id: conflict.id, member: conflict.member))
            }
            if !kept.isEmpty { result[entity] = kept }
        }
        return result
    }

    /// A short account of what the replay changes, for warnings.
    var summary: String {
        "\(updates.count) record(s) whose values the merge base's journal had written, \(deletes.count) record(s) one side had deleted"
    }
}
