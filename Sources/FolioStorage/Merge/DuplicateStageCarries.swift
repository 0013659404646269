/// Two clones that each opened a merged store with the migration plan each carried the same records a
/// merge kept for a custom stage (``AwaitingStage``): the later carrying line's records that equal the
/// earlier line's (entity and values) are those records, and its side's later changes of them apply
/// to the earlier line's. What it carried that the earlier did not stays.
enum DuplicateStageCarries {
    /// `sided` with the later of two sides' lines carrying the same lines reduced to what it adds.
    static func merge(_ sided: [JournalThreeWayMerge.SidedTransaction]) -> [JournalThreeWayMerge.SidedTransaction] {
        guard sided.contains(where: { !$0.transaction.stageCarried.isEmpty }) else { return sided }
        var result = sided
        var duplicates = DuplicateStageInserts()
        for position in result.indices {
            let side = result[position].side
            var transaction = result[position].transaction
            duplicates.rewrite(&transaction, side: side)
            if !transaction.stageCarried.isEmpty,
                let earlier = result[..<position].last(where: { line in
                    line.side != side && !Set(line.transaction.stageCarried).isDisjoint(with: transaction.stageCarried)
                })
            {
                duplicates.drop(from: &transaction, side: side, sameAs: earlier.transaction)
                let done = Set(earlier.transaction.stageCarried)
                transaction.stageCarried.removeAll(where: done.contains)
            }
            result[position].transaction = transaction
        }
        return result
    }
}
