import Foundation
import FolioStorage

/// `folio repair STORE`: backup, then repair, then say exactly what was done.
enum RepairCommand: FolioSubcommand {
    static let spec = CommandSpec(
        name: "repair", abstract: "Back up a damaged store, then truncate a torn tail and move damaged lines aside.",
        discussion: """
            First copies the store's files (manifest, journal, history, snapshots; blobs are never changed) to a
            backup directory beside it, STORE.backup-<time>, unless --backup names another. Then, under the
            writer lock: resolves a git merge of journal.jsonl (conflict markers, or two branches'
            transactions with the same sequence numbers after a union merge) by replaying the other branch's
            transactions after this one's with fresh identifiers; removes temporary files of interrupted
            writes; moves an incomplete last journal line to journal.jsonl.corrupt-tail; and moves each
            damaged line (bad checksum, bad JSON, merge-conflict
            marker) to <file>.damaged, putting an empty transaction in place of a damaged journal line so that
            sequence numbers stay contiguous. The data on moved lines is lost from the store (it stays in the
            .damaged file and the backup). --safe-only does only what loses nothing. --dry-run repairs a
            temporary copy and reports what would be done.
            """,
        arguments: [.init(name: "STORE", help: "The store directory.")],
        options: [
            .flag("--dry-run", help: "Say what would be done; change nothing."),
            .flag("--safe-only", help: "Only truncate a torn tail and remove temporary files; leave damaged lines."),
            .option("--backup", value: "DIR", help: "Where to copy the store first (default STORE.backup-<time> beside it)."),
        ],
        examples: ["folio repair Store --dry-run", "folio repair Store"])

    static func run(_ arguments: ParsedArguments, console: Console) throws -> Int32 {
        let path = arguments.positionals[0]
        let url = try StoreAccess.directory(path)
        let options = RepairOptions(moveDamagedLines: !arguments.flag("--safe-only"))
        let before = StoreVerifier.verify(at: url)
        // A store whose files lead out of it or are not files is not touched at all, not even backed up.
        let unsafeCodes: Set<StorageError.Code> = [.notRegularFile, .outsideStore]
        let unsafe: [String] = before.problems.compactMap { (problem: StorageError) -> String? in
            unsafeCodes.contains(problem.code) ? problem.description : nil
        }
        if !unsafe.isEmpty {
            throw CommandFailure(
                "The store at \(url.path) was not repaired, nothing was changed: \(unsafe.joined(separator: "; "))",
                help: "Replace each such entry by the regular file it should be (from git or a backup), then run 'folio repair \(path)' again.")
        }
        if before.isHealthy && before.warnings.isEmpty {
            console.print("The store at \(url.path) has no problems: nothing to repair.")
            return ExitCode.success
        }
        if arguments.flag("--dry-run") {
            let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("folio-repair-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: scratch) }
            try copyStore(from: url, to: scratch, includeBlobs: false)
            let report = try repair(scratch, options: options, path: path)
            console.print("Dry run: nothing was changed. Repairing a copy of the store did this:")
            for action in report.actions { console.print("  - " + action.replacingOccurrences(of: scratch.path, with: url.path)) }
            if report.actions.isEmpty { console.print("  - do nothing") }
            printRemaining(
                report.remainingProblems.map { $0.description.replacingOccurrences(of: scratch.path, with: url.path) }, path: path, console: console)
            return report.remainingProblems.isEmpty ? ExitCode.success : ExitCode.failure
        }
        let backup: URL
        if let given = arguments.value("--backup") {
            backup = URL(fileURLWithPath: given, isDirectory: true)
            if FileManager.default.fileExists(atPath: backup.path) {
                throw UsageError(
                    "The backup directory '\(given)' already exists.", help: "Name a directory that does not exist yet.", command: spec.name)
            }
        } else {
            let stamp = DateText.iso(Date()).replacingOccurrences(of: ":", with: "-")
            backup = url.deletingLastPathComponent().appendingPathComponent("\(url.lastPathComponent).backup-\(stamp)")
        }
        do { try copyStore(from: url, to: backup, includeBlobs: false) } catch {
            throw CommandFailure(
                "Could not write the backup to \(backup.path), so nothing was repaired: \(error)",
                help: "Check free space and permissions, or give another place with --backup DIR.")
        }
        console.print("Backed up the store's files to \(backup.path)")
        let report = try repair(url, options: options, path: path)
        if report.actions.isEmpty {
            console.print("Nothing needed repairing\(options.moveDamagedLines ? "" : " with --safe-only").")
        } else {
            console.print("Repaired \(url.path):")
            for action in report.actions { console.print("  - " + action) }
        }
        for file in report.backups { console.print("  (the library also kept \(file))") }
        printRemaining(report.remainingProblems.map(\.description), path: path, console: console)
        return report.remainingProblems.isEmpty ? ExitCode.success : ExitCode.failure
    }

    /// Resolves a merged journal (with the storage layer's `JournalMerge`), then lets the storage engine
    /// repair the rest.
    static func repair(_ url: URL, options: RepairOptions, path: String) throws -> RepairReport {
        var actions: [String] = []
        var mergeLater = false
        let journal = url.appendingPathComponent("journal.jsonl")
        func mergeJournal() throws {
            // Under the store's writer lock, released before StoreRepair takes it.
            let lock = open(url.appendingPathComponent("lock").path, O_RDWR | O_CREAT, 0o644)
            if lock >= 0 { _ = flock(lock, LOCK_EX) }
            defer {
                if lock >= 0 {
                    _ = flock(lock, LOCK_UN)
                    close(lock)
                }
            }
            guard let lines = try? fileLines(journal), ConflictedJournal.needsMerge(lines) else { return }
            let base = JournalMergeBase(manifestLine: (try? fileLines(url.appendingPathComponent("manifest.json")))?.first)
            let outcome = try JournalMerge.merge(try ConflictedJournal(lines: lines), base: base)
            // Written beside the journal, fsynced and renamed over it (then the directory fsynced), so
            // that a crash leaves one or the other.
            try PosixFileSystem().replaceFile(at: journal.path, with: try outcome.journalBytes())
            actions += outcome.resolutions.map { "\($0) in \(journal.path)" }
        }
        if options.moveDamagedLines {
            do { try mergeJournal() } catch JournalMergeFailure.damagedLine {
                mergeLater = true
            } catch {
                actions.append("could not resolve the merged journal: \(error)")
            }
        }
        var report: RepairReport
        do { report = try StoreRepair.repair(at: url, options: options) } catch let error as StorageError {
            throw CommandFailure("Repair stopped: \(error)", help: "The backup is intact; restore it or repair by hand (docs/file-format.md).")
        }
        report.actions = actions + report.actions
        if mergeLater {
            actions = []
            do { try mergeJournal() } catch { actions.append("could not resolve the merged journal: \(error)") }
            report.actions += actions
            report.remainingProblems = StoreVerifier.verify(at: url).problems
        }
        return report
    }

    static func fileLines(_ url: URL) throws -> [[UInt8]] {
        let bytes = [UInt8](try Data(contentsOf: url))
        var lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: false).map(Array.init)
        if lines.last?.isEmpty == true { lines.removeLast() }
        return lines
    }

