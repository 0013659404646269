/// What the merge of a side that compacted with one that did not records on each transaction it
/// adds: the transactions the compacting side had folded into its snapshots since the two parted.
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

    /// Creates the record of a merge's folded transactions.
    public init(sequences: ClosedRange<UInt64>, seen: Bool) {
        self.sequences = sequences
        self.seen = seen
    }

    /// The journal line member: `{"from":…,"seen":…,"through":…}`.
    func jsonValue() -> JSONValue {
        // Sequences are at most SequenceLimits.maximum (checked when read and when a merge sets them).
        .object([
            "from": .int(Int64(clamping: sequences.lowerBound)), "seen": .bool(seen),
            "through": .int(Int64(clamping: sequences.upperBound)),
        ])
    }

    /// Decodes a journal line's `folded` member.
    init(jsonValue value: JSONValue) throws {
        guard case .object(let members) = value, members.count == 3, case .int(let from)? = members["from"],
              case .int(let through)? = members["through"], case .bool(let seen)? = members["seen"],
              SequenceLimits.isValid(from), SequenceLimits.isValid(through), from <= through
        else {
            throw StorageError(
                .malformedLine,
                "not a journal transaction: \"folded\" must be {\"from\":…,\"seen\":true|false,\"through\":…} with 1 ≤ from ≤ through < 2^62")
        }
        self.init(sequences: UInt64(from)...UInt64(through), seen: seen)
    }
}
