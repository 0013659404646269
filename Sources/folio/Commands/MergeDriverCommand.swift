import Foundation
import FolioStorage

/// `folio merge-driver BASE OURS THEIRS [PATH]`: git's merge driver for store files.
///
/// A pure function of the three files git hands over: it reads them, writes only OURS (git's result
/// file), runs no git command and does not depend on which side is which, so a merge, a rebase and a
/// cherry-pick give the same bytes. When it cannot merge, it leaves OURS as git left it and exits 1:
/// git then reports a conflict on the file.
enum MergeDriverCommand: FolioSubcommand {
    static let spec = CommandSpec(
        name: "merge-driver", abstract: "Merge three versions of a store file, as git's merge driver.",
        discussion: """
            Registered by 'folio git-setup' as 'merge.folio.driver' ("folio merge-driver %O %A %B %P"). For
            journal.jsonl it keeps the base's transactions and adds both sides' new ones, interleaved by commit
            time and numbered on; an attribute both sides changed keeps the later value and the other is recorded
            as a conflict ('folio conflicts STORE'); a record one side deleted stays deleted. The manifest, the
            history and the snapshots of two sides that both compacted merge record by record. The merged file is
            written over OURS. Exits 1, leaving OURS untouched, when the files cannot be merged: a side that is
            not a Folio file, is damaged or holds conflict markers, or an attribute both compacted sides changed
            (see docs/git.md).
            """,
        arguments: [
            .init(name: "BASE", help: "The merge base's version (git's %O)."),
            .init(name: "OURS", help: "Our version, replaced by the result (git's %A)."),
            .init(name: "THEIRS", help: "Their version (git's %B)."),
            .init(name: "PATH", help: "The file's path in the repository (git's %P), for its kind and messages.", isOptional: true),
        ],
        examples: ["git config merge.folio.driver \"folio merge-driver %O %A %B %P\""])

    /// The largest file the driver reads: a journal is compacted long before, and a snapshot of a
    /// million records is a quarter of it.
    static let maximumFileBytes = 1 << 30

    static func run(_ arguments: ParsedArguments, console: Console) throws -> Int32 {
        let (basePath, oursPath, theirsPath) = (arguments.positionals[0], arguments.positionals[1], arguments.positionals[2])
        let path = arguments.positionals.count > 3 ? arguments.positionals[3] : oursPath
        func refuse(_ message: String) -> Int32 {
            console.error("folio merge-driver: \(path): \(message)")
            console.error("folio merge-driver: \(path) is left as it was on our side; git reports a conflict.")
            return ExitCode.failure
        }
        let files: [[UInt8]]
        do { files = try [basePath, oursPath, theirsPath].map(read) } catch let failure as CommandFailure {
            return refuse(failure.message)
        }
        let merged: [UInt8]
        var summary: String
        do throws(JournalThreeWayMerge.Refusal) {
            switch StoreFileText.kind(ofPath: path) {
            case .transactions where URL(fileURLWithPath: path).lastPathComponent == "journal.jsonl":
                let result = try JournalThreeWayMerge.merge(
                    base: files[0], ours: files[1], theirs: files[2],
                    schema: recordedSchema(inStore: URL(fileURLWithPath: path).deletingLastPathComponent()))
                merged = result.bytes
                summary = "merged \(result.added.ours) transaction(s) of ours and \(result.added.theirs) of theirs"
                if !result.conflicts.isEmpty {
                    summary += "; \(result.conflicts.count) conflicting value(s) resolved: see 'folio conflicts'"
                }
            case .transactions:
                merged = try HistoryMerge.merge(base: files[0], ours: files[1], theirs: files[2])
                summary = "merged the retained history of both sides"
            case .manifest:
                merged = try ManifestMerge.merge(base: files[0], ours: files[1], theirs: files[2])
                summary = "merged the manifests of two compacted sides"
            case .snapshot:
                // Written as it is merged: a snapshot can be hundreds of megabytes.
                var resolved = 0
                do {
                    try write(to: oursPath) { output throws in
                        let store = URL(fileURLWithPath: path).deletingLastPathComponent().deletingLastPathComponent()
                        resolved = try SnapshotMerge.merge(
                            base: files[0], ours: files[1], theirs: files[2],
                            schema: MergeSchema(recordedSchema(inStore: store)), write: output)
                    }
                } catch let refusal as JournalThreeWayMerge.Refusal {
                    throw refusal
                } catch {
                    return refuse("cannot write the merged file: \(error)")
                }
                console.warning(
                    """
                    folio merge-driver: \(path): merged the snapshots of two compacted sides\
                    \(resolved == 0 ? "" : "; \(resolved) conflicting value(s) resolved: see 'folio conflicts'")
                    """)
                return ExitCode.success
            case .unknown:
                return refuse("not a Folio store file (journal.jsonl, history.jsonl, manifest.json or snapshots/ENTITY.jsonl)")
            }
        } catch {
            let location = [error.file, error.line.map { "line \($0)" }].compactMap { $0 }.joined(separator: " ")
            return refuse(location.isEmpty ? error.message : "\(location): \(error.message)")
        }
        do { try write(merged, to: oursPath) } catch {
            return refuse("cannot write the merged file: \(error)")
        }
        console.warning("folio merge-driver: \(path): \(summary)")
        return ExitCode.success
    }

