import Foundation

/// The store's cross-process writer lock (`flock` on its `lock` file), held by a sync while it stages
/// and commits the store's files and while it merges into them: a save in any process waits meanwhile,
/// so a commit never holds half a line, and a merge never starts over a journal a save is appending to.
///
/// A store opened in the same process takes the lock through another open file, so it waits too.
struct StoreWriterLock {
    private let fs = PosixFileSystem()
    private let file: FileDescriptor

    /// Takes the lock of the store in `directory`, waiting up to `wait` seconds for a save to finish.
    init(store directory: URL, wait: TimeInterval, failure: (String) -> GitSyncError) throws(GitSyncError) {
        let path = directory.appendingPathComponent("lock").path
        do {
            file = try fs.open(path, .readWriteCreate)
        } catch {
            throw failure("the store's lock file \(path) cannot be opened: \(error)")
        }
        let deadline = Date().addingTimeInterval(wait.isNaN ? 0 : min(max(wait, 0), 86_400))
        while true {
            do {
                if try fs.lock(file, exclusive: true, wait: false) { return }
            } catch {
                fs.close(file)
                throw failure("the store's lock file \(path) cannot be locked: \(error)")
            }
            guard Date() < deadline else {
                fs.close(file)
                throw failure("a save held the store's lock \(path) for \(wait) s")
            }
            usleep(5_000)
        }
    }

    /// Releases the lock.
    func release() {
        fs.unlock(file)
        fs.close(file)
    }
}
