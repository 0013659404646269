import Foundation
import FolioStorage

/// What `folio verify` says about a store's snapshot caches: derived files that are never trusted, so a
/// cache that cannot be used is a note (it is rebuilt when the records are next loaded), not a problem.
enum SnapshotCacheCheck {
    /// A note for each cache in `cache/` that cannot be used, naming the cache and why.
    static func notes(store url: URL) -> [String] {
        let fs = PosixFileSystem()
        let folder = url.appendingPathComponent(SnapshotCacheFile.directoryName)
        let names = (try? fs.contentsOfDirectory(folder.path)) ?? []
        var notes: [String] = []
        for name in names.sorted() where name.hasSuffix(SnapshotCacheFile.fileExtension) {
            let entity = String(name.dropLast(SnapshotCacheFile.fileExtension.count))
            let cache = folder.appendingPathComponent(name).path
            let snapshot = url.appendingPathComponent("snapshots/\(entity).jsonl").path
            let reason: String
            switch Result(catching: { try SnapshotCache.open(at: cache, snapshotAt: snapshot, fileSystem: fs) }) {
            case .success(.success): continue
            case .success(.failure(let problem)): reason = "is \(problem.reason.rawValue): \(problem.detail)"
            case .failure(let error): reason = "cannot be read: \(error)"
            }
            notes.append(
                "\(SnapshotCacheFile.directoryName)/\(name) \(reason); queries do not use it, and it is rebuilt when the records are next loaded")
        }
        return notes
    }
}
