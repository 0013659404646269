/// The migrations two sides of a merge made since the base, which must be one plan's (see
/// ``MigrationCarry``).
extension MigrationCarry {
    /// One migration line's content, as two lines of the same plan have it: what it does to records and
    /// the checksum of the schema it leads to.
    struct Migration: Equatable {
        var migrations: [RecordMigration]
        var schemaChecksum: String?
        /// The new schema's description, when the line is in a journal (a folded one keeps its checksum only).
        var schema: JSONValue?
        /// The line, for messages.
        var label: String

        init(_ line: JournalTransaction) {
            migrations = line.writtenMigrations
            schemaChecksum = FoldedMigration.checksum(of: line.schema)
            schema = line.schema
            let version = line.schema.flatMap { MergeSchema.version(of: $0) }.map { "to version \($0)" } ?? "to an unnamed version"
            label = "\(version) (transaction \(line.transactionID), \(line.author ?? "no author"))"
        }

        init(_ folded: FoldedMigration) {
            migrations = folded.migrations
            schemaChecksum = folded.schemaChecksum
            label =
                "to the schema with checksum \(folded.schemaChecksum?.prefix(12) ?? "(none)") (transaction \(folded.transactionID), folded by a compaction)"
        }

        static func == (a: Migration, b: Migration) -> Bool { a.migrations == b.migrations && a.schemaChecksum == b.schemaChecksum }
    }

    /// The number of migrations each side ran since the base (folded ones included) and the merged
    /// store's: the longer list, of which the other side's is the start.
    ///
    /// - Throws: ``JournalThreeWayMerge/Refusal`` when the sides migrated differently, or when a side that
    ///   did not run every migration recorded a schema of its own.
    static func agreedMigrations(_ sided: [SidedTransaction], folded: [[FoldedMigration]]) throws(JournalThreeWayMerge.Refusal)
        -> (ran: [Int], merged: [Migration])
    {
        let lists = (0...1).map { side in
            folded[side].map(Migration.init)
                + sided.filter { $0.side == side && !$0.transaction.writtenMigrations.isEmpty }.map { Migration($0.transaction) }
        }
        guard lists.contains(where: { !$0.isEmpty }) else { return ([0, 0], []) }
        let (shorter, longer) = lists[0].count <= lists[1].count ? (lists[0], lists[1]) : (lists[1], lists[0])
        if let differing = shorter.indices.first(where: { shorter[$0] != longer[$0] }) {
            throw JournalThreeWayMerge.Refusal(
                message: """
                    both sides migrated the store's schema, differently: ours \(lists[0][differing].label), theirs \
                    \(lists[1][differing].label). A merge carries one side's changes through the other's migration, or merges \
                    two runs of one migration, not two migrations. Keep the side whose migration the app ships \
                    ('git checkout --ours' or '--theirs'), then re-add the other side's records with 'folio export' and \
                    'folio import' (see docs/git.md)
                    """)
        }
        let ran = lists.map(\.count)
        // A side that did not run every migration and recorded another schema (models changed without a
        // `migrate`, such as an added optional property) took a way of its own: its schema cannot follow
        // the migration.
        for side in 0...1 where ran[side] < longer.count {
            if let line = sided.first(where: { $0.side == side && $0.transaction.writtenMigrations.isEmpty && $0.transaction.schema != nil }) {
                throw JournalThreeWayMerge.Refusal(
                    message: """
                        both sides changed the store's schema: \(side == 0 ? "ours" : "theirs") recorded another schema in \
                        transaction \(line.transaction.transactionID) (\(line.transaction.author ?? "no author")), and the other \
                        side migrated \(longer[ran[side]].label). Open that side with the migrated app version before \
                        merging, or keep one side (see docs/git.md)
                        """)
            }
        }

        return (ran, longer)
    }
}

extension MergeSchema {
    /// The version identifier a schema description records (`"2.0.0"`), if any.
    static func version(of description: JSONValue) -> String? {
        guard case .object(let root) = description, case .string(let version)? = root["version"] else { return nil }
        return version
    }
}

extension JournalThreeWayMerge {
    /// The migrations each side that compacted since the base `o` folded into its snapshots since then,
    /// as its mark names them: those the base neither holds in its journal nor names on its mark, after
    /// the base's compaction point.
    ///
    /// - Throws: ``Refusal`` when both sides compacted and one folded a migration: git merges their
    ///   snapshots file by file, which cannot carry one side's records through the other's migration.
    static func foldedMigrations(since o: Version, ours: Version?, theirs: Version?) throws(Refusal) -> [[FoldedMigration]] {
        let known = Set(o.lines.map(\.transaction.transactionID)).union(o.mark?.transaction.foldedMigrations.map(\.transactionID) ?? [])
        let point = o.compactionPoint ?? 0
        let folded = [ours, theirs].map { side in
            (side?.mark?.transaction.foldedMigrations ?? []).filter { !known.contains($0.transactionID) && $0.sequence > point }
        }
        if let ours, let theirs, let side = [ours, theirs].indices.first(where: { !folded[$0].isEmpty }) {
            let name = [ours, theirs][side].name
            throw Refusal(
                message: """
                    both sides compacted since the merge base, and \(name) had migrated the schema before it compacted: \
                    the snapshots, which git merges file by file, hold one side's records in the old shape and the other's \
                    in the new. Merge before compacting a migrated store: keep one side, then re-add the other's records \
                    with 'folio export' and 'folio import' (see docs/git.md)
                    """,
                file: name, line: [ours, theirs][side].mark?.number)
        }
        return folded
    }
}
