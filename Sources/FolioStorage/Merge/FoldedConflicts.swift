/// The conflicts of merges in which a side had compacted, found where the merge driver could not see
/// them: between the other side's transactions and the ones the compacting side folded into its
/// snapshots (``FoldedTransactions``), which `history.jsonl` still holds. When both sides compacted,
/// each side's later transactions are compared with the other side's folded ones.
///
/// The merged journal replays the other side's changes over the compacting side's snapshots, so that
/// side's writes stand, except that a record either side deleted stays deleted. This lists what that
/// overwrote, with the rules the journal merge uses for transactions it sees:
/// - an attribute both sides set to different values: the folded value is lost;
/// - a record the folded transactions deleted: the other side's values for it are lost;
/// - a record the other side deleted: the folded values for it are lost.
///
/// Attributes and records that the compacting side changed again after its compaction are left out:
/// the journal merge saw those writes and recorded their conflicts on the lines.
enum FoldedConflicts {
    typealias RecordAttribute = JournalThreeWayMerge.RecordAttribute

    /// The conflicts found, by the sequence of the merged transaction each is recorded with (the other
    /// side's transaction that wrote or deleted the value kept), among `transactions` in order.
    ///
    /// Folded transactions that the history no longer retains cannot be compared: their conflicts are
    /// not found.
    static func find(in transactions: [JournalTransaction]) -> [UInt64: [MergeConflict]] {
        // One group per merge and folding side: the transactions a merge marked with the same folded ones.
        var groups: [FoldedTransactions: [JournalTransaction]] = [:]
        for transaction in transactions {
            if var folded = transaction.folded {
                folded.seen = false
                groups[folded, default: []].append(transaction)
            }
        }
        var found: [UInt64: [MergeConflict]] = [:]
        for (group, marked) in groups {
            let folded = transactions.filter { group.contains($0) }
            let unseeing = marked.filter { $0.folded?.seen == false }
            guard !folded.isEmpty, !unseeing.isEmpty else { continue }
            // Written after the folded ones on the side that folded them: when one side compacted, the
            // lines that saw them; when both did, the other side's lines, whose writer folded these.
            let later =
                group.by == nil
                ? marked.filter { $0.folded?.seen == true }
                : transactions.filter { $0.folded.map { $0.sequences == group.sequences && $0.by != nil && $0.by != group.by } ?? false }
            let seenLater = Writes(later)
            let ours = Writes(folded), theirs = Writes(unseeing)
            func record(_ conflict: MergeConflict, on sequence: UInt64) { found[sequence, default: []].append(conflict) }

            for (attribute, write) in theirs.last {
                guard !seenLater.changed(attribute) else { continue }
                if ours.deletions[attribute.id] != nil {
                    record(
                        MergeConflict(
                            entity: attribute.entity, id: attribute.id, member: attribute.member, kept: nil, lost: write.value,
                            lostTransaction: write.transaction.transactionID),
                        on: write.transaction.sequence)
                } else if let folded = ours.last[attribute], folded.value != write.value, theirs.deletions[attribute.id] == nil {
                    record(
                        MergeConflict(
                            entity: attribute.entity, id: attribute.id, member: attribute.member, kept: write.value,
                            lost: folded.value, lostTransaction: folded.transaction.transactionID),
                        on: write.transaction.sequence)
                }
            }
            for (attribute, folded) in ours.last {
                guard let deletion = theirs.deletions[attribute.id], ours.deletions[attribute.id] == nil, !seenLater.changed(attribute)
                else { continue }
                record(
                    MergeConflict(
                        entity: attribute.entity, id: attribute.id, member: attribute.member, kept: nil, lost: folded.value,
                        lostTransaction: folded.transaction.transactionID),
                    on: deletion.sequence)
            }
        }
        for sequence in found.keys {
            found[sequence]?.sort { ($0.id, $0.member, $0.lostTransaction) < ($1.id, $1.member, $1.lostTransaction) }
        }
        return found
    }

    /// One side's last write of each attribute and first delete of each record, in transaction order.
    struct Writes {
        struct Write {
            var value: JSONValue
            var transaction: JournalTransaction
        }

        var last: [RecordAttribute: Write] = [:]
        var deletions: [Int64: JournalTransaction] = [:]

        init(_ transactions: [JournalTransaction]) {
            for transaction in transactions {
                for record in transaction.updated {
                    for (member, value) in record.values.dictionary {
                        last[RecordAttribute(entity: record.entity, id: record.id, member: member)] = Write(value: value, transaction: transaction)
                    }
                }
                for record in transaction.deleted where deletions[record.id] == nil { deletions[record.id] = transaction }
            }
        }

        /// Whether this side wrote the attribute or deleted its record.
        func changed(_ attribute: RecordAttribute) -> Bool {
            last[attribute] != nil || deletions[attribute.id] != nil
        }
    }
}
