/// A three-way merge of `history.jsonl`, which git calls for when both sides compacted.
///
/// The retained transactions of both sides: the base's that both still keep, as they are, then those
/// each side added (one both added is kept once), interleaved by commit time, ties by transaction id,
/// numbered on from the base's last. They stay at or below the merged compaction point
/// (``ManifestMerge``), which grows by what each side compacted, so no number is shared with the
/// journal. History is never replayed: these numbers order `fetchHistory`, nothing else.
package enum HistoryMerge {
    /// Merges the bytes of three history files into the bytes of one.
    package static func merge(base: [UInt8], ours: [UInt8], theirs: [UInt8]) throws(JournalThreeWayMerge.Refusal) -> [UInt8] {
        let o = try JournalThreeWayMerge.read(base, name: "base")
        let a = try JournalThreeWayMerge.read(ours, name: "ours")
        let b = try JournalThreeWayMerge.read(theirs, name: "theirs")
        for (lines, name) in [(o, "base"), (a, "ours"), (b, "theirs")] {
            if let mark = lines.first(where: \.transaction.isCompactionMark) {
                throw JournalThreeWayMerge.Refusal(message: "a compaction mark belongs in the journal, not in history", file: name, line: mark.number)
            }
        }
        let baseIDs = Set(o.map(\.transaction.transactionID))
        let ourIDs = Set(a.map(\.transaction.transactionID)), theirIDs = Set(b.map(\.transaction.transactionID))
        var output: [UInt8] = []
        for line in o where ourIDs.contains(line.transaction.transactionID) && theirIDs.contains(line.transaction.transactionID) {
            output.append(contentsOf: line.bytes)
            output.append(0x0A)
        }
        var sequence = o.last?.transaction.sequence ?? 0
        let added = JournalThreeWayMerge.interleave(
            a.filter { !baseIDs.contains($0.transaction.transactionID) }, b.filter { !baseIDs.contains($0.transaction.transactionID) })
        for (_, transaction) in added {
            var renumbered = transaction
            sequence += 1
            renumbered.sequence = sequence
            output += try JournalThreeWayMerge.encode(renumbered)
        }
        return output
    }
}
