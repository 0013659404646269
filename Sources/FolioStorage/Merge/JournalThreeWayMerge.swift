import Foundation

/// A three-way merge of `journal.jsonl`: the base's transactions, then both sides' new ones.
///
/// This is what `folio merge-driver` does for a journal, a pure function of the three files, so that
/// merging either way round (a merge, a rebase, a cherry-pick) gives byte-identical output:
///
/// - The base's transactions are kept as they are (their bytes). Both sides must still hold them all,
///   in order: a side that compacted since the base folded some into its snapshots, which this merge
///   cannot see (it is refused, and git reports a conflict).
/// - The new transactions of both sides (those whose `id` the base lacks; one that both sides hold is
///   kept once) are interleaved by commit time, ties by transaction id, each side's own order kept,
///   and numbered on from the base's last sequence.
/// - Their records keep their identifiers: clones allocate in blocks of their own (see
///   ``StoreConfiguration/IdentifierAllocation``). Two sides that inserted the same identifier (stores
///   that allocate sequentially) are refused.
/// - An attribute both sides set to different values ends with the value of the later write, and the
///   other value is recorded as a ``MergeConflict`` on the winning line. A record one side deleted
///   stays deleted: the other side's later updates of it are dropped and recorded the same way, and a
///   second delete of it is dropped.
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
    package static func merge(
        base: [UInt8], ours: [UInt8], theirs: [UInt8], names: (base: String, ours: String, theirs: String) = ("base", "ours", "theirs")
    ) throws(Refusal) -> Result {
        let baseLines = try read(base, name: names.base)
        let ourLines = try read(ours, name: names.ours)
        let theirLines = try read(theirs, name: names.theirs)
        for (side, name) in [(ourLines, names.ours), (theirLines, names.theirs)] {
            for (position, line) in baseLines.enumerated()
            where position >= side.count || side[position].transaction.transactionID != line.transaction.transactionID {
                throw Refusal(
                    message: """
                        \(name) no longer holds transaction \(line.transaction.sequence) of the merge base (it compacted the \
                        journal into its snapshots since): a journal merge needs every base transaction on both sides. \
                        Merge before compacting (set compactionThreshold: nil on branches), or see docs/git.md
                        """,
                    file: name, line: position < side.count ? side[position].number : nil)
            }
        }
        let newOurs = Array(ourLines[baseLines.count...])
        let newTheirs = Array(theirLines[baseLines.count...])
        let merged = interleave(newOurs, newTheirs)
        var transactions = try resolve(merged)

        var output: [UInt8] = []
        for line in baseLines {
            output.append(contentsOf: line.bytes)
            output.append(0x0A)
        }
        var sequence = baseLines.last?.transaction.sequence ?? 0
        for index in transactions.indices {
            sequence += 1
            transactions[index].sequence = sequence
            do { output.append(contentsOf: try transactions[index].encodedLine()) } catch {
                throw Refusal(message: "a merged transaction cannot be written: \(error)")
            }
        }
        return Result(bytes: output, conflicts: transactions.flatMap(\.conflicts), added: (newOurs.count, newTheirs.count))
    }

    /// The lines of one version; a torn last line (no `\n`) is not a committed transaction and is left out.
    static func read(_ bytes: [UInt8], name: String) throws(Refusal) -> [Line] {
        var lines: [Line] = []
        var start = 0
        var number = 0
        while let end = bytes[start...].firstIndex(of: 0x0A) {
            number += 1
            var slice = bytes[start..<end]
            start = end + 1
            if slice.last == 0x0D { slice = slice.dropLast() }
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

    /// Both sides' new transactions in one order: by commit time, then transaction id, each side's own
    /// order kept; a transaction both sides hold appears once.
    static func interleave(_ ours: [Line], _ theirs: [Line]) -> [(side: Int, transaction: JournalTransaction)] {
        func precedes(_ a: JournalTransaction, _ b: JournalTransaction) -> Bool {
            a.timestamp != b.timestamp ? a.timestamp < b.timestamp : a.transactionID < b.transactionID
        }
        var result: [(side: Int, transaction: JournalTransaction)] = []
        var taken = Set<String>()
        var (o, t) = (0, 0)
        while o < ours.count || t < theirs.count {
            let takeOurs = t >= theirs.count || (o < ours.count && !precedes(theirs[t].transaction, ours[o].transaction))
            let next = takeOurs ? ours[o].transaction : theirs[t].transaction
            if takeOurs { o += 1 } else { t += 1 }
            if taken.insert(next.transactionID).inserted { result.append((takeOurs ? 0 : 1, next)) }
        }
        return result
    }

    /// The merged transactions with the losing changes dropped and the conflicts recorded.
    static func resolve(_ merged: [(side: Int, transaction: JournalTransaction)]) throws(Refusal) -> [JournalTransaction] {
        var transactions = merged.map(\.transaction)
        // Identifiers both sides inserted: only stores that allocate sequentially do that.
        var insertedBy: [Int64: Int] = [:]
        var migratingSides = Set<Int>()
        for (side, transaction) in merged {
            if !transaction.migrations.isEmpty { migratingSides.insert(side) }
            for record in transaction.inserted {
                if let other = insertedBy[record.id], other != side {
                    throw Refusal(message: """
                        both sides inserted a record with identifier \(record.id) (\(record.entity)): these copies allocated \
                        identifiers sequentially (a store created before per-clone identifiers, or outside a git work tree). \
                        Take one side ('git checkout --ours'), then re-add the other's records with 'folio export' and \
                        'folio import'; new writes in a git work tree allocate per clone
                        """)
                }
                insertedBy[record.id] = side
            }
        }
        if migratingSides.count == 2 {
            throw Refusal(message: "both sides migrated the store's schema: merge before migrating, or migrate once after the merge")
        }

        struct Write { var position: Int; var value: JSONValue }
        // Each side's last write of each attribute, and the first delete of each record.
        var lastWrite: [[RecordAttribute: Write]] = [[:], [:]]
        var deletion: [Int64: (position: Int, side: Int)] = [:]
        for (position, (side, transaction)) in merged.enumerated() {
            for record in transaction.updated {
                for (member, value) in record.values.dictionary {
                    lastWrite[side][RecordAttribute(entity: record.entity, id: record.id, member: member)] = Write(position: position, value: value)
                }
            }
            for record in transaction.deleted where deletion[record.id] == nil { deletion[record.id] = (position, side) }
        }
        var conflicts: [Int: [MergeConflict]] = [:]
        // Same attribute, different values: the later write stands; the other is recorded on its line.
        for (attribute, ours) in lastWrite[0] {
            guard let theirs = lastWrite[1][attribute], ours.value != theirs.value, deletion[attribute.id] == nil else { continue }
            let (winner, loser) = ours.position > theirs.position ? (ours, theirs) : (theirs, ours)
            conflicts[winner.position, default: []].append(MergeConflict(
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
                conflicts[deleted.position, default: []].append(MergeConflict(
                    entity: attribute.entity, id: attribute.id, member: attribute.member, kept: nil, lost: write.value,
                    lostTransaction: merged[write.position].transaction.transactionID))
            }
        }
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
