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

    static func run(_ arguments: ParsedArguments, console: Console) throws -> Int32 {
        let (basePath, oursPath, theirsPath) = (arguments.positionals[0], arguments.positionals[1], arguments.positionals[2])
        let path = arguments.positionals.count > 3 ? arguments.positionals[3] : oursPath
        func refuse(_ message: String) -> Int32 {
            console.error("folio merge-driver: \(path): \(message)")
            console.error("folio merge-driver: \(path) is left as it was on our side; git reports a conflict.")
            return ExitCode.failure
        }
        guard StoreFileMerge.kind(ofPath: path) != nil else {
            return refuse("not a Folio store file (journal.jsonl, history.jsonl, manifest.json or snapshots/ENTITY.jsonl)")
        }
        let files: [[UInt8]]
        do { files = try [basePath, oursPath, theirsPath].map(read) } catch let failure as CommandFailure {
            return refuse(failure.message)
        }
        let outcome: StoreFileMerge.Outcome
        do {
            // The kind and the store's schema come from PATH; the result goes to OURS (git's %A).
            var merged: StoreFileMerge.Outcome?
            try StoreFileMerge.writeFile(at: oursPath) { output in
                merged = try StoreFileMerge.merge(path: path, base: files[0], ours: files[1], theirs: files[2], write: output)
            }
            guard let merged else { return refuse("the merge produced nothing") }
            outcome = merged
        } catch let error as JournalThreeWayMerge.Refusal {
            let location = [error.file, error.line.map { "line \($0)" }].compactMap { $0 }.joined(separator: " ")
            return refuse(location.isEmpty ? error.message : "\(location): \(error.message)")
        } catch {
            return refuse("cannot write the merged file: \(error)")
        }
        console.warning("folio merge-driver: \(path): \(outcome.summary)")
        return ExitCode.success
    }

    /// The bytes of a file git handed over, refusing one too large to be a store file.
    static func read(_ path: String) throws -> [UInt8] {
        do { return try PosixFileSystem().readWholeFile(path, limit: StoreFileMerge.maximumFileBytes) } catch let error as StorageError {
            throw CommandFailure("\(path) cannot be read: \(error.message)")
        }
    }
}
