/// The layout constants of a snapshot cache file, `cache/ENTITY.snapshot-cache`: a derived binary index
/// of one snapshot file (docs/file-format.md, "The snapshot cache (derived, never committed)").
///
/// Every integer is little-endian and fixed-width. The file is a header, then each indexed member's
/// directory of keys, then the postings those directories point at. Every byte is under a CRC-32, and
/// every count and offset is checked against the file's length before it is used.
package enum SnapshotCacheFile {
    /// The first eight bytes: `FOLIOSC` and a NUL.
    package static let magic: [UInt8] = [0x46, 0x4F, 0x4C, 0x49, 0x4F, 0x53, 0x43, 0x00]
    /// The format version this Folio writes and reads.
    package static let version: UInt32 = 1
    /// The name of the store's folder of caches.
    package static let directoryName = "cache"
    /// What a cache file's name ends with, after the entity name.
    package static let fileExtension = ".snapshot-cache"

    /// The cache of `snapshots/ENTITY.jsonl`, relative to the store directory.
    package static func relativePath(_ entity: String) -> String { "\(directoryName)/\(entity)\(fileExtension)" }

    /// The longest canonical JSON key the builder puts in a directory. A longer string or number goes
    /// to the member's unindexed postings, with objects and arrays, so that a directory stays small.
    package static let maximumKeyBytes = 1024

    /// Magic (8), version (4), header length (4), file length (8) and the CRC-32 of those 24 bytes.
    static let prefixLength = 28
    /// The prefix, the snapshot's identity (7 fields, 52 bytes), the maximum key length, the entity
    /// name's length and the member count: where the entity name starts.
    static let fixedHeaderLength = 92
    /// A member's entry in the header after its name: its name length (4), directory (offset, length,
    /// key count, CRC: 28), missing postings (offset, count, CRC: 20) and unindexed postings (20).
    static let memberEntryLength = 72
    /// A directory entry: key offset (8), key length (4), postings CRC (4), postings offset (8) and
    /// postings count (8).
    static let directoryEntryLength = 32
    /// A posting: record id (8), line offset (8), line length (4).
    static let postingLength = 20
}

// Little-endian fixed-width writing, the only byte order the format has.
extension Array where Element == UInt8 {
    mutating func appendLittleEndian(_ value: UInt32) {
        Swift.withUnsafeBytes(of: value.littleEndian) { append(contentsOf: $0) }
    }

    mutating func appendLittleEndian(_ value: UInt64) {
        Swift.withUnsafeBytes(of: value.littleEndian) { append(contentsOf: $0) }
    }

    mutating func appendLittleEndian(_ value: Int64) { appendLittleEndian(UInt64(bitPattern: value)) }
}

/// Reads little-endian fields from bytes read from disk; running past the end is an error, never a trap.
struct LittleEndianReader {
    /// Reading ran past the end of the bytes.
    struct Overrun: Error {}

    let bytes: [UInt8]
    var position: Int

    init(_ bytes: [UInt8], at position: Int = 0) {
        self.bytes = bytes
        self.position = position
    }

    var remaining: Int { bytes.count - position }

    mutating func u32() throws(Overrun) -> UInt32 {
        guard position >= 0, remaining >= 4 else { throw Overrun() }
        defer { position += 4 }
        return Self.u32(bytes, at: position)
    }

    mutating func u64() throws(Overrun) -> UInt64 {
        guard position >= 0, remaining >= 8 else { throw Overrun() }
        defer { position += 8 }
        return Self.u64(bytes, at: position)
    }

    mutating func bytes(count: Int) throws(Overrun) -> ArraySlice<UInt8> {
        guard position >= 0, count >= 0, remaining >= count else { throw Overrun() }
        defer { position += count }
        return bytes[position..<(position + count)]
    }

    /// The field at `offset`, which the caller has checked lies within `bytes`.
    static func u32(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        var value: UInt32 = 0
        for index in 0..<4 { value |= UInt32(bytes[offset + index]) << (8 * index) }
        return value
    }

    /// The field at `offset`, which the caller has checked lies within `bytes`.
    static func u64(_ bytes: [UInt8], at offset: Int) -> UInt64 {
        var value: UInt64 = 0
        for index in 0..<8 { value |= UInt64(bytes[offset + index]) << (8 * index) }
        return value
    }
}
