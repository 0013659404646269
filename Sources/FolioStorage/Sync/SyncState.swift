import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What a running sync has under way, kept in `folio-sync-state` in the git directory, and the lock
/// (`folio-sync.lock`, an `flock`) that lets one sync at a time work in a clone.
///
/// The state file exists only while a sync runs: a sync that finds it while holding the lock knows
/// that the sync that wrote it was killed, and what it left (``SyncRecovery``). Every line is
/// `key value`; a line it does not know is ignored.
final class SyncState: Sendable {
    /// What the file records. All optional: a killed sync may have written part of it.
    struct Record: Equatable {
        /// The commit a `git merge` the sync started merges (its `MERGE_HEAD`).
        var mergeHead: String?
        /// Whether that merge was started (it may have been killed before `MERGE_HEAD` was written).
        var merging = false
        /// The commit `HEAD` named when the merge started.
        var headBefore: String?
        /// The last git the sync started: its process identifier and when (seconds since 1970).
        var gitProcess: Int32?
        var gitStarted: Double?
        /// The inode of the `index.lock` the sync itself held while it wrote merged store files.
        var heldIndexLock: UInt64?
    }

    let lockPath: String
    let statePath: String
    private let fs = PosixFileSystem()
    /// The lock file while this sync holds it.
    private let lockFile = LockedState<FileDescriptor?>(nil)
    /// What a killed sync left in the state file, read once the lock is taken and before this sync
    /// writes its own; nil when it finished.
    private let left = LockedState<Record?>(nil)
    private let record = LockedState(Record())

    /// What a killed sync left in the state file, read once the lock is taken; nil when it finished.
    var previous: Record? { left.withLock { $0 } }

    init(gitDirectory: URL) {
        lockPath = gitDirectory.appendingPathComponent("folio-sync.lock").path
        statePath = gitDirectory.appendingPathComponent("folio-sync-state").path
    }

    /// Takes the clone's sync lock, waiting up to `wait` seconds for another sync to finish.
    func lock(wait: TimeInterval, failure: (String) -> GitSyncError) throws(GitSyncError) {
        do {
            let file = try fs.open(lockPath, .readWriteCreate)
            let deadline = Date().addingTimeInterval(wait.isNaN ? 0 : min(max(wait, 0), 86_400))
            while try !fs.lock(file, exclusive: true, wait: false) {
                guard Date() < deadline else {
                    fs.close(file)
                    throw failure("another sync of this clone held \(lockPath) for \(wait) s; try again when it has finished")
                }
                usleep(20_000)
            }
            lockFile.withLock { $0 = file }
            let previous = leftover()
            left.withLock { $0 = previous }
            // Kept until the recovery is done: a sync killed while recovering leaves the same note.
            if let previous { record.withLock { $0 = previous } }
        } catch let error as GitSyncError {
            throw error
        } catch {
            throw failure("the sync lock \(lockPath) cannot be taken: \(error)")
        }
    }

    /// Removes the state file (the sync finished, whatever its outcome) and releases the lock.
    func finish() {
        try? fs.unlink(statePath)
        if let file = lockFile.withLock({ held -> FileDescriptor? in
            defer { held = nil }
            return held
        }) {
            fs.unlock(file)
            fs.close(file)
        }
    }

    /// What the state file records, or nil when there is none.
    private func leftover() -> Record? {
        guard let bytes = try? fs.readSmallFile(statePath, limit: 64 << 10) else { return nil }
        var found = Record()
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") {
            let parts = line.split(separator: " ", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { continue }
            switch parts[0] {
            case "merge-head": found.mergeHead = parts[1]
            case "merging": found.merging = parts[1] == "yes"
            case "head-before": found.headBefore = parts[1]
            case "git-pid": found.gitProcess = Int32(parts[1])
            case "git-started": found.gitStarted = Double(parts[1]).flatMap { $0.isFinite ? $0 : nil }
            case "index-lock-inode": found.heldIndexLock = UInt64(parts[1])
            default: continue
            }
        }
        return found
    }

    /// Notes that git runs as `pid`.
    func noteGit(pid: Int32, arguments: [String]) {
        update {
            $0.gitProcess = pid
            $0.gitStarted = Date().timeIntervalSince1970
        }
    }

    /// Changes the record and writes the file again (by a rename: a kill leaves the old or the new).
    func update(_ change: (inout Record) -> Void) {
        let text = record.withLock { record -> String in
            change(&record)
            var lines = ["pid \(getpid())"]
            if let head = record.mergeHead { lines.append("merge-head \(head)") }
            if record.merging { lines.append("merging yes") }
            if let head = record.headBefore { lines.append("head-before \(head)") }
            if let pid = record.gitProcess { lines.append("git-pid \(pid)") }
            if let started = record.gitStarted { lines.append("git-started \(started)") }
            if let inode = record.heldIndexLock { lines.append("index-lock-inode \(inode)") }
            return lines.joined(separator: "\n") + "\n"
        }
        try? StoreFileMerge.writeFile(at: statePath) { output in try Array(text.utf8).withUnsafeBufferPointer(output) }
    }

    /// Whether a process `pid` runs (one of another user's answers `EPERM`); a zombie, which a parent
    /// that does not reap its orphans keeps, does not.
    static func isRunning(_ pid: Int32) -> Bool {
        guard pid > 0, kill(pid, 0) == 0 || errno == EPERM else { return false }
        #if os(Linux)
            // /proc/PID/stat: `PID (COMMAND) STATE …`; the command may hold spaces and parentheses.
            if let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = stat.lastIndex(of: ")") {
                return stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).first != "Z"
            }
        #endif
        return true
    }
}
