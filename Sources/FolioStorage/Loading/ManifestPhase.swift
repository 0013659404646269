/// The first phase of loading: `manifest.json`.
///
/// - Input: the store's paths, with the unsafe ones already known.
/// - Output: the decoded manifest, and the state it starts the records from (no records; the
///   manifest's sequence, counters and schema); `nil` when there is no manifest to read.
/// - Invariant: a store without a manifest loads as empty only when it has no other store file;
///   with a journal, history or snapshots beside it, the missing manifest is reported as
///   ``StorageError/Code/missingManifest`` naming the file. A manifest that cannot be decoded throws,
///   whatever `report` does: nothing after it can be read without it.
enum ManifestPhase {
    /// Reads and validates the manifest.
    ///
    /// - Throws: the ``Manifest/decode(_:path:)`` error naming `manifest.json` (malformed, a merge
    ///   conflict, a newer format, ...); what `report` throws.
    static func read(_ context: LoadContext, report: (StorageError) throws -> Void) throws -> Manifest? {
        let paths = context.paths
        let fs = context.fileSystem
        guard context.isSafe(paths.manifest) else { return nil }
        guard try fs.status(atPath: paths.manifest) != nil else {
            let storeFiles = try fs.contentsOfDirectory(paths.directory).filter { ["journal.jsonl", "history.jsonl", "snapshots"].contains($0) }
            if !storeFiles.isEmpty {
                try report(
                    StorageError(
                        .missingManifest,
                        "manifest.json is missing but \(storeFiles.joined(separator: ", ")) exist; restore the manifest from git or a backup",
                        file: paths.manifest))
            }
            return nil
        }
        return try Manifest.decode(try fs.readSmallFile(paths.manifest), path: paths.manifest)
    }

    /// The state records are loaded into: none yet, at the manifest's sequence, counters and schema.
    static func initialState(_ manifest: Manifest) -> StoreState {
        var state = StoreState()
        state.lastSequence = manifest.sequence
        state.counters = manifest.counters
        state.schema = manifest.schema
        return state
    }
}