    static func printRemaining(_ problems: [String], path: String, console: Console) {
        if problems.isEmpty {
            console.print(console.styled("The store now verifies", .green) + ": run 'folio verify \(path)' for the model checks.")
            return
        }
        console.print(
            console.styled("\(problems.count) problem\(problems.count == 1 ? "" : "s") remain\(problems.count == 1 ? "s" : "")", .red) + ":")
        for problem in problems { console.print("  " + problem) }
        console.print("Repair cannot fix these; see docs/git.md and docs/file-format.md, or restore the backup.")
    }

    /// Copies the files a repair may change (and optionally the blobs) to a new directory: their
    /// contents, never links, each file fsynced and then its directory.
    static func copyStore(from source: URL, to destination: URL, includeBlobs: Bool) throws {
        let manager = FileManager.default
        try manager.createDirectory(at: destination, withIntermediateDirectories: true)
        for name in try manager.contentsOfDirectory(atPath: source.path) where name != "lock" && (includeBlobs || name != "blobs") {
            try copyContents(of: source.appendingPathComponent(name), to: destination.appendingPathComponent(name))
        }
        try PosixFileSystem().syncDirectory(destination.path)
    }

    /// Copies what `source` leads to (following links) to `destination`: a regular file's bytes, or a
    /// directory's entries the same way; anything else (a FIFO, a dangling link) is left out.
    private static func copyContents(of source: URL, to destination: URL) throws {
        let manager = FileManager.default
        let fs = PosixFileSystem()
        let resolved = source.resolvingSymlinksInPath()
        guard let status = try fs.status(atPath: resolved.path) else { return }
        if status.isDirectory {
            try manager.createDirectory(at: destination, withIntermediateDirectories: true)
            for name in try manager.contentsOfDirectory(atPath: resolved.path) {
                try copyContents(of: resolved.appendingPathComponent(name), to: destination.appendingPathComponent(name))
            }
            try fs.syncDirectory(destination.path)
        } else if status.isRegularFile {
            try manager.copyItem(at: resolved, to: destination)
            let copy = try fs.open(destination.path, .read)
            defer { fs.close(copy) }
            try fs.sync(copy)
        }
    }
}
