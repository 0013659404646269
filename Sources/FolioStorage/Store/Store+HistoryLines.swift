import Foundation

/// Writing `history.jsonl` by copying lines that are already on disk.
///
/// Every retained transaction's line is, byte for byte, in `history.jsonl` (if an earlier compaction
/// kept it) or in `journal.jsonl` (if it was committed since): `encodedLine()` is deterministic. A
/// compaction copies those lines, each one's checksum verified, instead of encoding the transactions
/// again; a transaction whose line is not found, or fails its checksum, is encoded from memory.
extension Store {
    /// Where a transaction's line is on disk.
    struct StoredLine: Equatable {
        /// Whether the line is in `journal.jsonl` (otherwise `history.jsonl`).
        var inJournal: Bool
        /// The line's offset in its file.
        var offset: Int64
        /// The line's length without its `\n` (and without a `\r` before it).
        var length: Int
    }

    /// The lines of `history.jsonl` and of `journal.jsonl` (up to `journalLimit`), by sequence.
    /// Unreadable files and lines without a sequence are left out: their transactions get encoded.
    /// Checksums are verified when a line is copied (``writeHistoryLines(_:paths:chunkSize:to:)``), not
    /// here: most lines found are older than what the retention policy keeps. No other compaction may
    /// run meanwhile (it would replace the files).
    func storedLines(_ paths: StorePaths, journalLimit: Int64) -> [UInt64: StoredLine] {
        var lines: [UInt64: StoredLine] = [:]
        for (path, inJournal) in [(paths.history, false), (paths.journal, true)] {
            guard (try? fs.status(atPath: path)) != nil, let file = try? fs.open(path, .read) else { continue }
            defer { fs.close(file) }
            _ = try? LineScanner.scan(fs, file) { line in
                if inJournal && line.end > journalLimit { return }
                // A compaction mark repeats its transaction's sequence without its changes.
                if inJournal && JournalTransaction.isCompactionMark(line: line.bytes) { return }
                guard let sequence = JournalTransaction.sequence(inLine: line.bytes) else { return }
                lines[sequence] = StoredLine(inJournal: inJournal, offset: line.offset, length: line.bytes.count)
            }
        }
        return lines
    }

    /// Writes the next `history.jsonl` to a synced temporary file beside it, with the transactions the
    /// retention policy keeps of `transactions`, and returns its path and the kept transactions: lines
    /// found on disk (up to `journalLimit` in the journal) are copied, their checksums verified, the
    /// others encoded, in pieces, never the whole file in memory. A line that fails its checksum is left
    /// out of the lines found and the file written again, so that it is exactly what encoding every
    /// transaction would give. Each piece goes through `check` first (to abandon a compaction).
    ///
    /// - Parameter stored: where the lines are, if the caller has found them already
    ///   (``storedLines(_:journalLimit:)`` with the same limit).
    func writeHistoryTemporaryFile(
        _ transactions: [JournalTransaction], paths: StorePaths, journalLimit: Int64, stored known: [UInt64: StoredLine]? = nil,
        keepingFrom: UInt64? = nil, check: () throws -> Void
    ) throws -> (temporary: String, kept: [JournalTransaction]) {
        var stored = known ?? storedLines(paths, journalLimit: journalLimit)
        while true {
            let kept = try retainedHistory(transactions, stored: stored, keepingFrom: keepingFrom)
            var damaged: [UInt64] = []
            do {
                let temporary = try fs.writeTemporaryFile(beside: paths.history) { write in
                    damaged = try writeHistoryLines(kept, paths: paths) { chunk in
                        try check()
                        try write(chunk)
                    }
                    if !damaged.isEmpty { throw DamagedStoredLine() }
                }
                return (temporary, kept.map(\.transaction))
            } catch is DamagedStoredLine {
                for sequence in damaged { stored[sequence] = nil }
            }
        }
    }

    private struct DamagedStoredLine: Error {}

    /// Hands the lines of `kept` to `output` in pieces of about `chunkSize`, stored lines copied and
    /// verified; returns the sequences whose stored line was not intact (encoded instead).
    func writeHistoryLines(
        _ kept: [RetainedTransaction], paths: StorePaths, chunkSize: Int = SnapshotFile.chunkSize, to output: ([UInt8]) throws -> Void
    ) throws -> [UInt64] {
        var chunk: [UInt8] = []
        var damaged: [UInt64] = []
        var files: [Bool: FileDescriptor] = [:]
        defer { for file in files.values { fs.close(file) } }
        for retainedTransaction in kept {
            if chunk.count >= chunkSize {
                try output(chunk)
                chunk.removeAll(keepingCapacity: true)
            }
            if let stored = retainedTransaction.stored {
                let file = try files[stored.inJournal] ?? fs.open(stored.inJournal ? paths.journal : paths.history, .read)
                files[stored.inJournal] = file
                if try appendStoredLine(stored, from: file, to: &chunk) { continue }
                damaged.append(retainedTransaction.transaction.sequence)
            }
            chunk.append(contentsOf: try retainedTransaction.encoded ?? retainedTransaction.transaction.encodedLine())
        }
        if !chunk.isEmpty { try output(chunk) }
        return damaged
    }

    /// Appends the stored line and `\n` to `bytes`; returns false (appending nothing) if the bytes read
    /// are not the whole line or fail their checksum.
    private func appendStoredLine(_ stored: StoredLine, from file: FileDescriptor, to bytes: inout [UInt8]) throws -> Bool {
        let start = bytes.count
        bytes.append(contentsOf: repeatElement(0, count: stored.length))
        var filled = 0
        while filled < stored.length {
            let count = try bytes.withUnsafeMutableBytes { raw in
                try fs.read(
                    file, into: UnsafeMutableRawBufferPointer(rebasing: raw[(start + filled)..<(start + stored.length)]),
                    at: stored.offset + Int64(filled))
            }
            if count == 0 { break }
            filled += count
        }
        let intact =
            filled == stored.length
            && bytes.withUnsafeBufferPointer { all in
                (try? LineFraming.verify(UnsafeBufferPointer(rebasing: all[start...]))) != nil
            }
        guard intact else {
            bytes.removeLast(bytes.count - start)
            return false
        }
        bytes.append(0x0A)
        return true
    }
}
