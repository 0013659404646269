/// A resolved journal: its transactions, contiguous from the first, and what was done to get them.
package struct JournalMergeResult: Sendable, Hashable {
    /// The merged transactions, sequence numbers contiguous.
    package var transactions: [JournalTransaction]
    /// What the merge resolved, in the order it did so.
    package var resolutions: [JournalMergeResolution]

    /// The journal file's new contents: each transaction's framed line, ending in `\n`.
    package func journalBytes() throws -> [UInt8] {
        var bytes: [UInt8] = []
        for transaction in transactions { bytes += try transaction.encodedLine() }
        return bytes
    }
}

/// One thing a merge resolved; its description is the sentence `folio repair` prints.
package enum JournalMergeResolution: Sendable, Hashable, CustomStringConvertible {
    /// Lines of git conflict markers (and any diff3 common-ancestor section) were dropped.
    case removedConflictMarkers(count: Int)
    /// A transaction both sides had (the same transaction identifier) was kept once; `line` is the copy dropped.
    case keptOneCopy(transactionID: String, line: Int)
    /// A run of the other side's transactions, which followed `base`, was renumbered to follow the merged
    /// ones; `newIdentifiers` are the identifiers its inserted records were given, if it inserted any.
    case replayed(
        original: ClosedRange<UInt64>, base: UInt64, renumbered: ClosedRange<UInt64>,
        newIdentifiers: ClosedRange<Int64>?)

    package var description: String {
        switch self {
        case .removedConflictMarkers(let count):
            return "removed \(count) git conflict marker line\(count == 1 ? "" : "s")"
        case .keptOneCopy(let transactionID, let line):
            return "kept one copy of transaction \(transactionID) (line \(line)), which both sides had"
        case .replayed(let original, let base, let renumbered, let newIdentifiers):
            let count = original.count
            var text =
                "replayed the \(count) transaction\(count == 1 ? "" : "s") of the other side"
                + " (sequence \(original.lowerBound)–\(original.upperBound) after \(base))"
                + " as \(renumbered.lowerBound)–\(renumbered.upperBound)"
            if let newIdentifiers {
                let recordCount = newIdentifiers.count
                text +=
                    ", giving their \(recordCount) new record\(recordCount == 1 ? "" : "s") the identifiers"
                    + " \(newIdentifiers.lowerBound)–\(newIdentifiers.upperBound)"
            }
            return text
        }
    }
}
