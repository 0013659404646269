import Foundation

/// A three-way merge of one store file, dispatched by the file's kind: what `folio merge-driver` runs
/// for git, and what a sync runs in-process for each store file a merge left unmerged.
///
/// It reads only the three versions it is given and, for the schema, the manifest in the store's
/// directory of the work tree, and writes only the result, so that the driver and a sync give the same
/// bytes.
package enum StoreFileMerge {
    /// The kinds of store file that merge, known by the file's name.
    package enum Kind: Sendable, Equatable {
        case journal, history, manifest, snapshot
    }

    /// What a merge did, for a person and for a sync's report.
    package struct Outcome: Sendable {
        /// One line: what was merged, and how many conflicting values were resolved.
        package var summary: String
        /// The journal's conflicts, as recorded on its lines (a snapshot's are counted, not listed).
        package var conflicts: [MergeConflict]
        /// How many conflicting values the merge resolved.
        package var conflictCount: Int
    }

    /// The largest file a merge reads: a journal is compacted long before, and a snapshot of a million
    /// records is a quarter of it.
    package static let maximumFileBytes = 1 << 30

    /// The kind of the store file at `path` (a path in the work tree or the repository), or nil for a
    /// name that is no mergeable store file.
    package static func kind(ofPath path: String) -> Kind? {
        let url = URL(fileURLWithPath: path)
        switch url.lastPathComponent {
        case "journal.jsonl": return .journal
        case "history.jsonl": return .history
        case "manifest.json": return .manifest
        case let name where name.hasSuffix(".jsonl") && url.deletingLastPathComponent().lastPathComponent == "snapshots": return .snapshot
        default: return nil
        }
    }

    /// Merges three versions of the file at `path`, handing the merged bytes to `write` (in pieces for
    /// a snapshot, which can be hundreds of megabytes).
    ///
    /// - Parameter path: the file's path in the work tree: its name gives its kind, its directory the
    ///   store whose `manifest.json` supplies the schema (ours: git updates the work tree after the
    ///   merge).
    /// - Throws: ``JournalThreeWayMerge/Refusal`` when the versions cannot be merged (nothing was
    ///   handed to `write` then, except for a snapshot, whose writer must discard what it got), or what
    ///   `write` throws.
    package static func merge(
        path: String, base: [UInt8], ours: [UInt8], theirs: [UInt8], write: (UnsafeBufferPointer<UInt8>) throws -> Void
    ) throws -> Outcome {
        guard let kind = kind(ofPath: path) else {
            throw JournalThreeWayMerge.Refusal(
                message: "not a Folio store file (journal.jsonl, history.jsonl, manifest.json or snapshots/ENTITY.jsonl)")
        }
        let storeDirectory = URL(fileURLWithPath: path).deletingLastPathComponent()
        switch kind {
        case .journal:
            let result = try JournalThreeWayMerge.merge(
                base: JournalMergeBaseChoice.base(base, ours: ours, theirs: theirs), ours: ours, theirs: theirs,
                schema: recordedSchema(inStore: storeDirectory))
            try result.bytes.withUnsafeBufferPointer(write)
            var summary = "merged \(result.added.ours) transaction(s) of ours and \(result.added.theirs) of theirs"
            if !result.conflicts.isEmpty {
                summary += "; \(result.conflicts.count) conflicting value(s) resolved: see 'folio conflicts'"
            }
            return Outcome(summary: summary, conflicts: result.conflicts, conflictCount: result.conflicts.count)
        case .history:
            try HistoryMerge.merge(base: base, ours: ours, theirs: theirs).withUnsafeBufferPointer(write)
            return Outcome(summary: "merged the retained history of both sides", conflicts: [], conflictCount: 0)
        case .manifest:
            try ManifestMerge.merge(base: base, ours: ours, theirs: theirs).withUnsafeBufferPointer(write)
            return Outcome(summary: "merged the manifests of two compacted sides", conflicts: [], conflictCount: 0)
        case .snapshot:
            let schema = MergeSchema(recordedSchema(inStore: storeDirectory.deletingLastPathComponent()))
            let resolved = try SnapshotMerge.merge(base: base, ours: ours, theirs: theirs, schema: schema, write: write)
            let summary =
                "merged the snapshots of two compacted sides\(resolved == 0 ? "" : "; \(resolved) conflicting value(s) resolved: see 'folio conflicts'")"
            return Outcome(summary: summary, conflicts: [], conflictCount: resolved)
        }
    }

    /// Merges the three versions into the file at `path`, replacing it only once the merge succeeded.
    package static func merge(path: String, base: [UInt8], ours: [UInt8], theirs: [UInt8]) throws -> Outcome {
        var outcome: Outcome?
        try writeFile(at: path) { output in
            outcome = try merge(path: path, base: base, ours: ours, theirs: theirs, write: output)
        }
        guard let outcome else { throw StorageError(.ioFailure, "the merge of \(path) produced nothing") }
        return outcome
    }

    /// The schema the work tree's manifest of the store in `directory` records, which a journal merge
    /// uses when none of its lines records one, and a snapshot merge for its relationships; nil without
    /// one. Only the store's own directory is read.
    package static func recordedSchema(inStore directory: URL) -> JSONValue? {
        let manifest = directory.appendingPathComponent("manifest.json").path
        // A link could lead out of the store: only a regular file is read (attributes do not follow links).
        guard (try? FileManager.default.attributesOfItem(atPath: manifest)[.type] as? FileAttributeType) == .typeRegular,
            let bytes = try? PosixFileSystem().readWholeFile(manifest, limit: 16 << 20)
        else { return nil }
        return MergeSchema.recorded(inManifest: bytes)
    }

    /// Puts what `produce` hands out at `path`, by writing a temporary file beside it and renaming it
    /// over `path` (no fsync: git reads the result at once, and a crash aborts the merge anyway). If
    /// `produce` throws, `path` is left as it was.
    package static func writeFile(at path: String, producing produce: ((UnsafeBufferPointer<UInt8>) throws -> Void) throws -> Void) throws {
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
                    guard count > 0 else { throw StorageError(.ioFailure, "the merged file could not be written: no space?", file: path) }
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
