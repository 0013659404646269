/// One entry of a git tree, as `git ls-tree -r -z -l` lists it, with its path inside the listed tree.
struct GitTreeEntry: Sendable, Hashable {
    /// What the entry is in a checkout.
    enum Kind: Sendable, Hashable {
        /// A file (mode 100644 or 100755).
        case regularFile
        /// A symbolic link (mode 120000): its blob holds the link's target.
        case symbolicLink
        /// A submodule (mode 160000): a directory whose contents are another repository's.
        case submodule
    }

    var kind: Kind
    /// The object's name (hex).
    var object: String
    /// The blob's size in bytes (0 for a submodule).
    var size: Int
    /// The path inside the listed tree, `/`-separated.
    var path: String
}

/// Parses what `git ls-tree -r -z -l` writes: `<mode> SP <type> SP <object> SP* <size> TAB <path> NUL`
/// per entry. Anything else is git answering something unexpected, reported as
/// ``StorageError/Code/gitFailed``; sizes and counts are bounded before anything is allocated for them.
enum GitTreeListing {
    /// The most entries a store's folder may have at a revision.
    static let maximumEntries = 10_000_000

    static func parse(_ bytes: [UInt8], tree: String) throws -> [GitTreeEntry] {
        var entries: [GitTreeEntry] = []
        for record in bytes.split(separator: 0, omittingEmptySubsequences: true) {
            guard entries.count < maximumEntries else {
                throw StorageError(.gitFailed, "\(tree) has more than \(maximumEntries) files; it is not a Folio store")
            }
            entries.append(try entry(record, tree: tree))
        }
        return entries
    }

    private static func entry(_ record: ArraySlice<UInt8>, tree: String) throws -> GitTreeEntry {
        func unexpected() -> StorageError {
            StorageError(.gitFailed, "git ls-tree listed \(tree) in an unexpected form: \(String(decoding: record.prefix(200), as: UTF8.self))")
        }
        guard let tab = record.firstIndex(of: UInt8(ascii: "\t")) else { throw unexpected() }
        let fields = record[..<tab].split(separator: UInt8(ascii: " "), omittingEmptySubsequences: true)
        let path = String(decoding: record[(tab + 1)...], as: UTF8.self)
        guard fields.count == 4, !path.isEmpty, isHex(fields[2]) else { throw unexpected() }
        let kind: GitTreeEntry.Kind
        switch String(decoding: fields[0], as: UTF8.self) {
        case "100644", "100755", "100664": kind = .regularFile
        case "120000": kind = .symbolicLink
        case "160000": kind = .submodule
        default: throw unexpected()
        }
        let size: Int
        if kind == .submodule {
            size = 0
        } else {
            guard let parsed = decimal(fields[3]) else { throw unexpected() }
            size = parsed
        }
        return GitTreeEntry(kind: kind, object: String(decoding: fields[2], as: UTF8.self), size: size, path: path)
    }

    /// Lowercase hex of a SHA-1 or SHA-256 object name.
    static func isHex(_ bytes: some Collection<UInt8>) -> Bool {
        (bytes.count == 40 || bytes.count == 64)
            && bytes.allSatisfy { ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) || ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "f")) }
    }

    /// A decimal of at most 18 digits (no overflow), or nil.
    static func decimal(_ bytes: some Collection<UInt8>) -> Int? {
        guard !bytes.isEmpty, bytes.count <= 18 else { return nil }
        var value = 0
        for byte in bytes {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return value
    }
}
