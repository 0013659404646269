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
    package static func isValidHash(_ hash: String) -> Bool {
        hash.utf8.count == 64 && hash.utf8.allSatisfy(isLowercaseHexDigit)
    }

    /// Collects every blob hash referenced anywhere inside `values`.
    static func collectReferences(in values: [String: JSONValue], into hashes: inout Set<String>) {
        for value in values.values { collectReferences(in: value, into: &hashes) }
    }

    static func collectReferences(in values: RecordValues, into hashes: inout Set<String>) {
        // Only arrays and objects can hold a reference: the other values are not decoded.
        for slot in values.values.indices where values.values.holdsContainer(atSlot: slot) {
            collectReferences(in: values.value(atSlot: slot), into: &hashes)
        }
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

    /// Adds to `hashes` the hash of every blob reference written in `text`, canonical JSON text (as
    /// ``CanonicalJSONWriter`` writes it) of the members of an object, from just after its opening brace.
    ///
    /// It finds what ``collectReferences(in:into:)-(RecordValues,_)`` finds in those members, from their
    /// bytes: a reference's canonical text is `{"$blob":"` and 64 lowercase hexadecimal digits, then `"}`
    /// (one member, so nothing follows the hash), and `{"$` can only start an object whose first member
    /// is named `$…`, since canonical text escapes every quote inside a string. Only the object's own
    /// opening brace, which `text` leaves out, could look like a reference without being one. A commit
    /// checks the records' bytes right after writing them, on the thread that wrote them, instead of
    /// reading every value again on the saving thread.
    static func collectReferences(inCanonicalMembers text: UnsafeBufferPointer<UInt8>, into hashes: inout Set<String>) {
        guard let base = text.baseAddress, text.count >= referenceLength else { return }
        // Where a reference's `{` could be: not later than `referenceLength` bytes before the end.
        var candidate = 0
        let lastStart = text.count - referenceLength
        while candidate <= lastStart {
            // The `$` of `{"$blob` sits two bytes into a reference.
            guard let found = memchr(base + candidate + 2, Int32(UInt8(ascii: "$")), lastStart - candidate + 1) else { return }
            let start = base.distance(to: found.assumingMemoryBound(to: UInt8.self)) - 2
            candidate = start + 1
            guard referencePrefix.indices.allSatisfy({ text[start + $0] == referencePrefix[$0] }) else { continue }
            let hashStart = start + referencePrefix.count
            let hash = UnsafeBufferPointer(rebasing: text[hashStart..<(hashStart + 64)])
            guard hash.allSatisfy(isLowercaseHexDigit), text[hashStart + 64] == UInt8(ascii: "\""),
                text[hashStart + 65] == UInt8(ascii: "}")
            else { continue }
            hashes.insert(String(decoding: hash, as: UTF8.self))
            candidate = hashStart + 66
        }
    }

    /// The length of a reference's canonical text, `{"$blob":"<64 hex>"}`, and its bytes before the hash.
    private static let referenceLength = 76
    private static let referencePrefix: [UInt8] = Array(#"{"$blob":""#.utf8)

    private static func isLowercaseHexDigit(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "f"))
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
        if let root = fs.resolvedPath(directory),
            let problem = try StoreFileSafety.problem(at: path, directory: false, insideResolved: root, fileSystem: fs)
        {
            throw problem
        }
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
