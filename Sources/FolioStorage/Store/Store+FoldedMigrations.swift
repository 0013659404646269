extension Store {
    /// The migrations the mark of a compaction at `sequence` names: those the journal's current mark
    /// names, and the migration lines of `transactions` (the retained history and the journal) up to
    /// `sequence` (see ``FoldedMigration``).
    func foldedMigrations(_ transactions: [JournalTransaction], through sequence: UInt64, paths: StorePaths) -> [FoldedMigration] {
        FoldedMigration.list(earlier: currentMark(paths)?.foldedMigrations ?? [], transactions: transactions.filter { $0.sequence <= sequence })
    }

    /// The journal's compaction mark (its first line), if it has one that reads; only that line is read.
    private func currentMark(_ paths: StorePaths) -> JournalTransaction? {
        guard (try? fs.status(atPath: paths.journal)) != nil, let file = try? fs.open(paths.journal, .read) else { return nil }
        defer { fs.close(file) }
        struct FirstLineRead: Error {}
        var mark: JournalTransaction? = nil
        _ = try? LineScanner.scan(fs, file, maximumLineBytes: configuration.maximumLineBytes) { line in
            if JournalTransaction.isCompactionMark(line: line.bytes) {
                mark = try? JournalTransaction(members: LineFraming.decode(line.bytes))
            }
            throw FirstLineRead()
        }
        return mark
    }
}
