/// The files of a store directory.
struct StorePaths: Sendable {
    let directory: String
    var manifest: String { "\(directory)/manifest.json" }
    var journal: String { "\(directory)/journal.jsonl" }
    var history: String { "\(directory)/history.jsonl" }
    var snapshots: String { "\(directory)/snapshots" }
    var blobs: String { "\(directory)/blobs" }
    var lock: String { "\(directory)/lock" }
    var corruptTail: String { "\(directory)/journal.jsonl.corrupt-tail" }
    func snapshot(_ entity: String) -> String { "\(directory)/\(SnapshotFile.relativePath(entity))" }
    /// The folder of derived snapshot caches: rebuildable, never part of the store's state.
    var cacheDirectory: String { "\(directory)/\(SnapshotCacheFile.directoryName)" }
    func snapshotCache(_ entity: String) -> String { "\(directory)/\(SnapshotCacheFile.relativePath(entity))" }
}

/// Entity-name rules shared by writes and loading.
enum EntityName {
    /// ASCII letters, digits, `_`, `-`, `.`; 1 to 200 bytes; not starting with `.`.
    static func isValid(_ name: String) -> Bool {
        let utf8 = name.utf8
        guard !utf8.isEmpty, utf8.count <= 200, utf8.first != UInt8(ascii: ".") else { return false }
        return utf8.allSatisfy { byte in
            (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
                || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "_")
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
        }
    }
}

extension Store {
    /// Whether `name` can be an entity name: 1–200 ASCII letters, digits, `_`, `-` or `.`, not starting
    /// with `.`. Entity names are snapshot file names, so they are kept portable and safe.
    public static func isValidEntityName(_ name: String) -> Bool {
        EntityName.isValid(name)
    }
}
