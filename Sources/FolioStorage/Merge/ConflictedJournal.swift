/// A journal as git left it after a merge, read into typed transactions: the lines of both sides in
/// file order, with git's conflict markers counted and set aside.
///
/// Nothing here decides anything; ``JournalMerge`` resolves the transactions.
package struct ConflictedJournal: Sendable, Hashable {
    /// A transaction and the 1-based line it was read from.
    package struct Entry: Sendable, Hashable {
        /// The 1-based line number in the journal file.
        package var line: Int
        /// The transaction on that line.
        package var transaction: JournalTransaction

        /// Creates an entry.
        package init(line: Int, transaction: JournalTransaction) {
            self.line = line
            self.transaction = transaction
        }
    }

    /// The transactions of both sides, in file order (duplicates and restarted sequences included).
    package var entries: [Entry]
    /// How many lines were git conflict markers (`<<<<<<<`, `|||||||`, `=======`, `>>>>>>>`).
    package var markerLineCount: Int
    /// The transactions of diff3 common-ancestor sections (between `|||||||` and `=======`), which
    /// both sides already hold; lines there that do not read as transactions are left out.
    package var ancestor: [JournalTransaction] { ancestorEntries.map(\.transaction) }
    /// ``ancestor``'s transactions with the lines they were read from.
    package var ancestorEntries: [Entry]

    /// A journal of `transactions` on lines 1, 2, … without markers.
    package init(transactions: [JournalTransaction]) {
        entries = transactions.enumerated().map { Entry(line: $0.offset + 1, transaction: $0.element) }
        markerLineCount = 0
        ancestorEntries = []
    }

    /// Reads journal lines (without their `\n`; a trailing `\r` is ignored).
    ///
    /// - Throws: ``JournalMergeFailure/damagedLine(_:_:)`` for a line outside an ancestor section that
    ///   is not a valid transaction line.
    package init(lines: [[UInt8]]) throws(JournalMergeFailure) {
        entries = []
        markerLineCount = 0
        ancestorEntries = []
        var inAncestor = false
        for (index, line) in lines.enumerated() {
            if Self.isMarker(line) {
                markerLineCount += 1
                if line.starts(with: Self.ancestorMarker) { inAncestor = true }
                if line.starts(with: Self.separatorMarker) || line.starts(with: Self.theirsMarker) { inAncestor = false }
                continue
            }
            if inAncestor {
                if let transaction = try? Self.transaction(in: line) { ancestorEntries.append(Entry(line: index + 1, transaction: transaction)) }
                continue
            }
            do {
                entries.append(Entry(line: index + 1, transaction: try Self.transaction(in: line)))
            } catch {
                throw JournalMergeFailure.damagedLine(index + 1, (error as? StorageError)?.message ?? "\(error)")
            }
        }
    }

    /// Whether journal lines look merged: a conflict marker, or a sequence number that does not go up.
    package static func needsMerge(_ lines: [[UInt8]]) -> Bool {
        var last: Int64 = 0
        for line in lines {
            if isMarker(line) { return true }
            guard let members = try? members(of: line), let sequence = members["seq"]?.intValue else { continue }
            if sequence <= last { return true }
            last = sequence
        }
        return false
    }

    private static let ancestorMarker = Array("|||||||".utf8)
    private static let separatorMarker = Array("=======".utf8)
    private static let theirsMarker = Array(">>>>>>>".utf8)

    private static func isMarker(_ line: [UInt8]) -> Bool {
        line.withUnsafeBufferPointer { LineFraming.isConflictMarker($0) }
    }

    private static func members(of line: [UInt8]) throws -> [String: JSONValue] {
        let content = line.last == 0x0D ? line.dropLast() : line[...]
        return try content.withUnsafeBufferPointer { try LineFraming.decode($0) }
    }

    /// The transaction on `line`; a line without a `seq` or `id` is reported as such, before the rest
    /// of the transaction is checked.
    private static func transaction(in line: [UInt8]) throws -> JournalTransaction {
        let members = try members(of: line)
        guard members["seq"]?.intValue != nil, members["id"]?.stringValue != nil else {
            throw StorageError(.malformedLine, "no seq or id")
        }
        return try JournalTransaction(members: members)
    }
}
