import Foundation

/// A three-way merge of `journal.jsonl`: the base's transactions, then both sides' new ones.
///
/// This is what `folio merge-driver` does for a journal, a pure function of the three files, so that
/// merging either way round (a merge, a rebase, a cherry-pick) gives byte-identical output:
///
/// - When neither side compacted since the base, the base's transactions are kept as they are (their
///   bytes), and the new transactions of both sides (those whose `id` the base lacks; one that both
///   sides hold is kept once) follow, interleaved by commit time, ties by transaction id, each side's
///   own order kept, numbered on from the base's last sequence.
/// - When a side compacted (its journal starts with a later compaction mark, or lacks base
///   transactions, which its snapshots now hold), the merged journal starts with a mark at the merged
///   compaction point, `ours + theirs − base` of the three marks' sequences (what ``ManifestMerge``
///   gives the manifest), then every transaction no side compacted, interleaved as above. A journal
///   without a mark (an older Folio's) cannot say where it was compacted: that merge is refused.
/// - When both sides compacted a base whose journal held transactions, the merged mark names them
///   (``MergedBase``) for the store to replay when it opens; each side's mark must say that its
///   history still holds everything since the base's compaction (``JournalTransaction/historyFrom``),
///   or the merge is refused.
/// - Their records keep their identifiers: clones allocate in blocks of their own (see
///   ``StoreConfiguration/IdentifierAllocation``). Two sides that inserted the same identifier (stores
///   that allocate sequentially) are refused.
/// - An attribute both sides set to different values ends with the value of the later write, and the
///   other value is recorded as a ``MergeConflict`` on the winning line. A record one side deleted
///   stays deleted: the other side's later updates of it are dropped and recorded the same way, and a
///   second delete of it is dropped.
/// - With the store's schema, to-many relationships merge as sets, references to deleted records are
///   dropped (``mergeRelationships(_:sides:schema:conflicts:)``) and two inserts with equal unique
///   values become one record (``mergeUniqueInserts(_:schema:conflicts:)``).
package enum JournalThreeWayMerge {
    /// Why a journal merge was refused.
    package struct Refusal: Error, Hashable, Sendable {
        /// What is wrong and what to do, for a person.
        package var message: String
        /// The file at fault (a side's name such as `ours`), when one is.
        package var file: String?
        /// The 1-based line at fault, when one is.
        package var line: Int?
    }

    /// The merged journal.
    package struct Result: Sendable {
        /// The merged file's bytes.
        package var bytes: [UInt8]
        /// The conflicts resolved, as recorded on the lines.
        package var conflicts: [MergeConflict]
        /// How many transactions each side added.
        package var added: (ours: Int, theirs: Int)
    }

    /// One journal line read from a side.
    struct Line {
        var bytes: ArraySlice<UInt8>
        var number: Int
        var transaction: JournalTransaction
    }

    /// Merges `base`, `ours` and `theirs`, the bytes of the three versions of one journal file.
    ///
    /// - Parameter names: the names errors use for the three inputs.
    /// - Parameter schema: the store's schema description when no line of the three versions records
    ///   one (a store compacted before the base keeps it in `manifest.json`); with none, relationships
    ///   and uniqueness constraints are merged as plain values.
    package static func merge(
        base: [UInt8], ours: [UInt8], theirs: [UInt8], names: (base: String, ours: String, theirs: String) = ("base", "ours", "theirs"),
        schema fallbackSchema: JSONValue? = nil
    ) throws(Refusal) -> Result {
        let o = Version(try read(base, name: names.base), name: names.base)
        let a = Version(try read(ours, name: names.ours), name: names.ours)
        let b = Version(try read(theirs, name: names.theirs), name: names.theirs)
        // The base's last recorded schema; a new line's, in merge order, takes over in `resolve`.
        let schema = lastSchema(of: o.lines.map(\.transaction)) ?? MergeSchema(fallbackSchema)
        // The schema a side that ran no migration since the base wrote with, for inserts kept for a stage.
        let baseChecksum = FoldedMigration.checksum(of: o.lines.reversed().lazy.compactMap(\.transaction.schema).first ?? fallbackSchema)
        let baseIDs = Set(o.lines.map(\.transaction.transactionID))
        func compacted(_ side: Version) -> Bool {
            !baseIDs.isSubset(of: side.lines.map(\.transaction.transactionID))
                || (side.mark.map { mark in o.mark.map { mark.transaction.sequence > $0.transaction.sequence } ?? true } ?? false)
        }
        if !compacted(a) && !compacted(b) { return try mergeUncompacted(o, a, b, schema: schema, baseChecksum: baseChecksum) }

        // A side compacted since the base: its snapshots hold transactions this file no longer shows.
        // The merged store's compaction point is the base's plus what each side compacted, as the
        // manifest's merge computes it (``ManifestMerge``), and everything in the journal follows it.
        guard let baseMark = o.compactionPoint, let ourMark = a.compactionPoint, let theirMark = b.compactionPoint else {
            let unknown = [o, a, b].first { $0.compactionPoint == nil }?.name ?? names.base
            throw Refusal(
                message: """
                    \(unknown) does not say where its store was compacted (a journal written by an older Folio, without a \
                    compaction mark), so a side that compacted since the merge base cannot be merged: keep one side and re-add \
                    the other's records (see docs/git.md)
                    """,
                file: unknown)
        }
        let (point, overflow) = ourMark.addingReportingOverflow(theirMark)
        guard !overflow, point >= baseMark, point - baseMark <= SequenceLimits.maximum else {
            throw Refusal(message: "the merged compaction point is past the largest sequence number")
        }
        let compactionPoint = point - baseMark
        let kept = o.lines.filter { line in
            [a, b].allSatisfy { side in side.lines.contains { $0.transaction.transactionID == line.transaction.transactionID } }
        }
        // Git merges two compacted sides' snapshots against the base's, which lack the transactions the
        // base's journal held: the store replays those over the merged snapshots when it opens
        // (``BaseJournalReplay``), from the merged history, which must still hold everything each side
        // folded since the base.
        let keptIDs = Set(kept.map(\.transaction.transactionID))
        let folded = o.lines.filter { !keptIDs.contains($0.transaction.transactionID) }
        if compacted(a) && compacted(b), let first = folded.first {
            for side in [a, b] {
                guard let from = side.mark?.transaction.historyFrom, from <= baseMark + 1 else {
                    let why =
                        side.mark?.transaction.historyFrom == nil
                        ? "its compaction mark does not say what its history holds (an older Folio wrote it)"
                        : "its history.jsonl no longer holds every transaction since the base's compaction (it starts at \(side.mark?.transaction.historyFrom ?? 0), the merge needs \(baseMark + 1) on): it compacted more than once since the base; raise historyRetention, or merge before a branch compacts twice"
                    throw Refusal(
                        message: """
                            both sides compacted since the merge base, whose journal still held transactions (\(first.transaction.sequence) \
                            and on), and \(side.name) cannot replay them: \(why). Keep one side and re-add the other's records \
                            (see docs/git.md)
                            """,
                        file: side.name, line: side.mark?.number)
                }
            }
        }
        var merged = interleave(
            a.lines.filter { !baseIDs.contains($0.transaction.transactionID) },
            b.lines.filter { !baseIDs.contains($0.transaction.transactionID) })
        // One side compacted: what it folded since the sides parted is in its snapshots and history,
        // which git takes as they are. Its new transactions there are not in this file, so each merged
        // transaction says which they are and whether its writer saw them (``FoldedTransactions``).
        // Both compacted: the merged history holds both sides' folded transactions, interleaved, each
        // marked with its side's compaction mark (``HistoryMerge``); each merged transaction names the
        // other side's, which its writer did not see.
        if compacted(a) && compacted(b), let ours = a.mark?.transaction.transactionID, let theirs = b.mark?.transaction.transactionID,
            compactionPoint > baseMark
        {
            for index in merged.indices {
                merged[index].transaction.folded = FoldedTransactions(
                    sequences: (baseMark + 1)...compactionPoint, seen: false, by: merged[index].side == 0 ? theirs : ours)
            }
        } else if compacted(a) != compacted(b) {
            let folding = compacted(a) ? 0 : 1
            let parted = o.lines.last?.transaction.sequence ?? baseMark
            let foldedThrough = folding == 0 ? ourMark : theirMark
            if foldedThrough > parted {
                for index in merged.indices {
                    merged[index].transaction.folded = FoldedTransactions(
                        sequences: (parted + 1)...foldedThrough, seen: merged[index].side == folding)
                }
            }
        }
        let migrationsFolded = try foldedMigrations(since: o, ours: compacted(a) ? a : nil, theirs: compacted(b) ? b : nil)
        var transactions = kept.map(\.transaction) + (try resolve(merged, schema: schema, folded: migrationsFolded, baseChecksum: baseChecksum))
        // The mark names the later of the sides' marks, at the merged point.
        let marks = [a, b].filter(compacted).compactMap(\.mark?.transaction)
        guard var mark = marks.max(by: { precedes($0, $1) }) else { throw Refusal(message: "no side's compaction mark was found") }
        mark.sequence = compactionPoint
        if compacted(a) && compacted(b), let ours = a.mark?.transaction, let theirs = b.mark?.transaction {
            // The merged history keeps what both sides still hold of the base's, then all they added.
            if let x = ours.historyFrom, let y = theirs.historyFrom { mark.historyFrom = max(x, y) } else { mark.historyFrom = nil }
            mark.foldedMigrations = FoldedMigration.list(earlier: ours.foldedMigrations + theirs.foldedMigrations, transactions: [])
            mark.mergedBase =
                folded.isEmpty
                ? nil
                : MergedBase(
                    transactions: folded.map(\.transaction.transactionID), sides: [ours.transactionID, theirs.transactionID].sorted())
        }
        var output = try encode(mark)
        var sequence = compactionPoint
        for index in transactions.indices {
            sequence += 1
            transactions[index].sequence = sequence
            output += try encode(transactions[index])
        }
        let added = (merged.filter { $0.side == 0 }.count, merged.filter { $0.side == 1 }.count)
        return Result(bytes: output, conflicts: transactions.flatMap(\.conflicts), added: added)
    }

    /// Neither side compacted since the base: the base's lines, as they are, then the new ones.
    private static func mergeUncompacted(
        _ o: Version, _ a: Version, _ b: Version, schema: MergeSchema?, baseChecksum: String?
    ) throws(Refusal) -> Result {
        for side in [a, b] {
            for (position, line) in o.lines.enumerated()
            where position >= side.lines.count || side.lines[position].transaction.transactionID != line.transaction.transactionID {
                throw Refusal(
                    message: "\(side.name) holds the merge base's transactions in another order: the journals are not one store's history",
                    file: side.name, line: position < side.lines.count ? side.lines[position].number : nil)
            }
        }
        let newOurs = Array(a.lines[o.lines.count...])
        let newTheirs = Array(b.lines[o.lines.count...])
        let merged = interleave(newOurs, newTheirs)
        var transactions = try resolve(merged, schema: schema, baseChecksum: baseChecksum)

        var output: [UInt8] = []
        for line in (o.mark.map { [$0] } ?? []) + o.lines {
            output.append(contentsOf: line.bytes)
            output.append(0x0A)
        }
        var sequence = o.lines.last?.transaction.sequence ?? o.mark?.transaction.sequence ?? 0
        for index in transactions.indices {
            sequence += 1
            transactions[index].sequence = sequence
            output += try encode(transactions[index])
        }
        return Result(bytes: output, conflicts: transactions.flatMap(\.conflicts), added: (newOurs.count, newTheirs.count))
    }

    /// The schema description the last of `transactions` that records one records.
    private static func lastSchema(of transactions: [JournalTransaction]) -> MergeSchema? {
        transactions.reversed().lazy.compactMap { $0.schema.flatMap { MergeSchema($0) } }.first
    }

    /// One version of the journal: its compaction mark, if any, and its transactions.
    struct Version {
        var mark: Line?
        var lines: [Line]
        var name: String

        init(_ all: [Line], name: String) {
            if let first = all.first, first.transaction.isCompactionMark {
                mark = first
                lines = Array(all.dropFirst())
            } else {
                mark = nil
                lines = all
            }
            self.name = name
        }

        /// The sequence the store was compacted at: its mark's, 0 for a journal that starts at the
        /// first transaction, nil when the file does not say (no mark: an older Folio's journal).
        var compactionPoint: UInt64? {
            if let mark { return mark.transaction.sequence }
            return lines.first?.transaction.sequence == 1 ? 0 : nil
        }
    }

    static func encode(_ transaction: JournalTransaction) throws(Refusal) -> [UInt8] {
        do { return try transaction.encodedLine() } catch {
            throw Refusal(message: "a merged transaction cannot be written: \(error)")
        }
    }

    static func precedes(_ a: JournalTransaction, _ b: JournalTransaction) -> Bool {
        a.timestamp != b.timestamp ? a.timestamp < b.timestamp : a.transactionID < b.transactionID
    }

    /// The lines of one version; a torn last line (no `\n`) is not a committed transaction and is left out.
    static func read(_ bytes: [UInt8], name: String) throws(Refusal) -> [Line] {
        var lines: [Line] = []
        for (number, slice) in completeLines(of: bytes) {
            if slice.isEmpty { throw Refusal(message: "an empty line is not a journal transaction", file: name, line: number) }
            let transaction: JournalTransaction
            do {
                transaction = try Array(slice).withUnsafeBufferPointer { buffer in
                    if LineFraming.isConflictMarker(buffer) {
                        throw StorageError(.mergeConflict, "a git conflict marker: the file was merged as text before")
                    }
                    return try JournalTransaction(members: LineFraming.decode(buffer))
                }
            } catch let error as StorageError {
                throw Refusal(message: "not a Folio journal line: \(error.message)", file: name, line: number)
            } catch {
                throw Refusal(message: "not a Folio journal line: \(error)", file: name, line: number)
            }
            if let previous = lines.last?.transaction.sequence, transaction.sequence != previous + 1 {
                throw Refusal(
                    message: "sequence \(transaction.sequence) follows \(previous): the journal is not one store's history",
                    file: name, line: number)
            }
            lines.append(Line(bytes: slice, number: number, transaction: transaction))
        }
        return lines
    }

    /// The complete lines of a file (those ending in `\n`, without it and without a `\r` before it),
    /// numbered from 1. Bytes after the last `\n` are a torn write, not a line.
    static func completeLines(of bytes: [UInt8]) -> [(number: Int, bytes: ArraySlice<UInt8>)] {
        var lines: [(number: Int, bytes: ArraySlice<UInt8>)] = []
        var start = 0
        while let end = bytes[start...].firstIndex(of: 0x0A) {
            var line = bytes[start..<end]
            start = end + 1
            if line.last == 0x0D { line = line.dropLast() }
            lines.append((lines.count + 1, line))
        }
        return lines
    }

    /// Both sides' new transactions in one order: by commit time, then transaction id, each side's own
    /// order kept; a transaction both sides hold appears once.
    static func interleave(_ ours: [Line], _ theirs: [Line]) -> [(side: Int, transaction: JournalTransaction)] {
        interleave(ours.map(\.transaction), theirs.map(\.transaction)) { ($0.timestamp, $0.transactionID) }
            .map { ($0.side, $0.element) }
    }

    /// Two sides' elements in one order, each side's own kept: by time, then transaction id; an element
    /// whose id both sides hold appears once. (Side 0 is ours.)
    static func interleave<Element>(_ ours: [Element], _ theirs: [Element], key: (Element) -> (time: Date, id: String))
        -> [(side: Int, element: Element)]
    {
        var result: [(side: Int, element: Element)] = []
        var taken = Set<String>()
        var (o, t) = (0, 0)
        while o < ours.count || t < theirs.count {
            let takeOurs = t >= theirs.count || (o < ours.count && !(key(theirs[t]) < key(ours[o])))
            let next = takeOurs ? ours[o] : theirs[t]
            if takeOurs { o += 1 } else { t += 1 }
            if taken.insert(key(next).id).inserted { result.append((takeOurs ? 0 : 1, next)) }
        }
        return result
    }

    /// The merged transactions with the losing changes dropped and the conflicts recorded.
    /// - Parameter baseSchema: the schema before the new transactions; one that records a schema
    ///   changes it for the relationship and uniqueness merges.
    /// - Parameter folded: the migrations each side folded into its snapshots since the base.
    /// - Parameter baseChecksum: the checksum of the base's schema (see ``MigrationCarry``).
    static func resolve(
        _ sided: [(side: Int, transaction: JournalTransaction)], schema baseSchema: MergeSchema?, folded: [[FoldedMigration]] = [[], []],
        baseChecksum: String? = nil
    ) throws(Refusal) -> [JournalTransaction] {
        // Identifiers both sides inserted: only stores that allocate sequentially do that.
        var insertedBy: [Int64: Int] = [:]
        for (side, transaction) in sided {
            for record in transaction.inserted {
                if let other = insertedBy[record.id], other != side {
                    throw Refusal(
                        message: """
                            both sides inserted a record with identifier \(record.id) (\(record.entity)): these copies allocated \
                            identifiers sequentially (a store created before per-clone identifiers, or outside a git work tree). \
                            Take one side ('git checkout --ours'), then re-add the other's records with 'folio export' and \
                            'folio import'; new writes in a git work tree allocate per clone
                            """)
                }
                insertedBy[record.id] = side
            }
        }
        // Transactions written with an older schema than a migration placed before them are carried through it.
        // Both clones carried the same records awaiting a stage: once is enough.
        let carried = try MigrationCarry.carry(DuplicateStageCarries.merge(sided), folded: folded, baseChecksum: baseChecksum)
        var merged = carried.transactions
        var conflicts = carried.conflicts
        let schema = lastSchema(of: merged.map(\.transaction)) ?? baseSchema
        if let schema { mergeUniqueInserts(&merged, schema: schema, conflicts: &conflicts) }
        var transactions = merged.map(\.transaction)

        struct Write { var position: Int; var value: JSONValue }
        // Each side's last write of each attribute, and the first delete of each record.
        var lastWrite: [[RecordAttribute: Write]] = [[:], [:]]
        var deletion: [Int64: (position: Int, side: Int)] = [:]
        for (position, (side, transaction)) in merged.enumerated() {
            // By the names the writes end with: a migration placed after a write renames it at replay.
            for record in carried.finalShape(transaction, at: position).updated {
                for (member, value) in record.values.dictionary {
                    lastWrite[side][RecordAttribute(entity: record.entity, id: record.id, member: member)] = Write(position: position, value: value)
                }
            }
            for record in transaction.deleted where deletion[record.id] == nil { deletion[record.id] = (position, side) }
        }
        // Same attribute, different values: the later write stands; the other is recorded on its line.
        for (attribute, ours) in lastWrite[0] {
            guard let theirs = lastWrite[1][attribute], ours.value != theirs.value, deletion[attribute.id] == nil else { continue }
            let (winner, loser) = ours.position > theirs.position ? (ours, theirs) : (theirs, ours)
            conflicts[winner.position, default: []].append(
                MergeConflict(
                    entity: attribute.entity, id: attribute.id, member: attribute.member, kept: winner.value, lost: loser.value,
                    lostTransaction: merged[loser.position].transaction.transactionID))
        }
        // A delete stands: the other side's updates after it, and a second delete, are dropped.
        for (position, (side, _)) in merged.enumerated() {
            transactions[position].updated.removeAll { record in
                guard let deleted = deletion[record.id] else { return false }
                return deleted.side != side && deleted.position < position
            }
            transactions[position].deleted.removeAll { deletion[$0.id]?.position != position }
        }
        // The other side's last value of each attribute it set on a deleted record is what was lost.
        for side in 0...1 {
            for (attribute, write) in lastWrite[side] {
                guard let deleted = deletion[attribute.id], deleted.side != side else { continue }
                conflicts[deleted.position, default: []].append(
                    MergeConflict(
                        entity: attribute.entity, id: attribute.id, member: attribute.member, kept: nil, lost: write.value,
                        lostTransaction: merged[write.position].transaction.transactionID))
            }
        }
        if let schema { mergeRelationships(&transactions, sides: merged.map(\.side), schema: schema, conflicts: &conflicts) }
        for (position, found) in conflicts {
            transactions[position].conflicts += found.sorted { ($0.id, $0.member, $0.lostTransaction) < ($1.id, $1.member, $1.lostTransaction) }
        }
        return transactions
    }

    /// One attribute of one record.
    struct RecordAttribute: Hashable {
        var entity: String
        var id: Int64
        var member: String
    }
}
