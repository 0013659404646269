/// The merge of two sides of which one migrated the schema since the base (or both, the same way):
/// every transaction written with the old schema is carried through the recorded migration, so the
/// merged journal is the migrated store's history with the other side's changes in the new shape.
///
/// A migration is a journal line with a `migrate` member (``RecordMigration``: members removed and
/// renamed, entities removed) and the new `schema`. The rules, which give the same result whichever side
/// is ours:
///
/// - Each side's migration lines, in its own order, are its *migrations*. One side's must be the start
///   of the other's (each line equal in `migrate` and `schema`: the same plan ran); otherwise the merge
///   is refused. The longer list is the merged store's.
/// - Walking the merged order, a migration line whose place in that list is already taken (the other
///   side ran the same migration earlier) loses its `migrate` and `schema`: the merged journal migrates
///   once. What its custom stage saved stays, as an ordinary change, except records it inserted with the
///   values an earlier line's stage inserted, which are that line's records (``DuplicateStageInserts``).
/// - Every other transaction is carried through the migrations placed before it that its writer had not
///   run (``RecordMigrationCarry``): renamed members renamed, removed members and records of removed
///   entities dropped. An added property is left out, so the record reads the declared default, as the
///   records the migration carried do.
/// - A value dropped on the way by a migration its side never ran (the other side's alone) is listed as
///   a ``MergeConflict`` on that migration's line, `kept` absent. Such a value is lost to the merged
///   store: a removed property's, a removed entity's record's (a custom stage that copied the entity
///   under a new name copied only the records its side had), or a property whose stored type a custom
///   stage changed.
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

    /// One migration line's content, as two lines of the same plan have it.
    struct Migration: Equatable {
        var migrations: [RecordMigration]
        var schema: JSONValue?
    }

    static func carry(_ sided: [SidedTransaction]) throws(JournalThreeWayMerge.Refusal) -> Carried {
        let lists = (0...1).map { side in
            sided.filter { $0.side == side && !$0.transaction.writtenMigrations.isEmpty }.map(\.transaction)
        }
        guard lists.contains(where: { !$0.isEmpty }) else { return Carried(transactions: sided, conflicts: [:]) }
        let migrations = lists.map { $0.map { Migration(migrations: $0.writtenMigrations, schema: $0.schema) } }
        let (shorter, longer) = migrations[0].count <= migrations[1].count ? (migrations[0], migrations[1]) : (migrations[1], migrations[0])
        if let differing = shorter.indices.first(where: { shorter[$0] != longer[$0] }) {
            throw JournalThreeWayMerge.Refusal(message: refusal(differing, lists))
        }
        let ran = lists.map(\.count)

        var result = sided
        var conflicts: [Int: [MergeConflict]] = [:]
        // Conflicts for migration lines not yet placed, by their index in `longer`.
        var pending: [Int: [MergeConflict]] = [:]
        var placed: [Int] = []  // the position of each migration line placed so far
        var seen = [0, 0]
        var duplicates = DuplicateStageInserts()

        /// Carries `transaction`, written by `side` having run `from` migrations, through the
        /// migrations `range`, noting the values dropped by those its side never ran.
        func carried(_ transaction: JournalTransaction, side: Int, through range: Range<Int>, notingDrops: Bool) -> JournalTransaction {
            var transaction = transaction
            for index in range {
                let dropped = RecordMigrationCarry.carry(&transaction, through: longer[index].migrations)
                guard notingDrops, index >= ran[side] else { continue }
                let lost = dropped.map { drop in
                    MergeConflict(
                        entity: drop.entity, id: drop.id, member: drop.member, kept: nil, lost: drop.value,
                        lostTransaction: transaction.transactionID)
                }
                if index < placed.count { conflicts[placed[index], default: []] += lost } else { pending[index, default: []] += lost }
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
                    duplicates.drop(from: &transaction, side: side, sameAs: result[placed[index]].transaction)
                } else {
                    placed.append(position)
                    conflicts[position, default: []] += pending.removeValue(forKey: index) ?? []
                    result[position].transaction = transaction
                    later.append(seen[side]..<longer.count)
                    continue
                }
            }
            duplicates.rewrite(&transaction, side: side)
            transaction = carried(transaction, side: side, through: seen[side]..<placed.count, notingDrops: true)
            result[position].transaction = transaction
            // Noted now: the values the migrations placed later drop when the journal is replayed.
            _ = carried(transaction, side: side, through: placed.count..<longer.count, notingDrops: true)
            later.append(placed.count..<longer.count)
        }
        return Carried(transactions: result, conflicts: conflicts.filter { !$0.value.isEmpty }, migrations: longer, later: later)
    }

    /// Why two sides' migrations cannot be merged: at `index`, their lines differ.
    private static func refusal(_ index: Int, _ lists: [[JournalTransaction]]) -> String {
        let ours = lists[0][index], theirs = lists[1][index]
        func describe(_ line: JournalTransaction) -> String {
            let version = line.schema.flatMap { MergeSchema.version(of: $0) }.map { "to version \($0)" } ?? "to an unnamed version"
            return "\(version) (transaction \(line.transactionID), \(line.author ?? "no author"))"
        }
        return """
            both sides migrated the store's schema, differently: ours \(describe(ours)), theirs \(describe(theirs)). \
            A merge carries one side's changes through the other's migration, or merges two runs of one migration, \
            not two migrations. Keep the side whose migration the app ships ('git checkout --ours' or '--theirs'), \
            then re-add the other side's records with 'folio export' and 'folio import' (see docs/git.md)
            """
    }
}

extension MergeSchema {
    /// The version identifier a schema description records (`"2.0.0"`), if any.
    static func version(of description: JSONValue) -> String? {
        guard case .object(let root) = description, case .string(let version)? = root["version"] else { return nil }
        return version
    }
}
