/// What every phase of loading reads by: the store's files, its configuration's rules, and the files
/// that broke the rule of ``StoreFileSafety`` and are never opened.
///
/// A phase reports each problem to the `report` it is given: throwing from it stops loading (what
/// opening does), returning continues past the problem where the files allow (what verification does).
struct LoadContext {
    let paths: StorePaths
    let configuration: StoreConfiguration
    /// Whether records' malformed blob references are reported too (what verification does; opening
    /// leaves that to the read of the blob, which checks the hash).
    let checkingBlobReferences: Bool
    /// The store files that are not regular files inside the store (already reported).
    let unsafePaths: Set<String>

    var fileSystem: any FileSystem { configuration.fileSystem }

    /// Whether the file or folder at `path` may be opened.
    func isSafe(_ path: String) -> Bool { !unsafePaths.contains(path) }

    /// Whether records of `entity` are kept: a name that is not an entity name, or one the
    /// configuration's ``StoreConfiguration/knownEntities`` lacks, is reported and the records skipped.
    func accepts(_ entity: String, file: String, line: Int, offset: Int64, report: (StorageError) throws -> Void) throws -> Bool {
        if !EntityName.isValid(entity) {
            try report(StorageError(.malformedLine, "\"\(entity)\" is not a valid entity name", file: file, line: line, offset: offset))
            return false
        }
        if let known = configuration.knownEntities, !known.contains(entity) {
            try report(
                StorageError(
                    .unknownEntity,
                    "record of unknown entity \"\(entity)\"; add it to the schema or open with a configuration that knows it",
                    file: file, line: line, offset: offset))
            return false
        }
        return true
    }

    /// Scans a file line by line. A line longer than the configured limit ends the scan and is reported
    /// like any other problem.
    ///
    /// - Returns: what the scan found; `nil` after a line that was too long.
    func scanLines(
        _ file: FileDescriptor, report: (StorageError) throws -> Void, _ body: (ScannedLine) throws -> Void
    ) throws -> ScanResult? {
        do {
            return try LineScanner.scan(fileSystem, file, maximumLineBytes: configuration.maximumLineBytes, body)
        } catch let error as StorageError where error.code == .lineTooLong && error.file == file.path {
            try report(error)
            return nil
        }
    }

    /// Reads a journal-format file (the journal or `history.jsonl`) into transactions, with
    /// ``scanLines(_:report:_:)``'s handling of a line too long.
    func readTransactions(
        _ file: FileDescriptor, report: (StorageError) throws -> Void, _ each: (JournalTransaction, ScannedLine) throws -> Void
    ) throws -> ScanResult? {
        do {
            return try JournalReader.read(fileSystem, file, maximumLineBytes: configuration.maximumLineBytes, report: report, each: each)
        } catch let error as StorageError where error.code == .lineTooLong && error.file == file.path {
            try report(error)
            return nil
        }
    }
}
