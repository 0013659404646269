/// The merge of two sides of which one migrated the schema since the base (or both, the same way):
/// every transaction written with the old schema is carried through the recorded migration, so the
/// merged journal is the migrated store's history with the other side's changes in the new shape.
///
/// A migration is a journal line with a `migrate` member (``RecordMigration``: members removed and
/// renamed, entities removed) and the new `schema`, or, once a compaction folded it, an entry of the
/// compaction mark's `foldedMigrations` (``FoldedMigration``). The rules, which give the same result
/// whichever side is ours:
///
/// - Each side's migrations since the base, folded ones first, then its lines in its own order, must
///   be the start of the other side's (each equal in `migrate` and in its schema's checksum: the same
///   plan ran); otherwise the merge is refused. The longer list is the merged store's. A folded
///   migration comes before every transaction of the merged journal, which replays over its snapshots.
/// - Walking the merged order, a migration line whose place in that list is already taken (the other
///   side ran the same migration earlier) loses its `migrate` and `schema`: the merged journal migrates
///   once. What its custom stage saved stays, as an ordinary change, except records it inserted with the
///   values an earlier line's stage inserted, which are that line's records (``DuplicateStageInserts``).
/// - Every other transaction is carried through the migrations placed before it that its writer had not
///   run (``RecordMigrationCarry``): renamed members renamed, removed members and records of removed
///   entities dropped. An added property is left out, so the record reads the declared default, as the
///   records the migration carried do.
/// - A value dropped by a migration its side never ran (the other side's alone), whether the merge drops
///   it or the replay of a migration line placed after it does, is listed as a ``MergeConflict`` on that
///   migration's line (on the transaction itself when the migration was folded), `kept` null for a
///   removed property and absent for a record of a removed entity. Such a value is lost to the merged
///   store: a removed property's, a removed entity's record's (a custom stage that copied the entity
///   under a new name copied only the records its side had), or a property whose stored type a custom
///   stage changed.
/// - An insert of the side that never ran a migration which only a custom stage can carry (a record of
///   a removed entity, or holding a value of a property a stage converted) is also kept, in its writer's
///   shape, on its own line (``AwaitingStageInserts``), for the next open with the plan to run the stage
///   over it. Updates and deletes of records the stage converted on the migrating side are conflicts
///   only: the stage ran over those records there, and its code cannot be asked what an old-shape
///   change of one becomes.
enum MigrationCarry {
    typealias SidedTransaction = JournalThreeWayMerge.SidedTransaction

    /// The merged transactions carried through the migrations placed before them, and the conflicts
    /// found, by position.
    struct Carried {
        var transactions: [SidedTransaction]
        var conflicts: [Int: [MergeConflict]]
        /// The migrations of the merged store, in order.
        fileprivate var migrations: [Migration] = []
        /// For each position, the migrations placed after it that apply to its records when the journal
        /// is replayed.
        fileprivate var later: [Range<Int>] = []

        /// The transaction at `position` (as the merge has changed it since) in the final shape, after
        /// every migration placed after it: writes are compared by the names they end up with.
        func finalShape(_ transaction: JournalTransaction, at position: Int) -> JournalTransaction {
            guard position < later.count else { return transaction }
            var transaction = transaction
            for index in later[position] { _ = RecordMigrationCarry.carry(&transaction, through: migrations[index].migrations) }
            return transaction
        }
    }

