/// Where the inserted records of one journal line are in it.
///
/// A journal line lists each inserted record as `{"entity":"Trip","id":N,"values":{…}}`. Its tail,
/// `"id":N,"values":{…}}`, is byte for byte the body of the record's snapshot line after the opening
/// brace (both are canonical JSON of the same members), so a compaction can copy it instead of encoding
/// the record again. The committing writer notes where the tails are as it writes the line.
struct InsertedRecordSpans: Sendable {
    /// The line's length, without its `\n`.
    var lineLength: Int
    /// For the k-th inserted record, its tail is the line's bytes `bounds[2k] ..< bounds[2k + 1]`.
    var bounds: [Int32]
}

/// Makes the snapshot lines of records inserted since the last compaction by copying them out of their
/// journal lines, which is cheaper than encoding their values again (after a bulk load,
/// that is most of what a compaction writes).
///
/// A record is copied only if its last change before the compaction point is its insert (no later
/// migration of its entity included), by a
/// transaction this process committed (so it knows where the record lies in the line), and its values
/// in memory are equal to the inserted ones. The journal line is read back and its checksum verified
/// before anything is copied out of it, so damage on disk is never copied forward, and the copied
/// bytes are checked to have the record's shape and identifier. Any record that fails a check is
/// encoded from memory by the caller: the output is byte for byte what encoding everything would give.
final class JournalRecordCopies {
    /// Where a record's insert is: which transaction, and which of its inserted records.
    private struct Origin {
        var transaction: Int32
        var position: Int32
    }

    private let transactions: [JournalTransaction]
    /// The origin of each record that can be copied, by its identifier minus ``firstID``.
    private var origins = DenseTable<Origin>()
    /// The smallest identifier a record that can be copied has.
    private var firstID: Int64 = 0
    private let spans: [UInt64: InsertedRecordSpans]
    private let storedLines: [UInt64: Store.StoredLine]
    private let fs: any FileSystem
    private let journalPath: String
    private var journal: FileDescriptor?
    /// The journal line read last, verified, and its sequence (0: none).
    private var line: [UInt8] = []
    private var lineSequence: UInt64 = 0
    private var lineSpans: InsertedRecordSpans?
    /// Sequences whose line cannot be used (missing, a different length, failing its checksum).
    private var unusable: Set<UInt64> = []
    /// How many records were copied (for tests and statistics).
    private(set) var copiedCount = 0

    /// - Parameters:
    ///   - transactions: the transactions folded by the compaction, oldest first.
    ///   - spans: where the inserted records are in the lines this process wrote, by sequence.
    ///   - storedLines: where each line is on disk; only lines in the journal are used.
    init(
        transactions: [JournalTransaction], spans: [UInt64: InsertedRecordSpans], storedLines: [UInt64: Store.StoredLine],
        fileSystem: any FileSystem, journalPath: String
    ) {
        self.transactions = transactions
        self.spans = spans
        self.storedLines = storedLines
        self.fs = fileSystem
        self.journalPath = journalPath
        func isSpanned(_ transaction: JournalTransaction) -> Bool {
            guard let spans = spans[transaction.sequence], storedLines[transaction.sequence]?.inJournal == true else { return false }
            return spans.bounds.count == 2 * transaction.inserted.count && transaction.inserted.count < Int(Int32.max)
        }
        // Identifiers are allocated upwards: the table starts at the first one that can be copied.
        let copyable = transactions.map(isSpanned)
        guard let first = transactions.indices.filter({ copyable[$0] }).compactMap({ transactions[$0].inserted.first?.id }).min(),
            transactions.count < Int(Int32.max)
        else { return }
        firstID = first
        // A migration rewrites every record of its entity, so a record inserted before the last migration
        // of its entity is never copied from its line (one inserted by the migration's own transaction
        // already has the new names). Checked per record only when some transaction migrates.
        var lastMigration: [String: Int] = [:]
        for (index, transaction) in transactions.enumerated() {
            for migration in transaction.migrations where !migration.isEmpty { lastMigration[migration.entity] = index }
        }
        // The records are read in place: iterating over them would retain and release each one's
        // entity name and values, from another thread than the writer's, for every record of a bulk load.
        for (index, transaction) in transactions.enumerated() {
            transaction.inserted.withUnsafeBufferPointer { inserted in
                for position in inserted.indices where inserted[position].id >= first {
                    var copies = copyable[index]
                    if copies, !lastMigration.isEmpty, let migrated = lastMigration[inserted[position].entity], migrated > index {
                        copies = false
                    }
                    origins[inserted[position].id - first] = copies ? Origin(transaction: Int32(index), position: Int32(position)) : nil
                }
            }
            transaction.updated.withUnsafeBufferPointer { updated in
                for position in updated.indices where updated[position].id >= first { origins[updated[position].id - first] = nil }
            }
            transaction.deleted.withUnsafeBufferPointer { deleted in
                for position in deleted.indices where deleted[position].id >= first { origins[deleted[position].id - first] = nil }
            }
        }
    }

