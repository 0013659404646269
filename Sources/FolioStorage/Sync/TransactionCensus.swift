import Foundation

/// The transactions a version of a store holds, by identifier: the lines of its `journal.jsonl` and
/// `history.jsonl` (compaction moves transactions from one to the other), compaction marks left out.
///
/// What a sync reports as sent and received, and what its commit message counts, is the difference of
/// two of these. It reads leniently: a line that does not decode (a torn last line, a damaged one) is
/// not counted, since `folio verify` is where damage is reported.
struct TransactionCensus {
    private(set) var transactions: [String: GitSyncReport.Transaction] = [:]

    /// The transactions of the store files' `journal` and `history` bytes.
    init(journal: [UInt8], history: [UInt8]) {
        for bytes in [history, journal] { add(bytes) }
    }

    /// The transactions of the store as of `revision` (nil: the work tree's files).
    init(_ git: SyncGit, revision: String?) throws(GitSyncError) {
        var files: [[UInt8]] = []
        for name in ["history.jsonl", "journal.jsonl"] {
            if let revision {
                let output = try git.run(
                    ["cat-file", "blob", "\(revision):\(git.storeFile(name))"], outputLimit: StoreFileMerge.maximumFileBytes)
                files.append(output.status == 0 ? output.output : [])
            } else {
                let path = git.top.appendingPathComponent(git.storeFile(name)).path
                files.append((try? PosixFileSystem().readWholeFile(path, limit: StoreFileMerge.maximumFileBytes)) ?? [])
            }
        }
        self.init(journal: files[1], history: files[0])
    }

    /// Those of `self` that `other` lacks, oldest first.
    func missing(from other: TransactionCensus) -> [GitSyncReport.Transaction] {
        transactions.values.filter { other.transactions[$0.id] == nil }.sorted { ($0.timestamp, $0.id) < ($1.timestamp, $1.id) }
    }

    private mutating func add(_ bytes: [UInt8]) {
        let reader = JSONReader()
        for (number, line) in JournalThreeWayMerge.completeLines(of: bytes) {
            // Only the line's own members are decoded: its record lists are skimmed past (no record has
            // identifier 0), which in a history of large transactions is nearly all of its bytes.
            let decoded = line.withUnsafeBufferPointer { buffer in
                try? RecordLineFilter.transaction(
                    of: ScannedLine(bytes: buffer, number: number, offset: 0, end: Int64(buffer.count)), keepingRecord: 0, in: nil, reader: reader)
            }
            guard let transaction = decoded, !transaction.isCompactionMark else { continue }
            transactions[transaction.transactionID] = GitSyncReport.Transaction(
                id: transaction.transactionID, author: transaction.author, timestamp: transaction.timestamp)
        }
    }

    /// A commit subject counting `transactions` by author, the most frequent first:
    /// `Trips.folio: 3 transactions by alice, 1 by bob`.
    static func commitSubject(store: String, transactions: [GitSyncReport.Transaction]) -> String {
        guard !transactions.isEmpty else { return "\(store): store files changed, no new transactions" }
        let counts = Dictionary(grouping: transactions) { $0.author ?? "no author" }.map { ($0.key, $0.value.count) }
            .sorted { $0.1 != $1.1 ? $0.1 > $1.1 : $0.0 < $1.0 }
        let parts = counts.enumerated().map { index, entry in
            index == 0 ? "\(entry.1) transaction\(entry.1 == 1 ? "" : "s") by \(entry.0)" : "\(entry.1) by \(entry.0)"
        }
        return "\(store): \(parts.joined(separator: ", "))"
    }
}
