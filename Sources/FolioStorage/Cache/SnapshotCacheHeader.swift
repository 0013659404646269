/// The header of a snapshot cache file: its own length, the snapshot version it was built from, and
/// where each indexed member's directory and posting lists are.
///
/// Layout (little-endian, offsets in bytes; see docs/file-format.md):
/// ```
///  0  magic "FOLIOSC\0"      8  version u32      12  header length u32    16  file length u64
/// 24  CRC-32 of bytes 0..<24 u32
/// 28  snapshot size i64     36  device u64       44  inode u64            52  modification time ns i64
/// 60  header records u64    68  header sequence u64                       76  CRC-32 of the header line u32
/// 80  maximum key bytes u32 84  entity name length u32                    88  member count u32
/// 92  entity name, then per member: name length u32, name, directory offset u64, length u64, key count u64,
///     CRC u32, missing postings offset u64, count u64, CRC u32, unindexed postings offset u64, count u64, CRC u32
///     and last, the CRC-32 of every header byte before it u32
/// ```
struct SnapshotCacheHeader: Hashable, Sendable {
    /// A list of postings: `count` postings of ``SnapshotCacheFile/postingLength`` bytes at `offset`.
    struct PostingList: Hashable, Sendable {
        var offset: UInt64
        var count: UInt64
        var checksum: UInt32
    }

    /// One indexed member.
    struct Member: Hashable, Sendable {
        var name: String
        /// The directory: `keyCount` entries, then the keys' bytes.
        var directoryOffset: UInt64
        var directoryLength: UInt64
        var keyCount: UInt64
        var directoryChecksum: UInt32
        /// Records whose values lack the member.
        var missing: PostingList
        /// Records whose value of the member is an object, an array or longer than the maximum key.
        var unindexed: PostingList
    }

    /// The cache file's whole length, so that a truncated or extended file is told by its size.
    var fileLength: UInt64
    var source: SnapshotCacheSource
    var maximumKeyBytes: UInt32
    var members: [Member]

    /// A header that cannot be read, in words.
    struct Malformed: Error {
        var detail: String
    }

    /// The header's length for these names (every other field has a fixed width).
    static func length(entity: String, memberNames: [String]) -> Int {
        SnapshotCacheFile.fixedHeaderLength + entity.utf8.count
            + memberNames.reduce(0) { $0 + SnapshotCacheFile.memberEntryLength + $1.utf8.count } + 4
    }

    /// The header's bytes, its two checksums included.
    func encoded() -> [UInt8] {
        let headerLength = Self.length(entity: source.entity, memberNames: members.map(\.name))
        var bytes = SnapshotCacheFile.magic
        bytes.reserveCapacity(headerLength)
        bytes.appendLittleEndian(SnapshotCacheFile.version)
        bytes.appendLittleEndian(UInt32(clamping: headerLength))
        bytes.appendLittleEndian(fileLength)
        bytes.appendLittleEndian(CRC32.checksum(bytes))
        bytes.appendLittleEndian(source.size)
        bytes.appendLittleEndian(source.device)
        bytes.appendLittleEndian(source.inode)
        bytes.appendLittleEndian(source.modificationTime)
        bytes.appendLittleEndian(source.records)
        bytes.appendLittleEndian(source.sequence)
        bytes.appendLittleEndian(source.headerLineChecksum)
        bytes.appendLittleEndian(maximumKeyBytes)
        bytes.appendLittleEndian(UInt32(clamping: source.entity.utf8.count))
        bytes.appendLittleEndian(UInt32(clamping: members.count))
        bytes.append(contentsOf: source.entity.utf8)
        for member in members {
            bytes.appendLittleEndian(UInt32(clamping: member.name.utf8.count))
            bytes.append(contentsOf: member.name.utf8)
            bytes.appendLittleEndian(member.directoryOffset)
            bytes.appendLittleEndian(member.directoryLength)
            bytes.appendLittleEndian(member.keyCount)
            bytes.appendLittleEndian(member.directoryChecksum)
            for list in [member.missing, member.unindexed] {
                bytes.appendLittleEndian(list.offset)
                bytes.appendLittleEndian(list.count)
                bytes.appendLittleEndian(list.checksum)
            }
        }
        bytes.appendLittleEndian(CRC32.checksum(bytes))
        return bytes
    }

