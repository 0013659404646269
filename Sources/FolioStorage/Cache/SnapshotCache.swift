/// An open snapshot cache: answers "which records of the snapshot hold this value of this member" by
/// reading only that value's postings, and reads those records' lines from the snapshot.
///
/// ``open(at:snapshotAt:fileSystem:)`` reads the cache's header and directories only, and checks them
/// against the snapshot file as it is now. The cache and the snapshot stay open (they are closed when the
/// cache is released), so a snapshot replaced by a compaction later does not change what this cache reads:
/// its answers are about the snapshot version it was opened against (``source``).
///
/// Every byte read from the cache is under a checksum and every count and offset is checked against the
/// file's length before anything is sized by it; a record read through a posting is checked again
/// (its line's `$crc` and its id), so a damaged cache gives an error, never a wrong record.
package final class SnapshotCache: Sendable {
    /// The cache file's path.
    package let path: String
    /// The snapshot file's path.
    package let snapshotPath: String
    /// The snapshot version the cache describes.
    package let source: SnapshotCacheSource
    /// The indexed members, in the order they were given to the builder.
    package let members: [String]

    private let header: SnapshotCacheHeader
    private let memberIndex: [String: Int]
    /// Each member's directory bytes, checksum verified and every entry's ranges checked.
    private let directories: [[UInt8]]
    private let fileSystem: any FileSystem
    private let cacheFile: FileDescriptor
    private let snapshotFile: FileDescriptor

    private init(
        path: String, snapshotPath: String, header: SnapshotCacheHeader, directories: [[UInt8]], fileSystem: any FileSystem,
        cacheFile: FileDescriptor, snapshotFile: FileDescriptor
    ) {
        self.path = path
        self.snapshotPath = snapshotPath
        self.header = header
        self.source = header.source
        self.members = header.members.map(\.name)
        self.memberIndex = Dictionary(header.members.enumerated().map { ($0.element.name, $0.offset) }, uniquingKeysWith: { first, _ in first })
        self.directories = directories
        self.fileSystem = fileSystem
        self.cacheFile = cacheFile
        self.snapshotFile = snapshotFile
    }

    deinit {
        fileSystem.close(cacheFile)
        fileSystem.close(snapshotFile)
    }

    /// The entity whose snapshot this cache indexes.
    package var entity: String { source.entity }

    // MARK: Opening

    /// Opens the cache at `cachePath` of the snapshot at `snapshotPath` (`STORE/cache/E.snapshot-cache`
    /// and `STORE/snapshots/E.jsonl`), or says why it cannot be used.
    ///
    /// The entity is the snapshot file's name without `.jsonl`. Reads the cache's header and directories
    /// (never the postings) and the snapshot's header line.
    ///
    /// - Returns: the cache, or a ``SnapshotCacheProblem``: `missing`, `foreign` (not a cache of this
    ///   entity, another format version, a symbolic link or not a regular file), `truncated`, `damaged` (a
    ///   checksum fails or a length points outside the file), `stale` (built from another version of the
    ///   snapshot, or the snapshot is gone).
    /// - Throws: ``StorageError`` for a failed system call only.
    package static func open(
        at cachePath: String, snapshotAt snapshotPath: String, fileSystem fs: any FileSystem
    ) throws -> Result<SnapshotCache, SnapshotCacheProblem> {
        func problem(_ reason: SnapshotCacheProblem.Reason, _ detail: String) -> Result<SnapshotCache, SnapshotCacheProblem> {
            .failure(SnapshotCacheProblem(reason, path: cachePath, detail))
        }
        guard let status = try fs.status(atPath: cachePath) else { return problem(.missing, "there is no cache file") }
        // Folio writes a cache by rename into a real folder, never as a link: a link may lead out of the
        // store, so it is not read.
        if try fs.symbolicLinkTarget(atPath: cachePath) != nil || fs.symbolicLinkTarget(atPath: PosixFileSystem.directory(of: cachePath)) != nil {
            return problem(.foreign, "is reached through a symbolic link, not a cache file Folio wrote")
        }
        guard status.isRegularFile else { return problem(.foreign, "is not a regular file") }
        let cacheFile: FileDescriptor
        do {
            cacheFile = try fs.open(cachePath, .read)
        } catch let error as StorageError where error.code == .notRegularFile || error.errno == ENOENT {
            return error.errno == ENOENT ? problem(.missing, "was removed while it was opened") : problem(.foreign, "is not a regular file")
        }
        var keepCache = false
        defer { if !keepCache { fs.close(cacheFile) } }
        let checked = try readHeader(cacheFile, path: cachePath, fileSystem: fs)
        let header: SnapshotCacheHeader
        switch checked {
        case .failure(let failure): return .failure(failure)
        case .success(let read): header = read
        }

        let name = snapshotPath.split(separator: "/").last.map(String.init) ?? snapshotPath
        let snapshotEntity = name.hasSuffix(".jsonl") ? String(name.dropLast(6)) : name
        guard header.source.entity == snapshotEntity else {
            return problem(.foreign, "is the cache of entity \"\(header.source.entity)\", not of \(name)")
        }

        // The snapshot, as it is now.
        guard try fs.status(atPath: snapshotPath) != nil else { return problem(.stale, "the snapshot \(snapshotPath) is gone") }
        let snapshotFile: FileDescriptor
        do {
            snapshotFile = try fs.open(snapshotPath, .read)
        } catch let error as StorageError where error.code == .notRegularFile || error.errno == ENOENT {
            return problem(.stale, "the snapshot \(snapshotPath) is gone or not a regular file")
        }
        var keepSnapshot = false
        defer { if !keepSnapshot { fs.close(snapshotFile) } }
        let snapshotStatus = try fs.status(snapshotFile)
        guard header.source.isSameFile(as: snapshotStatus) else {
            return problem(
                .stale,
                "was built from another version of \(snapshotPath) (size \(header.source.size), inode \(header.source.inode); now \(snapshotStatus.size), inode \(snapshotStatus.inode))"
            )
        }
        guard let headerLine = try firstLine(snapshotFile, size: snapshotStatus.size, fileSystem: fs),
            CRC32.checksum(headerLine) == header.source.headerLineChecksum,
            let snapshotHeader = try? headerLine.withUnsafeBufferPointer({ try SnapshotFile.decodeHeader(try LineFraming.decode($0)) }),
            snapshotHeader.entity == header.source.entity, UInt64(snapshotHeader.records) == header.source.records,
            snapshotHeader.sequence == header.source.sequence
        else {
            return problem(.stale, "the header line of \(snapshotPath) is not the one the cache was built from")
        }

        // Directories.
        var directories: [[UInt8]] = []
        directories.reserveCapacity(header.members.count)
        // Every region the header and the directories point at: together they must tile the file.
        var regions: [(start: UInt64, length: UInt64)] = []
        for member in header.members {
            // Lengths are within the file (checked with the header): the allocation is bounded by its size.
            guard
                let bytes = try readExactly(
                    cacheFile, count: Int(member.directoryLength), at: Int64(member.directoryOffset), fileSystem: fs)
            else {
                return problem(.truncated, "the directory of member \"\(member.name)\" ends past the end of the file")
            }
            guard CRC32.checksum(bytes) == member.directoryChecksum else {
                return problem(.damaged, "the directory of member \"\(member.name)\" fails its checksum")
            }
            switch checkDirectory(bytes, member: member, header: header) {
            case .failure(let failure): return problem(.damaged, failure.detail)
            case .success(let listed): regions += listed
            }
            directories.append(bytes)
        }
        if let detail = checkTiling(regions, header: header) { return problem(.damaged, detail) }
        keepCache = true
        keepSnapshot = true
        return .success(
            SnapshotCache(
                path: cachePath, snapshotPath: snapshotPath, header: header, directories: directories, fileSystem: fs, cacheFile: cacheFile,
                snapshotFile: snapshotFile))
    }

    /// Reads and checks the prefix and the header: magic and version first (as the manifest's version is
    /// checked before its checksum), then the prefix's checksum, the file's length, the header's checksum.
    private static func readHeader(
        _ file: FileDescriptor, path: String, fileSystem fs: any FileSystem
    ) throws -> Result<SnapshotCacheHeader, SnapshotCacheProblem> {
        func problem(_ reason: SnapshotCacheProblem.Reason, _ detail: String) -> Result<SnapshotCacheHeader, SnapshotCacheProblem> {
            .failure(SnapshotCacheProblem(reason, path: path, detail))
        }
        let size = try fs.status(file).size
        let prefixLength = SnapshotCacheFile.prefixLength
        let available = Int(min(Int64(prefixLength), max(0, size)))
        guard let prefix = try readExactly(file, count: available, at: 0, fileSystem: fs) else {
            return problem(.truncated, "the file shrank while it was read")
        }
        let magic = SnapshotCacheFile.magic
        guard prefix.prefix(magic.count).elementsEqual(magic.prefix(min(magic.count, prefix.count))) else {
            return problem(.foreign, "does not start with the snapshot cache magic bytes")
        }
        guard prefix.count == prefixLength else {
            return problem(.truncated, "is \(size) bytes, shorter than a cache file's \(prefixLength)-byte prefix")
        }
        let version = LittleEndianReader.u32(prefix, at: 8)
        guard version == SnapshotCacheFile.version else {
            return problem(.foreign, "has format version \(version); this Folio reads version \(SnapshotCacheFile.version)")
        }
        guard CRC32.checksum(Array(prefix[0..<24])) == LittleEndianReader.u32(prefix, at: 24) else {
            return problem(.damaged, "the file's first \(prefixLength) bytes fail their checksum")
        }
        let headerLength = Int64(LittleEndianReader.u32(prefix, at: 12))
        let fileLength = LittleEndianReader.u64(prefix, at: 16)
        guard fileLength <= UInt64(Int64.max), Int64(fileLength) <= size else {
            return problem(.truncated, "is \(size) bytes but was written with \(fileLength)")
        }
        guard Int64(fileLength) == size else {
            return problem(.damaged, "is \(size) bytes but was written with \(fileLength)")
        }
        guard headerLength >= Int64(SnapshotCacheFile.fixedHeaderLength + 4), headerLength <= size else {
            return problem(.damaged, "the header length, \(headerLength), does not fit the file")
        }
        guard let bytes = try readExactly(file, count: Int(headerLength), at: 0, fileSystem: fs) else {
            return problem(.truncated, "the file shrank while it was read")
        }
        let stored = LittleEndianReader.u32(bytes, at: bytes.count - 4)
        guard bytes.withUnsafeBufferPointer({ CRC32.checksum(UnsafeBufferPointer(rebasing: $0.dropLast(4))) }) == stored else {
            return problem(.damaged, "the header fails its checksum")
        }
        do {
            return .success(try SnapshotCacheHeader.decode(bytes))
        } catch {
            return problem(.damaged, error.detail)
        }
    }

    /// Checks a directory (its checksum already verified) against its header entry: its keys lie one
    /// after the other in increasing byte order, each no longer than the maximum, and its posting lists,
    /// with the member's missing and unindexed ones, list every record of the snapshot once. Returns the
    /// regions of the file the member uses. Together with ``checkTiling(_:header:)`` this refuses a
    /// header edited with its checksum made right, whose counts or offsets would give a wrong answer.
    private static func checkDirectory(
        _ bytes: [UInt8], member: SnapshotCacheHeader.Member, header: SnapshotCacheHeader
    ) -> Result<[(start: UInt64, length: UInt64)], SnapshotCacheHeader.Malformed> {
        func failure(_ detail: String) -> Result<[(start: UInt64, length: UInt64)], SnapshotCacheHeader.Malformed> {
            .failure(SnapshotCacheHeader.Malformed(detail: "member \"\(member.name)\": \(detail)"))
        }
        let count = Int(member.keyCount)
        let tableLength = count * SnapshotCacheFile.directoryEntryLength
        let keyArea = bytes.count - tableLength
        let width = UInt64(SnapshotCacheFile.postingLength)
        var regions: [(start: UInt64, length: UInt64)] = [(member.directoryOffset, member.directoryLength)]
        var postings = member.missing.count
        guard member.unindexed.count <= UInt64(Int64.max) - postings else { return failure("the posting counts overflow") }
        postings += member.unindexed.count
        regions.append((member.missing.offset, member.missing.count * width))
        regions.append((member.unindexed.offset, member.unindexed.count * width))
        var nextKey = 0
        var previous: ArraySlice<UInt8>? = nil
        for index in 0..<count {
            let entry = index * SnapshotCacheFile.directoryEntryLength
            let keyOffset = LittleEndianReader.u64(bytes, at: entry)
            let keyLength = Int(LittleEndianReader.u32(bytes, at: entry + 8))
            let postingsOffset = LittleEndianReader.u64(bytes, at: entry + 16)
            let postingsCount = LittleEndianReader.u64(bytes, at: entry + 24)
            guard keyOffset == UInt64(nextKey), keyLength <= keyArea - nextKey, keyLength <= Int(header.maximumKeyBytes) else {
                return failure("key \(index + 1) does not follow the one before it in the directory")
            }
            let key = bytes[(tableLength + nextKey)..<(tableLength + nextKey + keyLength)]
            if let previous, !previous.lexicographicallyPrecedes(key) {
                return failure("key \(index + 1) is not after the one before it")
            }
            previous = key
            nextKey += keyLength
            guard postingsOffset <= header.fileLength, postingsCount <= (header.fileLength - postingsOffset) / width,
                postingsCount <= UInt64(Int64.max) - postings
            else {
                return failure("the postings of key \(index + 1) lie outside the file")
            }
            postings += postingsCount
            regions.append((postingsOffset, postingsCount * width))
        }
        guard nextKey == keyArea else { return failure("the directory has \(keyArea - nextKey) bytes after its last key") }
        guard postings == header.source.records else {
            return failure("the postings list \(postings) records, but the snapshot has \(header.source.records)")
        }
        return .success(regions)
    }

    /// Whether the header, the directories and the posting lists cover the file exactly, each byte once.
    private static func checkTiling(_ regions: [(start: UInt64, length: UInt64)], header: SnapshotCacheHeader) -> String? {
        var end = UInt64(SnapshotCacheHeader.length(entity: header.source.entity, memberNames: header.members.map(\.name)))
        for region in regions.filter({ $0.length > 0 }).sorted(by: { $0.start < $1.start }) {
            guard region.start == end else {
                return region.start < end ? "two regions of the file overlap at byte \(region.start)" : "the file has unused bytes at \(end)"
            }
            end += region.length
        }
        return end == header.fileLength ? nil : "the file has unused bytes at \(end)"
    }

    /// The snapshot's first line (without `\n` and a `\r` before it), or nil when the first 64 KiB hold
    /// no line: a header is far shorter, so such a file is not the one cached.
    private static func firstLine(_ file: FileDescriptor, size: Int64, fileSystem fs: any FileSystem) throws -> [UInt8]? {
        let count = Int(min(max(0, size), 64 << 10))
        guard let bytes = try readExactly(file, count: count, at: 0, fileSystem: fs), var end = bytes.firstIndex(of: 0x0A) else {
            return nil
        }
        if end > 0 && bytes[end - 1] == 0x0D { end -= 1 }
        return Array(bytes[0..<end])
    }

    /// Exactly `count` bytes at `offset`, or nil when the file ends first.
    private static func readExactly(_ file: FileDescriptor, count: Int, at offset: Int64, fileSystem fs: any FileSystem) throws -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let read = try bytes.withUnsafeMutableBytes { buffer in
                try fs.read(file, into: UnsafeMutableRawBufferPointer(rebasing: buffer[done...]), at: offset + Int64(done))
            }
            if read <= 0 { return nil }
            done += read
        }
        return bytes
    }

    // MARK: Lookups

    /// The postings of the records whose value of `member` is `key`, in ascending id order: read from the
    /// cache and checked against their checksum.
    ///
    /// A key matches by its canonical JSON bytes: `.int(1)` and `.double(1.0)`, or `0.0` and `-0.0`, are
    /// different keys, as they are different values in the file.
    ///
    /// - Returns: `nil` when the cache cannot answer: `member` is not indexed, or `key` is of a kind the
    ///   cache leaves unindexed (an object, an array, a key longer than its maximum) and some records hold
    ///   such values (``unindexedPostings(member:)``). A key no record has gives `[]`.
    /// - Throws: ``StorageError`` (`checksumMismatch`, naming the cache file) when the postings are damaged.
    package func lookup(member: String, key: JSONValue) throws -> [SnapshotCachePosting]? {
        guard let index = memberIndex[member] else { return nil }
        let entry = header.members[index]
        let keyBytes: [UInt8]
        switch key {
        case .array, .object:
            return entry.unindexed.count == 0 ? [] : nil
        default:
            // A double no file can hold (NaN, infinity) is no record's value.
            guard let bytes = try? CanonicalJSONWriter().bytes(key) else { return [] }
            keyBytes = bytes
        }
        if keyBytes.count > Int(header.maximumKeyBytes) { return entry.unindexed.count == 0 ? [] : nil }
        guard let found = Self.find(keyBytes, in: directories[index], keyCount: Int(entry.keyCount)) else { return [] }
        return try readPostings(found, what: "the postings of key \(String(decoding: keyBytes, as: UTF8.self)) of member \"\(member)\"")
    }

    /// The postings of the records whose values lack `member` (which a caller reads as the member's
    /// default); nil when `member` is not indexed.
    package func missingPostings(member: String) throws -> [SnapshotCachePosting]? {
        guard let index = memberIndex[member] else { return nil }
        return try readPostings(header.members[index].missing, what: "the postings of records without member \"\(member)\"")
    }

    /// The postings of the records whose value of `member` is an object, an array or a key longer than
    /// the cache's maximum: those the directory leaves out; nil when `member` is not indexed.
    package func unindexedPostings(member: String) throws -> [SnapshotCachePosting]? {
        guard let index = memberIndex[member] else { return nil }
        return try readPostings(header.members[index].unindexed, what: "the unindexed postings of member \"\(member)\"")
    }

    /// Whether every record is either under one of `member`'s keys or among its missing postings (no
    /// value of it is an object, an array or too long a key); nil when `member` is not indexed.
    package func isFullyIndexed(member: String) -> Bool? {
        memberIndex[member].map { header.members[$0].unindexed.count == 0 }
    }

    /// The number of distinct keys of `member`; nil when it is not indexed.
    package func keyCount(member: String) -> Int? {
        memberIndex[member].map { Int(header.members[$0].keyCount) }
    }

    /// The posting list of `key` in a directory, by binary search over the keys' bytes.
    private static func find(_ key: [UInt8], in directory: [UInt8], keyCount: Int) -> SnapshotCacheHeader.PostingList? {
        let keyArea = keyCount * SnapshotCacheFile.directoryEntryLength
        var low = 0, high = keyCount
        while low < high {
            let middle = (low + high) / 2
            let entry = middle * SnapshotCacheFile.directoryEntryLength
            // Ranges were checked when the directory was opened.
            let start = keyArea + Int(LittleEndianReader.u64(directory, at: entry))
            let length = Int(LittleEndianReader.u32(directory, at: entry + 8))
            let candidate = directory[start..<(start + length)]
            if candidate.elementsEqual(key) {
                return SnapshotCacheHeader.PostingList(
                    offset: LittleEndianReader.u64(directory, at: entry + 16), count: LittleEndianReader.u64(directory, at: entry + 24),
                    checksum: LittleEndianReader.u32(directory, at: entry + 12))
            }
            if candidate.lexicographicallyPrecedes(key) { low = middle + 1 } else { high = middle }
        }
        return nil
    }

    /// Reads a posting list (its range checked against the file when it was opened) and checks its CRC.
    private func readPostings(_ list: SnapshotCacheHeader.PostingList, what: String) throws -> [SnapshotCachePosting] {
        let width = SnapshotCacheFile.postingLength
        guard list.offset <= header.fileLength, list.count <= (header.fileLength - list.offset) / UInt64(width) else {
            throw StorageError(.malformedLine, "\(what) lie outside the cache file; delete it to rebuild it", file: path)
        }
        guard let bytes = try Self.readExactly(cacheFile, count: Int(list.count) * width, at: Int64(list.offset), fileSystem: fileSystem)
        else {
            throw StorageError(.malformedLine, "\(what) end past the end of the cache file; delete it to rebuild it", file: path)
        }
        guard CRC32.checksum(bytes) == list.checksum else {
            throw StorageError(
                .checksumMismatch, "\(what) fail their checksum: the cache is damaged; delete it to rebuild it", file: path,
                offset: Int64(list.offset))
        }
        var postings: [SnapshotCachePosting] = []
        postings.reserveCapacity(Int(list.count))
        for index in 0..<Int(list.count) {
            let at = index * width
            postings.append(
                SnapshotCachePosting(
                    id: Int64(bitPattern: LittleEndianReader.u64(bytes, at: at)),
                    offset: Int64(bitPattern: LittleEndianReader.u64(bytes, at: at + 8)),
                    length: Int(LittleEndianReader.u32(bytes, at: at + 16))))
        }
        return postings
    }

    // MARK: Records

    /// Reads the record a posting names from the snapshot: the line at its offset, which must be a whole
    /// line, pass its `$crc` and hold the posting's id.
    ///
    /// - Throws: ``StorageError`` naming the cache file, the record id and the offset (`checksumMismatch`,
    ///   `malformedLine`, or `inconsistentStore` when the line holds another record), never a wrong record.
    package func readRecord(_ posting: SnapshotCachePosting) throws -> (id: Int64, values: RecordValues) {
        func failure(_ code: StorageError.Code, _ detail: String) -> StorageError {
            StorageError(
                code,
                "record \(posting.id): \(detail) at byte \(posting.offset) of \(snapshotPath); the cache is damaged: delete it to rebuild it",
                file: path, offset: posting.offset)
        }
        let size = source.size
        // The line with the `\n` before it and the one after it: a whole line, and never more than the file.
        guard posting.offset >= 1, posting.length >= 2, posting.offset <= size, Int64(posting.length) <= size - posting.offset - 1 else {
            throw failure(.malformedLine, "the posting's line lies outside the snapshot")
        }
        guard let bytes = try Self.readExactly(snapshotFile, count: posting.length + 2, at: posting.offset - 1, fileSystem: fileSystem) else {
            throw failure(.malformedLine, "the snapshot ends inside the posting's line")
        }
        let after = bytes[bytes.count - 1]
        guard bytes[0] == 0x0A, after == 0x0A || after == 0x0D else {
            throw failure(.malformedLine, "the posting is not a whole line")
        }
        let record: (Int64, RecordValues)
        do {
            record = try bytes.withUnsafeBufferPointer { buffer in
                let line = UnsafeBufferPointer(rebasing: buffer[1..<(buffer.count - 1)])
                return try SnapshotFile.fastRecord(line) ?? SnapshotFile.decodeRecord(try LineFraming.decode(line))
            }
        } catch let error as StorageError {
            throw failure(error.code, error.message)
        }
        guard record.0 == posting.id else {
            throw failure(.inconsistentStore, "the line holds record \(record.0)")
        }
        return (record.0, record.1)
    }

    /// The records of `postings`, in their order (``readRecord(_:)`` for each).
    package func readRecords(_ postings: [SnapshotCachePosting]) throws -> [(id: Int64, values: RecordValues)] {
        // Announced first, so that a cold file's scattered lines are read together.
        if postings.count > 1 {
            fileSystem.willRead(snapshotFile, ranges: postings.map(Self.readAheadRange))
        }
        return try postings.map(readRecord)
    }

    /// The bytes ``readRecord(_:)`` reads for `posting` (its line and the byte on each side), for the
    /// read-ahead advice. A posting's numbers come from the cache file and may be anything until
    /// ``readRecord(_:)`` checks them, so they are clamped where `offset - 1` and `length + 2` would
    /// overflow.
    static func readAheadRange(of posting: SnapshotCachePosting) -> (offset: Int64, length: Int) {
        (max(1, posting.offset) - 1, min(posting.length, Int.max - 2) + 2)
    }
}