    /// The schema the worktree manifest of the store in `directory` records (ours: git updates the
    /// worktree after the last driver call), which a journal merge uses when none of its lines records
    /// one, and a snapshot merge for its relationships; nil without one. Only the store's own directory
    /// is read.
    static func recordedSchema(inStore directory: URL) -> JSONValue? {
        let manifest = directory.appendingPathComponent("manifest.json").path
        // A link could lead out of the store: only a regular file is read (attributes do not follow links).
        guard (try? FileManager.default.attributesOfItem(atPath: manifest)[.type] as? FileAttributeType) == .typeRegular,
            let bytes = try? PosixFileSystem().readWholeFile(manifest, limit: 16 << 20)
        else { return nil }
        return MergeSchema.recorded(inManifest: bytes)
    }

    /// The bytes of a file git handed over, refusing one too large to be a store file.
    static func read(_ path: String) throws -> [UInt8] {
        do { return try PosixFileSystem().readWholeFile(path, limit: maximumFileBytes) } catch let error as StorageError {
            throw CommandFailure("\(path) cannot be read: \(error.message)")
        }
    }

    /// Puts `bytes` at `path` by writing a temporary file beside it and renaming it over `path` (no
    /// fsync: git reads the result at once, and a crash aborts the merge anyway).
    static func write(_ bytes: [UInt8], to path: String) throws {
        try write(to: path) { output in try bytes.withUnsafeBufferPointer(output) }
    }

    /// ``write(_:to:)`` for content produced in pieces, each handed to the function `produce` is given.
    /// If `produce` throws, `path` is left as it was.
    static func write(to path: String, producing produce: ((UnsafeBufferPointer<UInt8>) throws -> Void) throws -> Void) throws {
        let fs = PosixFileSystem()
        let temporary = PosixFileSystem.temporaryPath(for: path)
        let file = try fs.open(temporary, .createExclusive)
        var closed = false
        do {
            var offset: Int64 = 0
            try produce { piece in
                var done = 0
                while done < piece.count {
                    let count = try fs.write(file, UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: piece[done...])), at: offset + Int64(done))
                    guard count > 0 else { throw CommandFailure("the merged file could not be written: no space?") }
                    done += count
                }
                offset += Int64(piece.count)
            }
            fs.close(file)
            closed = true
            try fs.rename(temporary, to: path)
        } catch {
            if !closed { fs.close(file) }
            try? fs.unlink(temporary)
            throw error
        }
    }
}