    deinit {
        if let journal { fs.close(journal) }
    }

    /// Whether any record can be copied at all.
    var isEmpty: Bool { origins.isEmpty }

    /// Appends the snapshot line of record `id`, whose values at the compaction point are `values`, by
    /// copying it from its journal line; returns false (appending nothing) when it cannot.
    func appendLine(id: Int64, values: RecordValues, to output: inout [UInt8]) -> Bool {
        guard id >= firstID, let origin = origins[id - firstID] else { return false }
        let position = Int(origin.position)
        // Read in place: copying the record out would retain and release its entity and values.
        let inserted = transactions.withUnsafeBufferPointer { transactions in
            transactions[Int(origin.transaction)].inserted.withUnsafeBufferPointer { records in
                position < records.count && records[position].id == id && records[position].values == values
            }
        }
        guard inserted, load(transactions[Int(origin.transaction)].sequence), let lineSpans,
            2 * position + 1 < lineSpans.bounds.count
        else { return false }
        let start = Int(lineSpans.bounds[2 * position])
        let end = Int(lineSpans.bounds[2 * position + 1])
        guard start >= 0, start < end, end <= line.count else { return false }
        return line.withUnsafeBufferPointer { all in
            let tail = UnsafeBufferPointer(rebasing: all[start..<end])
            guard Self.hasShape(tail, id: id) else { return false }
            LineFraming.appendLine(members: tail, to: &output)
            copiedCount += 1
            return true
        }
    }

    /// Whether `tail` is `"id":<id>,"values":{…}}`, the identifier written canonically.
    private static func hasShape(_ tail: UnsafeBufferPointer<UInt8>, id: Int64) -> Bool {
        tail.count >= 2 && tail[tail.count - 1] == UInt8(ascii: "}") && tail[tail.count - 2] == UInt8(ascii: "}")
            && SnapshotFile.recordID(members: tail) == id
    }

    /// Makes the line of `sequence` the current one: read from the journal and verified.
    private func load(_ sequence: UInt64) -> Bool {
        if sequence == lineSequence { return lineSpans != nil }
        if unusable.contains(sequence) { return false }
        lineSequence = sequence
        lineSpans = nil
        guard let spans = spans[sequence], let stored = storedLines[sequence], stored.inJournal,
            stored.length == spans.lineLength, readLine(stored)
        else {
            unusable.insert(sequence)
            return false
        }
        let intact = line.withUnsafeBufferPointer { (try? LineFraming.verify($0)) != nil }
        guard intact else {
            unusable.insert(sequence)
            return false
        }
        lineSpans = spans
        return true
    }

    private func readLine(_ stored: Store.StoredLine) -> Bool {
        do {
            if journal == nil { journal = try fs.open(journalPath, .read) }
            guard let journal else { return false }
            line.removeAll(keepingCapacity: true)
            line.append(contentsOf: repeatElement(0, count: stored.length))
            var filled = 0
            while filled < stored.length {
                let count = try line.withUnsafeMutableBytes { raw in
                    try fs.read(journal, into: UnsafeMutableRawBufferPointer(rebasing: raw[filled...]), at: stored.offset + Int64(filled))
                }
                if count == 0 { return false }
                filled += count
            }
            return true
        } catch {
            return false
        }
    }
}
