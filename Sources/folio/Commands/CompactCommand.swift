import Foundation
import FolioStorage

/// `folio compact STORE`.
enum CompactCommand: FolioSubcommand {
    static let spec = CommandSpec(
        name: "compact", abstract: "Fold the journal into the snapshots, keep the retained history, drop unreferenced blobs.",
        discussion: """
            Takes the store's writer lock (waiting for an app that is saving), rewrites the snapshots of entities
            that changed, writes history.jsonl with the retained transactions (the newest 1,000 unless
            --keep-history says otherwise, and at most 64 MiB of them), empties the journal and removes
            blobs nothing refers to. Dates still in the long form earlier builds wrote (every binary digit of
            the fraction of a second) are first rewritten, in one transaction, in today's form
            (the fewest digits that read back as the same date). Safe to interrupt at any point. Apps with the
            store open notice and reload.
            """,
        arguments: [.init(name: "STORE", help: "The store directory.")],
        options: [.option("--keep-history", value: "N", help: "Keep the newest N transactions in history (default 1000).")],
        examples: ["folio compact Store", "folio compact Store --keep-history 0"])

    static func run(_ arguments: ParsedArguments, console: Console) throws -> Int32 {
        let path = arguments.positionals[0]
        let keep = try arguments.integer("--keep-history", command: spec.name)
        let url = try StoreAccess.directory(path)
        var configuration = StoreConfiguration(compactionThreshold: nil)
        if let keep { configuration.historyRetention = .init(maximumCount: keep) }
        let store: Store
        do { store = try Store.open(at: url, configuration: configuration) } catch let error as StorageError {
            throw StoreAccess.failure(error, path: path)
        }
        defer { store.close() }
        let before = try store.statistics()
        let records = before.recordCounts.values.reduce(0, +)
        // Compaction is one library call: on a terminal, say what is being done before it starts.
        if console.showsProgress { console.errorRaw("Compacting \(records) records…") }
        let start = Date()
        let rewrittenDates: Int
        do {
            rewrittenDates = try DateRewriting.rewrite(store, author: "folio compact")
            try store.compact()
        } catch let error as StorageError {
            throw CommandFailure(
                "Compaction failed, and the store is unchanged or in a state that opens the same: \(error)",
                help: "Run 'folio verify \(path)'.")
        }
        let seconds = max(Date().timeIntervalSince(start), 0.000_001)
        if console.showsProgress { console.errorRaw("\r\u{1B}[2K") }
        let after = try store.statistics()
        let totalBefore = before.fileSizes.values.saturatingSum(), totalAfter = after.fileSizes.values.saturatingSum()
        console.print(
            "Compacted \(url.path) at sequence \(after.lastSequence) in \(String(format: "%.2f", seconds)) s (\(records) records, \(Int((Double(records) / seconds).rounded())) records/s)."
        )
        console.print(
            "  journal: \(before.journalTransactions) transaction(s), \(byteCount(before.journalBytes)) → \(after.journalTransactions), \(byteCount(after.journalBytes))"
        )
        console.print("  history: \(after.retainedTransactions) transaction(s) retained")
        if rewrittenDates > 0 { console.print("  dates: \(rewrittenDates) record(s) rewritten in the canonical form") }
        console.print("  snapshots: \(after.recordCounts.values.reduce(0, +)) record(s) in \(after.recordCounts.count) file(s)")
        console.print("  size: \(byteCount(totalBefore)) → \(byteCount(totalAfter))")
        for warning in store.warnings { console.warning(warning) }
        return ExitCode.success
    }
}
