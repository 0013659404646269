import Foundation

/// What ``StoreRepair/repair(at:options:)`` may do.
package struct RepairOptions: Sendable {
    /// Also move damaged journal and snapshot lines (bad checksum, bad JSON, conflict markers) to side
    /// files. This loses the data on those lines; the default (`false`) only does what loses nothing.
    package var moveDamagedLines: Bool

    /// Creates options. The default repairs only what is safe.
    package init(moveDamagedLines: Bool = false) {
        self.moveDamagedLines = moveDamagedLines
    }
}

/// What a repair did.
package struct RepairReport: Sendable {
    /// Each action taken, in order, in words (file names, line numbers, byte counts).
    package var actions: [String]
    /// Backups written before any file was changed.
    package var backups: [String]
    /// Problems left after the repair (an empty list means the store opens).
    package var remainingProblems: [StorageError]
}

/// Repairs a store directory: the library side of `folio repair`.
package enum StoreRepair {
    /// Repairs what can be repaired, under the writer lock.
    ///
    /// Always safe: moves a torn last journal line to `journal.jsonl.corrupt-tail` and truncates it,
    /// removes temporary files of interrupted writes. With ``RepairOptions/moveDamagedLines``: first
    /// copies each file it changes to `<file>.backup-<time>`, then moves damaged lines to
    /// `<file>.damaged`; a damaged journal line is replaced by an empty transaction with the same
    /// sequence number, so later sequence numbers stay contiguous.
    ///
    /// A store whose files are not all regular files inside its directory (a symbolic link leading
    /// out, a FIFO) is refused before anything is opened: repair never reads or writes outside the
    /// store. Everything it writes is fsynced, and so is the directory it is written in.
    ///
    /// - Throws: ``StorageError`` (`notRegularFile`, `outsideStore`, I/O errors).
    package static func repair(at directory: URL, options: RepairOptions = RepairOptions()) throws -> RepairReport {
        let fs: any FileSystem = PosixFileSystem()
        let paths = StorePaths(directory: directory.path)
        try StoreFileSafety.check(paths, fileSystem: fs)
        let lock = try fs.open(paths.lock, .readWriteCreate)
        defer { fs.close(lock) }
        _ = try fs.lock(lock, exclusive: true, wait: true)
        defer { fs.unlock(lock) }
        var report = RepairReport(actions: [], backups: [], remainingProblems: [])
        let stamp = Timestamp.format(Date()).replacingOccurrences(of: ":", with: "-")

        // Temporary files.
        for folder in [paths.directory, paths.snapshots, paths.cacheDirectory] {
            for name in try fs.contentsOfDirectory(folder) where FileSystemNames.isTemporary(name) {
                try fs.unlink("\(folder)/\(name)")
                report.actions.append("removed temporary file \(folder)/\(name)")
            }
        }

        // Torn journal tail.
        if try fs.status(atPath: paths.journal) != nil {
            let file = try fs.open(paths.journal, .readWriteCreate)
            defer { fs.close(file) }
            let scan = try LineScanner.scan(fs, file) { _ in }
            if scan.tailLength > 0 {
                var tail = [UInt8](repeating: 0, count: Int(scan.tailLength))
                _ = try tail.withUnsafeMutableBytes { try fs.read(file, into: $0, at: scan.validEnd) }
                try appendToSideFile(paths.corruptTail, tail + [0x0A], fs: fs)
                try fs.truncate(file, to: scan.validEnd)
                try fs.sync(file)
                try fs.syncDirectory(paths.directory)
                report.actions.append(
                    "moved the incomplete last line of \(paths.journal) (line \(scan.lineCount + 1), \(scan.tailLength) bytes at byte \(scan.validEnd)) to \(paths.corruptTail) and truncated the journal"
                )
            }
        }

        if options.moveDamagedLines {
            let found = StoreVerifier.verify(at: directory).problems
            let lineCodes: Set<StorageError.Code> = [.checksumMismatch, .invalidJSON, .mergeConflict, .malformedLine]
            var damagedByFile: [String: Set<Int>] = [:]
            for problem in found where lineCodes.contains(problem.code) {
                if let file = problem.file, let line = problem.line, file != paths.manifest { damagedByFile[file, default: []].insert(line) }
            }
            for (file, lines) in damagedByFile.sorted(by: { $0.key < $1.key }) {
                try moveLines(lines, of: file, isJournal: file == paths.journal || file == paths.history, stamp: stamp, fs: fs, report: &report)
            }
        }
        report.remainingProblems = StoreVerifier.verify(at: directory).problems
        return report
    }

    private static func moveLines(
        _ damaged: Set<Int>, of path: String, isJournal: Bool, stamp: String, fs: any FileSystem, report: inout RepairReport
    ) throws {
        let original = try fs.readSmallFile(path, limit: Int.max)
        let backup = "\(path).backup-\(stamp)"
        try fs.replaceFile(at: backup, with: original)
        report.backups.append(backup)
        var lines = original.split(separator: 0x0A, omittingEmptySubsequences: false).map { Array($0) }
        if lines.last?.isEmpty == true { lines.removeLast() }
        var kept: [[UInt8]] = []
        var moved: [UInt8] = []
        var lastSequence: UInt64? = nil
        var pendingGap = 0
        var snapshotRecordCount = 0
        for (index, line) in lines.enumerated() {
            let number = index + 1
            if damaged.contains(number) {
                moved += line + [0x0A]
                if !LineFraming.isConflictMarker(line.withUnsafeBufferPointer { $0 }) { pendingGap += 1 }
                report.actions.append("moved line \(number) of \(path) to \(path).damaged")
                continue
            }
            if isJournal, let sequence = sequenceOf(line) {
                if let last = lastSequence, pendingGap > 0, sequence > last + 1 {
                    try fillGap(after: last, before: sequence, movedLines: pendingGap, line: number, path: path, into: &kept, report: &report)
                }
                lastSequence = sequence
                pendingGap = 0
            }
            if !isJournal && number > 1 { snapshotRecordCount += 1 }
            kept.append(line)
        }
        if !isJournal, let header = kept.first, let members = try? header.withUnsafeBufferPointer({ try LineFraming.decode($0) }),
            var updatedHeader = Optional(members)
        {
            updatedHeader["records"] = .int(Int64(snapshotRecordCount))
            kept[0] = Array(try LineFraming.encode(updatedHeader).dropLast())
            report.actions.append("set the record count in the header of \(path) to \(snapshotRecordCount)")
        }
        try appendToSideFile("\(path).damaged", moved, fs: fs)
        try fs.replaceFile(at: path, with: kept.flatMap { $0 + [0x0A] })
    }

    /// Puts an empty transaction in place of each moved transaction line between sequences `last` and
    /// `next`, so that sequence numbers stay contiguous. A gap wider than the lines moved is not theirs (a
    /// sequence read from the file may be anything up to 2^62-1): it is left for verification to report,
    /// never filled one placeholder at a time.
    private static func fillGap(
        after last: UInt64, before next: UInt64, movedLines: Int, line: Int, path: String, into kept: inout [[UInt8]],
        report: inout RepairReport
    ) throws {
        guard next - last - 1 <= UInt64(movedLines) else {
            report.actions.append(
                "left transactions \(last + 1)…\(next - 1) of \(path) missing: more than the \(movedLines) damaged line(s) moved before line \(line)")
            return
        }
        for missing in (last + 1)..<next {
            let placeholder = JournalTransaction(
                sequence: missing, transactionID: UUID().uuidString, timestamp: Timestamp.truncated(Date()),
                author: "folio repair: damaged line moved to journal side file", inserted: [], updated: [], deleted: [], nextID: 0)
            kept.append(Array(try placeholder.encodedLine().dropLast()))
            report.actions.append("inserted an empty transaction \(missing) in \(path) in place of a damaged line")
        }
    }

    /// Appends to a side file beside a store file (created if missing), fsyncing it and its directory.
    /// A symbolic link in its place is refused: repair writes only inside the store.
    private static func appendToSideFile(_ path: String, _ bytes: [UInt8], fs: any FileSystem) throws {
        if let target = try fs.symbolicLinkTarget(atPath: path) {
            throw StorageError(
                .outsideStore, "is a symbolic link (to \(target)); repair writes side files only inside the store: remove the link",
                file: path)
        }
        let side = try fs.open(path, .readWriteCreate)
        defer { fs.close(side) }
        try fs.writeAll(side, bytes, at: try fs.status(side).size)
        try fs.sync(side)
        try fs.syncDirectory(PosixFileSystem.directory(of: path))
    }

    private static func sequenceOf(_ line: [UInt8]) -> UInt64? {
        line.withUnsafeBufferPointer { buffer in
            guard let members = try? LineFraming.decode(buffer), case .int(let sequence)? = members["seq"],
                SequenceLimits.isValid(sequence)
            else { return nil }
            return UInt64(sequence)
        }
    }
}
