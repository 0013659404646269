import Foundation
@testable import FolioStorage

/// A store of `Trip` and `Tag` records compacted into snapshots, with the cache of each built, and the
/// records a scan gives to compare the cache's answers with.
struct SnapshotCacheFixture {
    static let members = ["destination", "rank", "price", "flag", "note", "tags"]

    let directory: URL
    let paths: StorePaths
    /// The records of `Trip` at the compaction, by id.
    let trips: [StoredRecord]

    var snapshot: String { paths.snapshot("Trip") }
    var cache: String { paths.snapshotCache("Trip") }

    /// The values the records take: strings with escapes and non-ASCII, integers, doubles (an integer
    /// and a double of the same number, both zeros), null, Booleans, arrays and a string too long to
    /// be a key; some records lack some members.
    static func values(_ n: Int) -> [String: JSONValue] {
        let destinations = ["City0", "City1", "Zürich 東京", "quo\"te\\back\nline\u{2028}", "\u{7F}\u{9F}tab\t", ""]
        var values: [String: JSONValue] = ["destination": .string(destinations[n % destinations.count])]
        if n % 5 != 4 { values["rank"] = .int(Int64(n % 4) - 1) }
        switch n % 7 {
        case 0: values["price"] = .int(3)
        case 1: values["price"] = .double(3.0)
        case 2: values["price"] = .double(0.1)
        case 3: values["price"] = .double(-0.0)
        case 4: values["price"] = .double(0.0)
        case 5: values["price"] = .double(1e20)
        default: break
        }
        values["flag"] = n % 3 == 0 ? .null : .bool(n % 2 == 0)
        if n % 4 == 0 { values["note"] = .string("note \(n % 8)") }
        if n % 11 == 0 { values["note"] = .string(String(repeating: "long ", count: 300)) }
        if n % 6 == 1 { values["tags"] = .array([.string("a"), .int(Int64(n))]) }
        if n % 6 == 2 { values["tags"] = .object(["k": .int(1)]) }
        if n % 6 == 3 { values["tags"] = .string("single") }
        return values
    }

    /// Makes the store at `directory`: `count` trips and a few tags, some deleted, compacted; then the caches.
    static func make(at directory: URL, count: Int = 120) throws -> SnapshotCacheFixture {
        let store = try Store.open(at: directory, configuration: StoreConfiguration(compactionThreshold: nil))
        defer { store.close() }
        try store.write(author: "tests") { tx in
            for n in 0..<count {
                let id = tx.allocateID()
                try tx.insert(entity: "Trip", id: id, values: values(n))
                if n % 10 == 0 { try tx.insert(entity: "Tag", id: tx.allocateID(), values: ["destination": .string("City0"), "rank": .int(1)]) }
            }
        }
        try store.write(author: "tests") { tx in
            for record in tx.records(of: "Trip") where record.id % 9 == 0 { try tx.delete(entity: "Trip", id: record.id) }
        }
        try store.compact()
        let fixture = SnapshotCacheFixture(
            directory: directory, paths: StorePaths(directory: directory.path), trips: store.records(of: "Trip").sorted { $0.id < $1.id })
        try fixture.buildCaches()
        return fixture
    }

    func buildCaches() throws {
        for entity in ["Trip", "Tag"] {
            try SnapshotCacheBuilder.write(
                snapshotAt: paths.snapshot(entity), members: Self.members, fileSystem: PosixFileSystem(), to: paths.snapshotCache(entity))
        }
    }

    /// The records whose `member` has the canonical bytes of `key`: what a scan gives.
    func scan(member: String, key: JSONValue) throws -> [StoredRecord] {
        let writer = CanonicalJSONWriter()
        let wanted = try writer.bytes(key)
        return try trips.filter { record in try record.values[member].map { try writer.bytes($0) == wanted } ?? false }
    }

    /// Every distinct value of the indexed members, and keys no record has.
    func keys(of member: String) -> [JSONValue] {
        var keys = Set(trips.compactMap { $0.values[member] })
        keys.formUnion([.string("Nowhere"), .int(999_999), .double(2.5), .string("City"), .string("City00")])
        return keys.sorted { "\($0)" < "\($1)" }
    }

    /// Opens the Trip cache, or nil with the problem.
    func open(fileSystem: any FileSystem = PosixFileSystem()) throws -> Result<SnapshotCache, SnapshotCacheProblem> {
        try SnapshotCache.open(at: cache, snapshotAt: snapshot, fileSystem: fileSystem)
    }

    func cacheBytes() throws -> [UInt8] { try readBytes(URL(fileURLWithPath: cache)) }
    func writeCache(_ bytes: [UInt8]) throws { try writeBytes(bytes, to: URL(fileURLWithPath: cache)) }
}

extension Result {
    var success: Success? {
        if case .success(let value) = self { return value }
        return nil
    }

    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}

/// The regions of a cache file, read back from its header, for tests that damage one of them.
struct SnapshotCacheRegions {
    var headerLength: Int
    var directories: Range<Int>
    var postings: Range<Int>

    init(_ bytes: [UInt8]) throws {
        headerLength = Int(LittleEndianReader.u32(bytes, at: 12))
        let header = try SnapshotCacheHeader.decode(Array(bytes[0..<headerLength]))
        let directoryEnd = header.members.map { Int($0.directoryOffset + $0.directoryLength) }.max() ?? headerLength
        directories = headerLength..<directoryEnd
        postings = directoryEnd..<bytes.count
    }

    /// Recomputes the prefix's and the header's checksums after an edit of the header.
    static func resign(_ bytes: inout [UInt8]) {
        let headerLength = Int(LittleEndianReader.u32(bytes, at: 12))
        store(CRC32.checksum(Array(bytes[0..<24])), in: &bytes, at: 24)
        store(CRC32.checksum(Array(bytes[0..<(headerLength - 4)])), in: &bytes, at: headerLength - 4)
    }

    static func store(_ value: UInt32, in bytes: inout [UInt8], at offset: Int) {
        for index in 0..<4 { bytes[offset + index] = UInt8(truncatingIfNeeded: value >> (8 * index)) }
    }

    static func store(_ value: UInt64, in bytes: inout [UInt8], at offset: Int) {
        for index in 0..<8 { bytes[offset + index] = UInt8(truncatingIfNeeded: value >> (8 * index)) }
    }
}