    /// Carries `sided`, the merged transactions in merge order, through the migrations; `folded[side]`
    /// are the migrations that side folded into its snapshots since the base (see ``FoldedMigration``),
    /// which come before every transaction of the merged journal.
    /// `baseChecksum` is the checksum of the base's schema, which a side that ran no migration wrote
    /// with: without it, no insert is kept for a stage.
    static func carry(
        _ sided: [SidedTransaction], folded: [[FoldedMigration]] = [[], []], baseChecksum: String? = nil
    ) throws(JournalThreeWayMerge.Refusal) -> Carried {
        let (ran, longer) = try agreedMigrations(sided, folded: folded)
        guard !longer.isEmpty else { return Carried(transactions: sided, conflicts: [:]) }

        var result = sided
        var conflicts: [Int: [MergeConflict]] = [:]
        // Conflicts for migration lines not yet placed, by their index in `longer`.
        var pending: [Int: [MergeConflict]] = [:]
        // Each migration placed so far: its line's position, or nil for one a side folded, which is in
        // the snapshots and not in the merged journal.
        var placed: [Int?] = Array(repeating: nil, count: folded.map(\.count).max() ?? 0)
        var seen = folded.map(\.count)
        var duplicates = DuplicateStageInserts()
        var awaiting = AwaitingStageInserts()
        /// Notes the inserts of `transaction` (in its writer's shape) that only a stage carries through
        /// the migrations its side never ran.
        func noteAwaiting(_ transaction: JournalTransaction, at position: Int, side: Int) {
            let first = max(seen[side], ran[side])
            let migrations = longer[min(first, longer.count)...].map { ($0.migrations, $0.schema) }
            let from = ran[side] == 0 ? baseChecksum : longer[ran[side] - 1].schemaChecksum
            let to = ran[side] < longer.count ? longer[ran[side]].schemaChecksum : nil
            awaiting.note(transaction, at: position, side: side, migrations: migrations, from: from, to: to)
        }

        /// Carries the transaction at `position`, written by `side`, through the migrations `range`,
        /// noting the values dropped by those its side never ran: on the migration's line, or on the
        /// transaction itself when the migration was folded.
        func carried(_ transaction: JournalTransaction, at position: Int, side: Int, through range: Range<Int>) -> JournalTransaction {
            var transaction = transaction
            for index in range {
                let dropped = RecordMigrationCarry.carry(&transaction, through: longer[index].migrations)
                guard index >= ran[side] else { continue }
                let lost = dropped.map { drop in
                    MergeConflict(
                        entity: drop.entity, id: drop.id, member: drop.member, kept: drop.withRecord ? nil : .null, lost: drop.value,
                        lostTransaction: transaction.transactionID)
                }
                if index >= placed.count {
                    pending[index, default: []] += lost
                } else {
                    conflicts[placed[index] ?? position, default: []] += lost
                }
            }
            return transaction
        }

        var later: [Range<Int>] = []
        for position in result.indices {
            let side = result[position].side
            var transaction = result[position].transaction
            if !transaction.writtenMigrations.isEmpty {
                seen[side] += 1
                let index = seen[side] - 1
                if index < placed.count {
                    // The other side ran this migration earlier: only what its stage saved is kept.
                    transaction.migrations = []
                    transaction.schema = nil
                    if let earlier = placed[index] {
                        duplicates.drop(from: &transaction, side: side, sameAs: result[earlier].transaction)
                    } else if !transaction.inserted.isEmpty {
                        throw JournalThreeWayMerge.Refusal(
                            message: """
                                both sides ran the migration \(longer[index].label), and the other side has compacted since: \
                                the records this side's custom stage inserted cannot be matched with those the other's \
                                inserted, which are in its snapshots. Merge before compacting a migrated store, or keep one \
                                side (see docs/git.md)
                                """)
                    }
                } else {
                    placed.append(position)
                    conflicts[position, default: []] += pending.removeValue(forKey: index) ?? []
                    result[position].transaction = transaction
                    later.append(seen[side]..<longer.count)
                    continue
                }
            }
            duplicates.rewrite(&transaction, side: side)
            noteAwaiting(transaction, at: position, side: side)
            transaction = carried(transaction, at: position, side: side, through: seen[side]..<placed.count)
            result[position].transaction = transaction
            // Noted now: the values the migrations placed later drop when the journal is replayed.
            _ = carried(transaction, at: position, side: side, through: placed.count..<longer.count)
            later.append(placed.count..<longer.count)
        }
        for (position, kept) in awaiting.byPosition { result[position].transaction.awaitingStage = kept }
        return Carried(transactions: result, conflicts: conflicts.filter { !$0.value.isEmpty }, migrations: longer, later: later)
    }
}
