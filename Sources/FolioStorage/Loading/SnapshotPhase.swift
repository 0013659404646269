/// The second phase of loading: the snapshot files, `snapshots/<Entity>.jsonl`.
///
/// - Input: the state the manifest starts the records from (``ManifestPhase/initialState(_:)``).
/// - Output: that state holding every snapshot record (version 0), each entity's ``StoreState/lastModified``
///   at its header's sequence; and what the headers say (``bases``, ``conflicts``, ``sizes``).
/// - Invariant: a record is added only from a file whose header names its entity, in strictly rising
///   identifier order, with an identifier no other record holds; the state's counters are past every
///   identifier added. Every line that breaks a rule is reported with its file, line and offset, and
///   skipped; a header whose count disagrees with the lines is reported after the file is read.
struct SnapshotPhase {
    /// The header sequence of each snapshot file read, by entity: the journal's transactions up to it
    /// are already in the file.
    private(set) var bases: [String: UInt64] = [:]
    /// The conflicts the headers record (see ``SnapshotFile/Header/conflicts``), by entity.
    private(set) var conflicts: [String: [MergeConflict]] = [:]
    /// The size of each snapshot file read, by entity.
    private(set) var sizes: [String: Int64] = [:]
    /// The highest record identifier in any snapshot and its file: the counters must be past it.
    private(set) var highestID: (id: Int64, path: String)? = nil

    /// Reads every snapshot file into `state`.
    static func read(into state: inout StoreState, _ context: LoadContext, report: (StorageError) throws -> Void) throws -> SnapshotPhase {
        var phase = SnapshotPhase()
        let paths = context.paths
        let names = context.isSafe(paths.snapshots) ? try context.fileSystem.contentsOfDirectory(paths.snapshots) : []
        for name in names where name.hasSuffix(".jsonl") && !FileSystemNames.isTemporary(name) {
            let path = "\(paths.snapshots)/\(name)"
            if !context.isSafe(path) { continue }
            try phase.readFile(path, entity: String(name.dropLast(6)), into: &state, context, report: report)
        }
        return phase
    }

    /// Reads one snapshot file, `path`, of `entity`'s records.
    private mutating func readFile(
        _ path: String, entity: String, into state: inout StoreState, _ context: LoadContext, report: (StorageError) throws -> Void
    ) throws {
        let fs = context.fileSystem
        let file = try fs.open(path, .read)
        defer { fs.close(file) }
        // No count read from the file sizes memory beyond what the file can hold.
        let fileSize = try fs.status(file).size
        var header: SnapshotFile.Header? = nil
        let position = state.position(ofEntity: entity)
        var previousID: Int64? = nil
        let reader = JSONReader()
        var entityAccepted = true
        let scanned = try context.scanLines(file, report: report) { line in
            do {
                let fast = line.number > 1 && header != nil ? try SnapshotFile.fastRecord(line.bytes) : nil
                let members = fast == nil ? try LineFraming.decode(line.bytes, reader: reader) : [:]
                if line.number == 1 {
                    let decoded = try SnapshotFile.decodeHeader(members)
                    guard decoded.entity == entity else {
                        throw StorageError(.malformedLine, "header names entity \"\(decoded.entity)\" but the file is \(entity).jsonl")
                    }
                    entityAccepted = try context.accepts(entity, file: path, line: 1, offset: 0, report: report)
                    header = decoded
                    if !decoded.conflicts.isEmpty { conflicts[entity] = decoded.conflicts }
                    state.reserveCapacity(min(decoded.records, SnapshotFile.maximumRecordCount(inFileOfSize: fileSize)))
                    return
                }
                guard header != nil else { return }
                let (id, values) = try fast ?? SnapshotFile.decodeRecord(members)
                guard IdentifierLimits.isValid(id) else {
                    throw StorageError(.malformedLine, "record identifier \(id) is out of range (1…2^62-1)")
                }
                if let previousID, id <= previousID {
                    throw StorageError(
                        .inconsistentStore,
                        id == previousID ? "record \(id) appears twice" : "record \(id) is out of order (after \(previousID))")
                }
                previousID = id
                if id > highestID?.id ?? 0 { highestID = (id, path) }
                if context.checkingBlobReferences, let problem = BlobStore.malformedReference(in: values) {
                    throw StorageError(.blobNotFound, "record \(id) \(problem)")
                }
                if !entityAccepted { return }
                if let owner = state.insert(id: id, entity: position, values: values) {
                    throw StorageError(.inconsistentStore, "identifier \(id) is also used by entity \(owner)")
                }
                state.counters.note(id &+ 1)
            } catch var error as StorageError {
                error.file = path
                error.line = line.number
                error.offset = line.offset + (error.offset ?? 0)
                try report(error)
            }
        }
        guard let result = scanned else { return }
        if result.tailLength > 0 {
            try report(
                StorageError(
                    .malformedLine, "snapshot ends in an incomplete line (\(result.tailLength) bytes); restore it from git or a backup",
                    file: path, line: result.lineCount + 1, offset: result.validEnd))
        }
        guard let header else {
            if result.lineCount == 0 && result.tailLength == 0 {
                try report(StorageError(.malformedLine, "snapshot file is empty (no header line)", file: path, line: 1, offset: 0))
            }
            return
        }
        if header.records != result.lineCount - 1 {
            try report(
                StorageError(
                    .inconsistentStore,
                    "header says \(header.records) records but the file has \(result.lineCount - 1); the file was truncated or edited",
                    file: path, line: 1, offset: 0))
        }
        state.lastModified[entity] = header.sequence
        sizes[entity] = fileSize
        bases[entity] = header.sequence
    }
}
