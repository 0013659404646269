import Foundation

/// A three-way merge of `history.jsonl`, which git calls for when both sides compacted.
///
/// The retained transactions of both sides: the base's that both still keep, as they are, then those
/// each side added (one both added is kept once), interleaved by commit time, ties by transaction id,
/// numbered on from the base's last. The last is the merged compaction point (``ManifestMerge``),
/// which grows by what each side compacted, so no number is shared with the journal: when both sides
/// added the same lines, which both compactions counted, the base's lines move up by their number.
/// History is never replayed: these numbers order `fetchHistory`, nothing else.
///
/// Lines are checked (their checksums) and read only for their `id`, `time` and `seq`; a base line is
/// copied as it is. Each added line is renumbered and marked with `foldedBy`: the identifier of its
/// side's last transaction, which is that side's compaction mark, so that the merged journal's
/// transactions can name the folded transactions their writers did not see (``FoldedTransactions/by``).
/// A line both sides added is a transaction the base's journal held, which both sides folded: it is
/// kept once, without `foldedBy`, as both sides saw it (``MergedBase``).
package enum HistoryMerge {
    /// One history line: where it is, and what the merge needs of it.
    struct Line {
        var bytes: ArraySlice<UInt8>
        var transactionID: String
        var timestamp: Date
        var sequence: UInt64
    }

    /// Merges the bytes of three history files into the bytes of one.
    package static func merge(base: [UInt8], ours: [UInt8], theirs: [UInt8]) throws(JournalThreeWayMerge.Refusal) -> [UInt8] {
        let o = try read(base, name: "base"), a = try read(ours, name: "ours"), b = try read(theirs, name: "theirs")
        let baseIDs = Set(o.map(\.transactionID))
        let ourIDs = Set(a.map(\.transactionID)), theirIDs = Set(b.map(\.transactionID))
        let added = JournalThreeWayMerge.interleave(
            a.filter { !baseIDs.contains($0.transactionID) }, b.filter { !baseIDs.contains($0.transactionID) }
        ) { ($0.timestamp, $0.transactionID) }
        func isShared(_ line: Line) -> Bool { ourIDs.contains(line.transactionID) && theirIDs.contains(line.transactionID) }
        // Both sides' compaction points count a line both added, so the merged point (ours + theirs −
        // base, as ``ManifestMerge`` and the journal have it) is past the base's by every added line
        // and those once more: the base's lines move up by that many, so that the history ends there.
        let shift = UInt64(added.filter { isShared($0.element) }.count)
        var output: [UInt8] = []
        output.reserveCapacity(max(ours.count, theirs.count))
        for line in o where ourIDs.contains(line.transactionID) && theirIDs.contains(line.transactionID) {
            if shift == 0 {
                output.append(contentsOf: line.bytes)
                output.append(0x0A)
            } else {
                output += try moved(line, by: shift)
            }
        }
        var sequence = (o.last?.sequence ?? 0) + shift
        let marks = [a.last?.transactionID, b.last?.transactionID]
        for (side, line) in added {
            sequence += 1
            // A line both sides added is a transaction of the base's journal, which both folded: no side's.
            output += try marked(line, to: sequence, foldedBy: isShared(line) ? nil : marks[side])
        }
        return output
    }

    /// A base line numbered `shift` later, with the folded transactions it names (``FoldedTransactions``),
    /// which are base lines too, moved with it; encoded anew, ending in `\n`.
    static func moved(_ line: Line, by shift: UInt64) throws(JournalThreeWayMerge.Refusal) -> [UInt8] {
        do {
            var transaction = try Array(line.bytes).withUnsafeBufferPointer { try JournalTransaction(members: LineFraming.decode($0)) }
            transaction.sequence += shift
            if var folded = transaction.folded {
                folded.sequences = (folded.sequences.lowerBound + shift)...(folded.sequences.upperBound + shift)
                transaction.folded = folded
            }
            return try transaction.encodedLine()
        } catch {
            throw JournalThreeWayMerge.Refusal(message: "history line \(line.transactionID) cannot be written again: \(error)")
        }
    }

    /// The line with its `seq` set to `sequence` and `foldedBy` set to `mark`, encoded anew, ending in `\n`.
    static func marked(_ line: Line, to sequence: UInt64, foldedBy mark: String?) throws(JournalThreeWayMerge.Refusal) -> [UInt8] {
        do {
            var transaction = try Array(line.bytes).withUnsafeBufferPointer { try JournalTransaction(members: LineFraming.decode($0)) }
            transaction.sequence = sequence
            transaction.foldedBy = mark
            return try transaction.encodedLine()
        } catch {
            throw JournalThreeWayMerge.Refusal(message: "history line \(line.transactionID) cannot be written again: \(error)")
        }
    }

    /// The lines of one version, each checked; a line these quick reads do not recognise is refused.
    static func read(_ bytes: [UInt8], name: String) throws(JournalThreeWayMerge.Refusal) -> [Line] {
        var lines: [Line] = []
        for (number, slice) in JournalThreeWayMerge.completeLines(of: bytes) {
            func refuse(_ why: String) -> JournalThreeWayMerge.Refusal {
                JournalThreeWayMerge.Refusal(message: "not a Folio history line: \(why)", file: name, line: number)
            }
            let line: Line? = try slice.withUnsafeBufferPointer { buffer throws(JournalThreeWayMerge.Refusal) in
                do { try LineFraming.verify(buffer) } catch let error as StorageError { throw refuse(error.message) } catch {
                    throw refuse("\(error)")
                }
                if JournalTransaction.isCompactionMark(line: buffer) { throw refuse("a compaction mark belongs in the journal, not in history") }
                guard let id = JournalTransaction.plainString(ofMember: "\"id\"", inLine: buffer),
                    let time = JournalTransaction.plainString(ofMember: "\"time\"", inLine: buffer).flatMap(Timestamp.parse),
                    let digitsStart = JournalTransaction.valueStart(ofMember: "\"seq\"", inLine: buffer),
                    let parsed = JSONDigits.unsignedInteger(in: buffer, from: digitsStart), SequenceLimits.isValid(Int64(clamping: parsed.value))
                else { return nil }
                return Line(bytes: slice, transactionID: id, timestamp: time, sequence: parsed.value)
            }
            guard let line else { throw refuse("it has no \"id\", \"time\" and \"seq\" members of the expected form") }
            if let previous = lines.last?.sequence, line.sequence != previous + 1 {
                throw refuse("sequence \(line.sequence) follows \(previous): the file is not one store's history")
            }
            lines.append(line)
        }
        return lines
    }
}
