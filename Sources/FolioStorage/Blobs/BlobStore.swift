import Foundation

/// Content-addressed storage for large values (SwiftData's `.externalStorage`).
///
/// A blob lives at `blobs/<first two hex digits>/<64 hex digits>`, named by the SHA-256 of its bytes,
/// so names are never derived from user input and identical content is stored once. A record refers to
/// a blob with the reserved value shape `{"$blob":"<64 lowercase hex>"}` (see ``BlobStore/reference(_:)``).
/// Blob files are written and synced before the transaction that refers to them is appended, and
/// blobs nothing refers to are removed by compaction.
public enum BlobStore {
    /// The value a record stores to refer to a blob: `{"$blob":"<hash>"}`.
    public static func reference(_ hash: String) -> JSONValue {
        .object(["$blob": .string(hash)])
    }

    /// The blob hash if `value` has the reserved shape `{"$blob":"<64 lowercase hex>"}`.
    public static func referencedHash(_ value: JSONValue) -> String? {
        guard case .object(let members) = value, members.count == 1, case .string(let hash)? = members["$blob"],
            isValidHash(hash)
        else { return nil }
        return hash
    }

    /// Whether `hash` is 64 lowercase hexadecimal digits.
    public static func isValidHash(_ hash: String) -> Bool {
        hash.utf8.count == 64
            && hash.utf8.allSatisfy { ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) || ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "f")) }
    }

    /// Collects every blob hash referenced anywhere inside `values`.
    static func collectReferences(in values: [String: JSONValue], into hashes: inout Set<String>) {
        for value in values.values { collectReferences(in: value, into: &hashes) }
    }

    static func collectReferences(in values: RecordValues, into hashes: inout Set<String>) {
        for value in values.values { collectReferences(in: value, into: &hashes) }
    }

    static func collectReferences(in value: JSONValue, into hashes: inout Set<String>) {
        switch value {
        case .object(let members):
            if let hash = referencedHash(value) {
                hashes.insert(hash)
            } else {
                collectReferences(in: members, into: &hashes)
            }
        case .array(let elements):
            for element in elements { collectReferences(in: element, into: &hashes) }
        default:
            break
        }
    }

    static func relativePath(_ hash: String) -> String {
        "blobs/\(hash.prefix(2))/\(hash)"
    }

    /// Writes a blob durably (temporary file, fsync, rename, directory fsync) unless it already exists.
    static func write(_ data: Data, directory: String, fileSystem fs: any FileSystem) throws -> String {
        let bytes = [UInt8](data)
        let hash = SHA256.hexDigest(bytes)
        let path = "\(directory)/\(relativePath(hash))"
        if let status = try fs.status(atPath: path), status.size == Int64(bytes.count) { return hash }
        let blobs = "\(directory)/blobs"
        let shard = "\(blobs)/\(hash.prefix(2))"
        if try fs.status(atPath: shard) == nil {
            try fs.makeDirectory(blobs)
            try fs.makeDirectory(shard)
            try fs.syncDirectory(blobs)
            try fs.syncDirectory(directory)
        }
        try fs.replaceFile(at: path, with: bytes)
        return hash
    }

    /// Reads and checks a blob.
    static func read(_ hash: String, directory: String, fileSystem fs: any FileSystem) throws -> Data {
        guard isValidHash(hash) else {
            throw StorageError(.blobNotFound, "\"\(hash)\" is not a blob hash (64 lowercase hex digits)")
        }
        let path = "\(directory)/\(relativePath(hash))"
        guard try fs.status(atPath: path) != nil else {
            throw StorageError(.blobNotFound, "blob \(hash) is missing; restore the blobs folder from a backup", file: path)
        }
        let bytes = try fs.readSmallFile(path, limit: Int.max)
        guard SHA256.hexDigest(bytes) == hash else {
            throw StorageError(.blobNotFound, "blob \(hash) is damaged (its SHA-256 differs); restore it from a backup", file: path)
        }
        return Data(bytes)
    }
}
