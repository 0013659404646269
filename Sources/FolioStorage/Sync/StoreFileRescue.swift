import Foundation

/// Keeps the store's files across the undoing of a merge a killed sync left: `git merge --abort` puts
/// every file the merge touched back as it was committed, and would drop what an app saved after the
/// sync was killed.
///
/// The store's own files are copied into `folio-sync-rescue` in the git directory, and a `complete`
/// file written last; after the abort they are put back and the folder removed. A sync killed in
/// between finds the folder complete and puts them back first. Whatever the files hold then (our
/// commit plus later saves, or a merge written before the kill) is a whole store, and the next merge
/// keeps each transaction once.
enum StoreFileRescue {
    static func directory(_ git: SyncGit) -> String { git.gitDirectory.appendingPathComponent("folio-sync-rescue").path }
    static func marker(_ git: SyncGit) -> String { "\(directory(git))/complete" }

    /// Copies the store's own files in the work tree into the rescue folder.
    static func save(_ git: SyncGit) throws(GitSyncError) {
        let root = directory(git)
        try? FileManager.default.removeItem(atPath: root)
        do {
            for path in try StoreCommit.ownFiles(git) {
                let source = git.top.appendingPathComponent(path).path
                guard FileManager.default.fileExists(atPath: source) else { continue }
                let target = "\(root)/\(path)"
                try FileManager.default.createDirectory(atPath: PosixFileSystem.directory(of: target), withIntermediateDirectories: true)
                let bytes = try PosixFileSystem().readWholeFile(source, limit: StoreFileMerge.maximumFileBytes)
                try StoreFileMerge.writeFile(at: target) { output in try bytes.withUnsafeBufferPointer(output) }
            }
            try StoreFileMerge.writeFile(at: marker(git)) { _ in }
        } catch let error as GitSyncError {
            throw error
        } catch {
            throw git.failure(.gitFailed, "the store's files could not be kept in \(root) before undoing a killed sync's merge: \(error)")
        }
    }

    /// Puts back the files a complete rescue folder holds, then removes the folder; returns whether
    /// there was one.
    @discardableResult
    static func restore(_ git: SyncGit) throws(GitSyncError) -> Bool {
        let root = directory(git)
        guard FileManager.default.fileExists(atPath: marker(git)) else {
            try? FileManager.default.removeItem(atPath: root)
            return false
        }
        do {
            guard let walker = FileManager.default.enumerator(atPath: root) else { return false }
            for case let relative as String in walker where relative != "complete" {
                let source = "\(root)/\(relative)"
                var isDirectory: ObjCBool = false
                guard FileManager.default.fileExists(atPath: source, isDirectory: &isDirectory), !isDirectory.boolValue,
                    !relative.contains(".tmp-")
                else { continue }
                let target = git.top.appendingPathComponent(relative).path
                try FileManager.default.createDirectory(atPath: PosixFileSystem.directory(of: target), withIntermediateDirectories: true)
                let bytes = try PosixFileSystem().readWholeFile(source, limit: StoreFileMerge.maximumFileBytes)
                try StoreFileMerge.writeFile(at: target) { output in try bytes.withUnsafeBufferPointer(output) }
            }
            try FileManager.default.removeItem(atPath: root)
        } catch {
            throw git.failure(.gitFailed, "the store's files kept in \(root) could not be put back: \(error); copy them back by hand")
        }
        return true
    }

    /// The store's own files the index holds merged (stage 0), relative to the top.
    static func resolvedStoreFiles(_ git: SyncGit) throws(GitSyncError) -> [String] {
        var arguments = ["ls-files", "-s", "-z", "--"]
        if !git.storePath.isEmpty { arguments.append(git.storePath) }
        let prefix = git.storePath.isEmpty ? "" : git.storePath + "/"
        return SyncGit.fields(try git.checked(arguments).output).compactMap { entry in
            // `MODE BLOB STAGE\tPATH`
            let parts = entry.split(separator: "\t", maxSplits: 1).map(String.init)
            guard parts.count == 2, parts[0].hasSuffix(" 0"), parts[1].hasPrefix(prefix),
                StoreCommit.isOwnFile(String(parts[1].dropFirst(prefix.count)))
            else { return nil }
            return parts[1]
        }
    }
}