    /// Decodes the header in `bytes` (exactly the header's bytes, its prefix and checksums already
    /// verified by the caller), checking every name and every region against `fileLength`.
    static func decode(_ bytes: [UInt8]) throws(Malformed) -> SnapshotCacheHeader {
        var reader = LittleEndianReader(bytes, at: 16)
        do {
            let fileLength = try reader.u64()
            reader.position = SnapshotCacheFile.prefixLength
            let size = Int64(bitPattern: try reader.u64())
            let device = try reader.u64()
            let inode = try reader.u64()
            let modificationTime = Int64(bitPattern: try reader.u64())
            let records = try reader.u64()
            let sequence = try reader.u64()
            let headerLineChecksum = try reader.u32()
            let maximumKeyBytes = try reader.u32()
            // Fixed in version 1: a reader that believed a larger one would miss long keys.
            guard maximumKeyBytes == UInt32(SnapshotCacheFile.maximumKeyBytes) else {
                throw Malformed(detail: "the header's maximum key length is \(maximumKeyBytes), not \(SnapshotCacheFile.maximumKeyBytes)")
            }
            let entityLength = Int(try reader.u32())
            let memberCount = Int(try reader.u32())
            // Each member takes at least its fixed entry: a count claiming more than the header holds
            // is refused before anything is sized by it.
            guard memberCount <= reader.remaining / SnapshotCacheFile.memberEntryLength else {
                throw Malformed(detail: "the header claims \(memberCount) members but holds \(bytes.count) bytes")
            }
            guard let entity = text(try reader.bytes(count: entityLength)), EntityName.isValid(entity) else {
                throw Malformed(detail: "the header's entity name is not a valid entity name")
            }
            var members: [Member] = []
            members.reserveCapacity(memberCount)
            var names = Set<String>()
            for _ in 0..<memberCount {
                let nameLength = Int(try reader.u32())
                guard let name = text(try reader.bytes(count: nameLength)), !name.isEmpty, names.insert(name).inserted else {
                    throw Malformed(detail: "member \(members.count + 1)'s name is empty, not UTF-8 or repeated")
                }
                let directoryOffset = try reader.u64()
                let directoryLength = try reader.u64()
                let keyCount = try reader.u64()
                let directoryChecksum = try reader.u32()
                var lists: [PostingList] = []
                for _ in 0..<2 {
                    lists.append(PostingList(offset: try reader.u64(), count: try reader.u64(), checksum: try reader.u32()))
                }
                let member = Member(
                    name: name, directoryOffset: directoryOffset, directoryLength: directoryLength, keyCount: keyCount,
                    directoryChecksum: directoryChecksum, missing: lists[0], unindexed: lists[1])
                try check(member, headerLength: UInt64(bytes.count), fileLength: fileLength)
                members.append(member)
            }
            guard reader.remaining == 4 else {
                throw Malformed(detail: "the header has \(reader.remaining - 4) bytes after its last member")
            }
            let source = SnapshotCacheSource(
                size: size, device: device, inode: inode, modificationTime: modificationTime, entity: entity, records: records,
                sequence: sequence, headerLineChecksum: headerLineChecksum)
            return SnapshotCacheHeader(fileLength: fileLength, source: source, maximumKeyBytes: maximumKeyBytes, members: members)
        } catch let overrun as LittleEndianReader.Overrun {
            _ = overrun
            throw Malformed(detail: "the header ends inside a field")
        } catch let malformed as Malformed {
            throw malformed
        } catch {
            throw Malformed(detail: "\(error)")
        }
    }

    /// Checks that a member's directory and posting lists lie after the header and within the file.
    private static func check(_ member: Member, headerLength: UInt64, fileLength: UInt64) throws(Malformed) {
        func within(_ offset: UInt64, _ count: UInt64, of width: UInt64) -> Bool {
            offset >= headerLength && offset <= fileLength && count <= (fileLength - offset) / width
        }
        guard within(member.directoryOffset, member.directoryLength, of: 1),
            member.keyCount <= member.directoryLength / UInt64(SnapshotCacheFile.directoryEntryLength)
        else {
            throw Malformed(detail: "member \"\(member.name)\"'s directory lies outside the file")
        }
        let width = UInt64(SnapshotCacheFile.postingLength)
        guard within(member.missing.offset, member.missing.count, of: width), within(member.unindexed.offset, member.unindexed.count, of: width)
        else {
            throw Malformed(detail: "member \"\(member.name)\"'s postings lie outside the file")
        }
    }

    /// The bytes as a string, if they are valid UTF-8.
    private static func text(_ bytes: ArraySlice<UInt8>) -> String? {
        let string = String(decoding: bytes, as: UTF8.self)
        return string.utf8.elementsEqual(bytes) ? string : nil
    }
}
