/// The fourth phase of loading: replaying `journal.jsonl` onto the records the snapshots gave.
///
/// - Input: the state after ``SnapshotPhase`` (or any state at the manifest's sequence), the manifest,
///   and each snapshot's header sequence (its base).
/// - Output: the state with every journal transaction up to a given sequence (all of them when
///   opening) applied in order; the transactions applied (``transactions``), where the journal's
///   complete lines end, and what its compaction mark says of a merge (``mergedBase``).
/// - Invariant: a transaction changes an entity only when it is newer than that entity's base (the
///   manifest's sequence for an entity without a snapshot); ``transactions`` is strictly ascending by
///   sequence: a line whose sequence does not rise is reported and skipped, a gap is reported and
///   applied. A compaction mark is never applied. A torn last line within the configured limit is a
///   warning, longer it is reported as ``StorageError/Code/tailTooLarge``.
struct JournalPhase {
    /// The journal file's identity when it was read; nil without a journal.
    private(set) var status: FileStatus? = nil
    /// The transactions applied, ascending by sequence.
    private(set) var transactions: [JournalTransaction] = []
    /// Offset after the last complete line.
    private(set) var validEnd: Int64 = 0
    /// The number of complete lines.
    private(set) var lineCount = 0
    /// Bytes after the last complete line (a torn append).
    private(set) var tailLength: Int64 = 0
    /// Warnings to surface (a torn tail ignored).
    private(set) var warnings: [String] = []
    /// What the compaction mark says of a merge base's journal both sides folded.
    private(set) var mergedBase: MergedBase? = nil
    /// The highest sequence of any complete line (0 without one), applied or not.
    private(set) var lastSequence: UInt64 = 0
    /// The highest `nextID` of the manifest and every journal line: each record identifier in use is below it.
    private(set) var highestNextID: Int64

    private init(manifest: Manifest) {
        highestNextID = manifest.nextID
    }

    /// Replays the journal, if there is one, onto `state`.
    ///
    /// - Parameters:
    ///   - bases: each snapshot's header sequence, by entity.
    ///   - through: the last sequence applied; later lines are read and checked, not applied.
    static func replay(
        onto state: inout StoreState, manifest: Manifest, bases: [String: UInt64], _ context: LoadContext,
        through: UInt64 = .max, report: (StorageError) throws -> Void
    ) throws -> JournalPhase {
        var phase = JournalPhase(manifest: manifest)
        let paths = context.paths
        let fs = context.fileSystem
        guard context.isSafe(paths.journal), try fs.status(atPath: paths.journal) != nil else { return phase }
        let file = try fs.open(paths.journal, .read)
        defer { fs.close(file) }
        phase.status = try fs.status(file)
        var previous: UInt64? = nil
        var badLineBefore = false
        let reporting: (StorageError) throws -> Void = { error in
            badLineBefore = true
            try report(error)
        }
        var lastLine: (sequence: UInt64, line: Int)? = nil
        let scanned = try context.readTransactions(file, report: reporting) { transaction, line in
            let sequence = transaction.sequence
            if sequence > lastLine?.sequence ?? 0 { lastLine = (sequence, line.number) }
            phase.highestNextID = max(phase.highestNextID, transaction.nextID)
            func problem(_ code: StorageError.Code, _ message: String) throws {
                try report(StorageError(code, message, file: paths.journal, line: line.number, offset: line.offset))
            }
            if let previous {
                if sequence <= previous {
                    try problem(
                        .duplicateSequence,
                        "sequence \(sequence) comes after \(previous): the journal was merged or edited; keep one copy of each transaction")
                    return
                }
                if sequence != previous + 1 && !badLineBefore {
                    try problem(
                        .missingSequence,
                        "sequence \(sequence) follows \(previous): transactions \(previous + 1)…\(sequence - 1) are missing; restore them from git or a backup"
                    )
                }
            } else if sequence > manifest.sequence + 1 {
                try problem(
                    .missingSequence,
                    "the journal starts at sequence \(sequence) but the snapshots end at \(manifest.sequence); transactions are missing")
            }
            badLineBefore = false
            let isFirst = previous == nil
            previous = sequence
            if transaction.isCompactionMark {
                if !isFirst || sequence > manifest.sequence {
                    try problem(
                        .inconsistentStore,
                        isFirst
                            ? "the journal's compaction mark says the snapshots hold transaction \(sequence), but manifest member \"sequence\" says \(manifest.sequence): restore the manifest and the journal from the same commit or backup"
                            : "a compaction mark (\"compacted\":true) may only be the journal's first line")
                }
                phase.mergedBase = transaction.mergedBase
                return
            }
            guard sequence <= through else { return }
            for entity in transaction.entitiesNeedingKnown {
                _ = try context.accepts(entity, file: paths.journal, line: line.number, offset: line.offset, report: report)
            }
            if context.checkingBlobReferences {
                for record in transaction.inserted + transaction.updated {
                    if let malformed = BlobStore.malformedReference(in: record.values) {
                        try problem(.blobNotFound, "transaction \(sequence), record \(record.id) \(malformed)")
                    }
                }
            }
            let problems = state.apply(transaction, entityBase: { bases[$0] ?? manifest.sequence }, globalBase: manifest.sequence)
            for found in problems {
                try problem(.inconsistentStore, "transaction \(sequence) \(found)")
            }
            phase.transactions.append(transaction)
        }
        // A journal holds the transactions after the manifest's sequence (and, after an interrupted
        // compaction, the ones before it): a journal ending before the manifest lost transactions,
        // and a write after it would leave a gap.
        if let lastLine, lastLine.sequence < manifest.sequence {
            try report(
                StorageError(
                    .inconsistentStore,
                    "the journal ends at sequence \(lastLine.sequence) but manifest member \"sequence\" says the snapshots are at \(manifest.sequence); the manifest or the journal does not belong to this store: restore both from the same commit or backup",
                    file: paths.journal, line: lastLine.line))
        }
        phase.lastSequence = lastLine?.sequence ?? 0
        if let result = scanned { try phase.note(result, context, report: report) }
        return phase
    }

    /// Takes where the complete lines end, and reports a torn last line as what its length makes it.
    private mutating func note(_ result: ScanResult, _ context: LoadContext, report: (StorageError) throws -> Void) throws {
        let path = context.paths.journal
        let limit = context.configuration.maximumTornTailBytes
        validEnd = result.validEnd
        lineCount = result.lineCount
        tailLength = result.tailLength
        guard result.tailLength > 0 else { return }
        if result.tailLength > limit {
            try report(
                StorageError(
                    .tailTooLarge,
                    "the journal ends in \(result.tailLength) bytes that are not a complete line, more than the \(limit)-byte limit for a torn append; run `folio verify`",
                    file: path, line: result.lineCount + 1, offset: result.validEnd))
        } else {
            warnings.append(
                "\(path):\(result.lineCount + 1) (byte \(result.validEnd)): ignored an incomplete last line of \(result.tailLength) bytes (an interrupted append); it will be moved to journal.jsonl.corrupt-tail on the next write"
            )
        }
    }
}
