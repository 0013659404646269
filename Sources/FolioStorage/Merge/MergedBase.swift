/// What the compaction mark of a journal git merged from two compacted copies records when the merge
/// base's journal still held transactions, which both copies then folded into their snapshots.
///
/// Git merges the snapshot files against the base's snapshots, which lack those transactions, so a
/// record they inserted looks inserted by both sides, and a value they wrote looks changed by both.
/// The store mends such records when it opens (``BaseJournalReplay``), from `history.jsonl`: there
/// the base's transactions are the lines both sides added (merged once, without `foldedBy`), and each
/// side's own folded transactions carry that side's compaction mark in `foldedBy`.
///
/// Journal member `mergedBase` of the mark: `{"sides":[mark id, mark id],"transactions":[id, …]}`.
public struct MergedBase: Hashable, Sendable {
    /// The identifiers of the base journal's transactions, in order.
    public var transactions: [String]
    /// The two sides' compaction marks: the `foldedBy` of each side's own lines in the merged history.
    public var sides: [String]

    /// Creates the record of a merge base's folded journal.
    public init(transactions: [String], sides: [String]) {
        self.transactions = transactions
        self.sides = sides
    }

    func jsonValue() -> JSONValue {
        .object(["sides": .array(sides.map { .string($0) }), "transactions": .array(transactions.map { .string($0) })])
    }

    init(jsonValue value: JSONValue) throws {
        func strings(_ value: JSONValue?) -> [String]? {
            guard case .array(let items)? = value else { return nil }
            let strings = items.compactMap { item -> String? in
                guard case .string(let string) = item, !string.isEmpty else { return nil }
                return string
            }
            return strings.count == items.count ? strings : nil
        }
        guard case .object(let members) = value, members.count == 2, let sides = strings(members["sides"]), sides.count == 2,
            let transactions = strings(members["transactions"]), !transactions.isEmpty
        else {
            throw StorageError(
                .malformedLine,
                "not a journal transaction: \"mergedBase\" must be {\"sides\":[two transaction ids],\"transactions\":[transaction ids]}")
        }
        self.init(transactions: transactions, sides: sides)
    }
}
