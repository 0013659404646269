import Foundation

/// Builds the snapshot cache of one snapshot file: for each indexed member, which record lines hold
/// each of its values (see ``SnapshotCacheFile``).
///
/// The builder reads the snapshot once, as the loader does, and is as strict: a line that fails its
/// checksum, a record out of order, a count that disagrees with the header or an incomplete last line
/// is an error, so that no cache is ever built from a damaged snapshot.
package enum SnapshotCacheBuilder {
    /// The postings of one member, gathered while the snapshot is read.
    private struct MemberPostings {
        var keys: [[UInt8]: [SnapshotCachePosting]] = [:]
        var missing: [SnapshotCachePosting] = []
        var unindexed: [SnapshotCachePosting] = []
    }

    /// The cache file's bytes for the snapshot at `path`, indexing `members`.
    ///
    /// - Parameter members: the names of the record members to index: distinct and not empty.
    /// - Parameter maximumLineBytes: the longest line the snapshot may have (a longer one is an error).
    /// - Throws: ``StorageError`` naming the snapshot file and line for a damaged snapshot, `invalidTransaction`
    ///   for bad member names, and I/O errors.
    package static func build(
        snapshotAt path: String, members: [String], fileSystem fs: any FileSystem,
        maximumLineBytes: Int = StoreConfiguration.defaultMaximumLineBytes
    ) throws -> [UInt8] {
        guard !members.contains(where: \.isEmpty), Set(members).count == members.count else {
            throw StorageError(.invalidTransaction, "the members to index must be distinct, non-empty names: \(members)", file: path)
        }
        let file = try fs.open(path, .read)
        defer { fs.close(file) }
        let status = try fs.status(file)
        let name = path.split(separator: "/").last.map(String.init) ?? path
        let fileEntity = name.hasSuffix(".jsonl") ? String(name.dropLast(6)) : name
        let writer = CanonicalJSONWriter()
        var gathered = [MemberPostings](repeating: MemberPostings(), count: members.count)
        var header: SnapshotFile.Header? = nil
        var headerLineChecksum: UInt32 = 0
        var previousID: Int64? = nil
        let result = try LineScanner.scan(fs, file, maximumLineBytes: maximumLineBytes) { line in
            do {
                if line.number == 1 {
                    headerLineChecksum = CRC32.checksum(line.bytes)
                    let decoded = try SnapshotFile.decodeHeader(try LineFraming.decode(line.bytes))
                    guard decoded.entity == fileEntity else {
                        throw StorageError(.malformedLine, "header names entity \"\(decoded.entity)\" but the file is \(name)")
                    }
                    header = decoded
                    return
                }
                let (id, values) = try SnapshotFile.fastRecord(line.bytes) ?? SnapshotFile.decodeRecord(try LineFraming.decode(line.bytes))
                guard IdentifierLimits.isValid(id) else {
                    throw StorageError(.malformedLine, "record identifier \(id) is out of range (1…2^62-1)")
                }
                if let previousID, id <= previousID {
                    throw StorageError(
                        .inconsistentStore, id == previousID ? "record \(id) appears twice" : "record \(id) is out of order (after \(previousID))")
                }
                previousID = id
                let posting = SnapshotCachePosting(id: id, offset: line.offset, length: line.bytes.count)
                try gather(posting, values, members: members, with: writer, into: &gathered)
            } catch var error as StorageError {
                error.file = path
                error.line = line.number
                error.offset = line.offset + (error.offset ?? 0)
                throw error
            }
        }
        guard let header else {
            throw StorageError(.malformedLine, "snapshot file has no header line", file: path, line: 1, offset: 0)
        }
        if result.tailLength > 0 {
            throw StorageError(
                .malformedLine, "snapshot ends in an incomplete line (\(result.tailLength) bytes)", file: path, line: result.lineCount + 1,
                offset: result.validEnd)
        }
        if header.records != result.lineCount - 1 {
            throw StorageError(
                .inconsistentStore, "header says \(header.records) records but the file has \(result.lineCount - 1)", file: path, line: 1,
                offset: 0)
        }
        // The identity recorded must be that of the bytes read: a file changed in place meanwhile is refused.
        let after = try fs.status(file)
        guard after.size == status.size, after.modificationTime == status.modificationTime, result.validEnd == status.size else {
            throw StorageError(.inconsistentStore, "the snapshot changed while its cache was being built; build it again", file: path)
        }
        let source = SnapshotCacheSource(
            size: status.size, device: status.device, inode: status.inode, modificationTime: status.modificationTime, entity: header.entity,
            records: UInt64(header.records), sequence: header.sequence, headerLineChecksum: headerLineChecksum)
        return encode(source: source, members: members, gathered: gathered)
    }

    /// The cache file's bytes for records already in memory, with where each one's line is in the
    /// snapshot described by `source`: for a compaction that has just written that snapshot, so that
    /// it need not read it back. The result is byte for byte what ``build(snapshotAt:members:fileSystem:maximumLineBytes:)``
    /// gives for that file.
    ///
    /// - Parameter records: every record of the snapshot, in ascending id order (the file's order), each
    ///   with its posting (id, line offset and length).
    /// - Throws: ``StorageError`` `invalidTransaction` for bad member names, records out of order or a
    ///   count other than `source.records`; `unencodableValue` for a non-finite double.
    package static func build(
        source: SnapshotCacheSource, members: [String], records: some Sequence<(posting: SnapshotCachePosting, values: RecordValues)>
    ) throws -> [UInt8] {
        guard !members.contains(where: \.isEmpty), Set(members).count == members.count else {
            throw StorageError(.invalidTransaction, "the members to index must be distinct, non-empty names: \(members)")
        }
        let writer = CanonicalJSONWriter()
        var gathered = [MemberPostings](repeating: MemberPostings(), count: members.count)
        var previousID: Int64? = nil
        var count: UInt64 = 0
        for (posting, values) in records {
            if let previousID, posting.id <= previousID {
                throw StorageError(.invalidTransaction, "record \(posting.id) comes after \(previousID): records must be in ascending id order")
            }
            previousID = posting.id
            count += 1
            try gather(posting, values, members: members, with: writer, into: &gathered)
        }
        guard count == source.records else {
            throw StorageError(.invalidTransaction, "\(count) records were given for a snapshot of \(source.records)")
        }
        return encode(source: source, members: members, gathered: gathered)
    }

    /// Builds the cache of the snapshot at `path` and puts it at `cachePath` (see ``write(_:to:fileSystem:)``).
    package static func write(
        snapshotAt path: String, members: [String], fileSystem fs: any FileSystem, to cachePath: String,
        maximumLineBytes: Int = StoreConfiguration.defaultMaximumLineBytes
    ) throws {
        try write(try build(snapshotAt: path, members: members, fileSystem: fs, maximumLineBytes: maximumLineBytes), to: cachePath, fileSystem: fs)
    }

    /// Puts a cache's bytes at `cachePath` atomically (a temporary file beside it, then a rename),
    /// creating the cache's folder if needed.
    ///
    /// Nothing is fsynced: a cache lost in a crash is simply built again, and a reader checks every byte.
    /// - Throws: ``StorageError`` `outsideStore` when the cache's folder is a symbolic link (it may lead
    ///   out of the store, where Folio never writes), and I/O errors.
    package static func write(_ bytes: [UInt8], to cachePath: String, fileSystem fs: any FileSystem) throws {
        let folder = PosixFileSystem.directory(of: cachePath)
        if let target = try fs.symbolicLinkTarget(atPath: folder) {
            throw StorageError(
                .outsideStore, "is a symbolic link (to \(target)); Folio writes caches only inside the store: remove the link", file: folder)
        }
        try fs.makeDirectory(folder)
        if try fs.status(atPath: "\(folder)/.gitignore") == nil {
            // Git then leaves the folder out of every commit of a store under version control, with no
            // set-up: the caches are derived, and another clone builds its own.
            try replace(
                "\(folder)/.gitignore", with: Array("# Derived snapshot caches (see docs/file-format.md): never committed.\n*\n".utf8),
                fileSystem: fs)
        }
        try replace(cachePath, with: bytes, fileSystem: fs)
    }

    /// Puts `bytes` at `path` by writing a temporary file beside it and renaming it over `path`, without
    /// fsync: a reader sees the old file or the new one, never a part.
    private static func replace(_ path: String, with bytes: [UInt8], fileSystem fs: any FileSystem) throws {
        let temporary = PosixFileSystem.temporaryPath(for: path)
        let file = try fs.open(temporary, .createExclusive)
        do {
            try fs.writeAll(file, bytes, at: 0)
            fs.close(file)
            try fs.rename(temporary, to: path)
        } catch {
            fs.close(file)
            try? fs.unlink(temporary)
            throw error
        }
    }

    /// Files one record under each member: its key, missing, or unindexed.
    private static func gather(
        _ posting: SnapshotCachePosting, _ values: RecordValues, members: [String], with writer: CanonicalJSONWriter,
        into gathered: inout [MemberPostings]
    ) throws {
        for (index, member) in members.enumerated() {
            guard let value = values[member] else {
                gathered[index].missing.append(posting)
                continue
            }
            switch value {
            case .array, .object:
                gathered[index].unindexed.append(posting)
            default:
                let key = try writer.bytes(lookupKey(value))
                if key.count > SnapshotCacheFile.maximumKeyBytes {
                    gathered[index].unindexed.append(posting)
                } else {
                    gathered[index].keys[key, default: []].append(posting)
                }
            }
        }
    }

    /// The key a value is filed under: the value itself, but for a string that is not ASCII, its
    /// canonical composition (NFC). Swift compares strings by canonical equivalence ("é" as one scalar
    /// or as "e" and an accent, "K" and the Kelvin sign), so a lookup of either form must find both;
    /// ASCII text is its own composition and is filed as it is.
    package static func lookupKey(_ value: JSONValue) -> JSONValue {
        guard case .string(let text) = value, !text.isASCII else { return value }
        return .string(text.canonicalComposition)
    }

    /// Lays the file out: header, every member's directory, then every posting list.
    private static func encode(source: SnapshotCacheSource, members: [String], gathered: [MemberPostings]) -> [UInt8] {
        let headerLength = SnapshotCacheHeader.length(entity: source.entity, memberNames: members)
        let sortedKeys = gathered.map { $0.keys.keys.sorted { $0.lexicographicallyPrecedes($1) } }
        let directoryLengths = sortedKeys.map { keys in
            keys.count * SnapshotCacheFile.directoryEntryLength + keys.reduce(0) { $0 + $1.count }
        }
        let postingsStart = headerLength + directoryLengths.reduce(0, +)

        var postings: [UInt8] = []
        func appendList(_ list: [SnapshotCachePosting]) -> SnapshotCacheHeader.PostingList {
            let start = postings.count
            for posting in list {
                postings.appendLittleEndian(posting.id)
                postings.appendLittleEndian(posting.offset)
                postings.appendLittleEndian(UInt32(clamping: posting.length))
            }
            let checksum = postings[start...].withUnsafeBufferPointer { CRC32.checksum($0) }
            return SnapshotCacheHeader.PostingList(offset: UInt64(postingsStart + start), count: UInt64(list.count), checksum: checksum)
        }

        var directories: [UInt8] = []
        var entries: [SnapshotCacheHeader.Member] = []
        for (index, name) in members.enumerated() {
            let keys = sortedKeys[index]
            let directoryStart = directories.count
            var keyBytes: [UInt8] = []
            var table: [UInt8] = []
            table.reserveCapacity(keys.count * SnapshotCacheFile.directoryEntryLength)
            for key in keys {
                let list = appendList(gathered[index].keys[key] ?? [])
                table.appendLittleEndian(UInt64(keyBytes.count))
                table.appendLittleEndian(UInt32(key.count))
                table.appendLittleEndian(list.checksum)
                table.appendLittleEndian(list.offset)
                table.appendLittleEndian(list.count)
                keyBytes.append(contentsOf: key)
            }
            directories.append(contentsOf: table)
            directories.append(contentsOf: keyBytes)
            let checksum = directories[directoryStart...].withUnsafeBufferPointer { CRC32.checksum($0) }
            entries.append(
                SnapshotCacheHeader.Member(
                    name: name, directoryOffset: UInt64(headerLength + directoryStart), directoryLength: UInt64(directoryLengths[index]),
                    keyCount: UInt64(keys.count), directoryChecksum: checksum, missing: appendList(gathered[index].missing),
                    unindexed: appendList(gathered[index].unindexed)))
        }
        let header = SnapshotCacheHeader(
            fileLength: UInt64(postingsStart + postings.count), source: source, maximumKeyBytes: UInt32(SnapshotCacheFile.maximumKeyBytes),
            members: entries)
        return header.encoded() + directories + postings
    }
}
