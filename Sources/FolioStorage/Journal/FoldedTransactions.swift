/// What the merge of a side that compacted with one that did not records on each transaction it
/// adds: the transactions the compacting side had folded into its snapshots since the two parted.
/// A merge of two sides that both compacted records on each the other side's (see ``by``).
///
/// Git takes that side's snapshots and `history.jsonl` as they are and calls the merge driver only for
/// the journals, which no longer show those transactions. So the driver cannot compare them with the
/// other side's; it marks the merged transactions instead, and the store does what the driver could
/// not: a change of a record that the folded transactions deleted applies to nothing (the delete
/// stands), and ``Store/conflicts()`` lists every value the merge overwrote, read from the folded
/// transactions in `history.jsonl` (journal member `folded`, see `docs/file-format.md`).
public struct FoldedTransactions: Hashable, Sendable {
    /// The folded transactions' sequence numbers, as `history.jsonl` holds them.
    public var sequences: ClosedRange<UInt64>
    /// Whether this transaction was written on the side that folded them, after its compaction; false
    /// for the other side's, written without seeing them.
    public var seen: Bool
    /// When both sides had compacted, ``sequences`` holds both sides' folded transactions, interleaved:
    /// those this transaction did not see are the ones whose ``JournalTransaction/foldedBy`` is this
    /// identifier (the other side's compaction mark). Nil when one side had compacted.
    public var by: String?

    /// Creates the record of a merge's folded transactions.
    public init(sequences: ClosedRange<UInt64>, seen: Bool, by: String? = nil) {
        self.sequences = sequences
        self.seen = seen
        self.by = by
    }

    /// Whether `transaction` is one of these folded transactions.
    func contains(_ transaction: JournalTransaction) -> Bool {
        sequences.contains(transaction.sequence) && !transaction.isCompactionMark && (by == nil || transaction.foldedBy == by)
    }

    /// The journal line member: `{"by":…,"from":…,"seen":…,"through":…}`, `by` only when set.
    func jsonValue() -> JSONValue {
        // Sequences are at most SequenceLimits.maximum (checked when read and when a merge sets them).
        var members: [String: JSONValue] = [
            "from": .int(Int64(clamping: sequences.lowerBound)), "seen": .bool(seen),
            "through": .int(Int64(clamping: sequences.upperBound)),
        ]
        if let by { members["by"] = .string(by) }
        return .object(members)
    }

    /// Decodes a journal line's `folded` member.
    init(jsonValue value: JSONValue) throws {
        let malformed = StorageError(
            .malformedLine,
            "not a journal transaction: \"folded\" must be {\"from\":…,\"seen\":true|false,\"through\":…} with 1 ≤ from ≤ through < 2^62, and an optional \"by\":\"transaction id\""
        )
        guard case .object(let members) = value, case .int(let from)? = members["from"],
            case .int(let through)? = members["through"], case .bool(let seen)? = members["seen"],
            SequenceLimits.isValid(from), SequenceLimits.isValid(through), from <= through
        else { throw malformed }
        var by: String? = nil
        if let value = members["by"] {
            guard case .string(let identifier) = value, !identifier.isEmpty else { throw malformed }
            by = identifier
        }
        guard members.count == (by == nil ? 3 : 4) else { throw malformed }
        self.init(sequences: UInt64(from)...UInt64(through), seen: seen, by: by)
    }
}
