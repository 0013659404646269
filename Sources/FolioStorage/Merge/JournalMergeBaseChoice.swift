/// The base a journal merge starts from when the merge base git found is not one both sides' journals
/// start with.
///
/// A journal merge keeps the base's transactions first and places the sides' new ones after them,
/// interleaved by time. When clones merge one another's work in turns, a merge can place a
/// transaction of one side before a transaction that another commit already had right after its
/// predecessors; that commit, later the merge base of two descendants, is then no prefix of the
/// merged journal, and the merge would be refused as "not one store's history". Both sides still
/// begin with the same transactions up to some point: the longest such common beginning is a base
/// they both extend, and transactions both sides hold after it are kept once. Only journals without
/// compaction marks are chosen for; a compacted side is left to the merge's own rules.
enum JournalMergeBaseChoice {
    /// `base` when both sides begin with its transactions (or a side compacted); otherwise the lines
    /// of `ours` that both sides begin with.
    static func base(_ base: [UInt8], ours: [UInt8], theirs: [UInt8]) -> [UInt8] {
        let (baseLines, ourLines, theirLines) = (lines(base), lines(ours), lines(theirs))
        guard let baseIDs = baseLines.ids, let ourIDs = ourLines.ids, let theirIDs = theirLines.ids else { return base }
        if ourIDs.starts(with: baseIDs) && theirIDs.starts(with: baseIDs) { return base }
        let common = zip(ourIDs, theirIDs).prefix { $0 == $1 }.count
        guard common > 0 else { return base }
        return Array(ours[..<ourLines.ends[common - 1]])
    }

    /// The transaction identifiers of a journal's complete lines and where each line ends (after its
    /// `\n`); nil identifiers when a line has none or is a compaction mark.
    private static func lines(_ bytes: [UInt8]) -> (ids: [String]?, ends: [Int]) {
        var ids: [String] = []
        var ends: [Int] = []
        var start = 0
        var valid = true
        bytes.withUnsafeBufferPointer { buffer in
            for index in buffer.indices where buffer[index] == UInt8(ascii: "\n") {
                let line = UnsafeBufferPointer(rebasing: buffer[start..<index])
                start = index + 1
                if JournalTransaction.isCompactionMark(line: line) { valid = false }
                guard let id = JournalTransaction.plainString(ofMember: "\"id\"", inLine: line) else {
                    valid = false
                    continue
                }
                ids.append(id)
                ends.append(index + 1)
            }
        }
        return (valid ? ids : nil, ends)
    }
}
