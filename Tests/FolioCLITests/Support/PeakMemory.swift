import Foundation
import Testing

/// What one run of the `folio` binary cost: its exit status and its peak resident set size.
struct MeasuredRun {
    var status: Int32
    var peakBytes: Int
}

/// Runs the built `folio` with its output discarded and returns its exit status and peak resident
/// set size, from the child's own resource usage (`wait4`), so other processes do not count. On Linux
/// the figure is an upper bound: a spawned child's peak starts at the spawning process's resident size.
func folioMeasured(_ arguments: String...) throws -> MeasuredRun {
    let executable = try #require(folioExecutable(), "the folio executable is built next to the tests")
    var argv: [UnsafeMutablePointer<CChar>?] = ([executable.path] + arguments).map { strdup($0) }
    argv.append(nil)
    defer { for pointer in argv { free(pointer) } }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    var pid: pid_t = 0
    let spawned = posix_spawn(&pid, executable.path, &actions, nil, argv, environ)
    try #require(spawned == 0, "posix_spawn failed: \(spawned)")
    var status: Int32 = 0
    var usage = rusage()
    while wait4(pid, &status, 0, &usage) < 0 {
        try #require(errno == EINTR, "wait4 failed: \(errno)")
    }
    #if canImport(Darwin)
        let peak = Int(usage.ru_maxrss)  // bytes on Darwin
    #else
        let peak = Int(usage.ru_maxrss) * 1024  // kilobytes elsewhere
    #endif
    let exited = status & 0x7f == 0
    return MeasuredRun(status: exited ? (status >> 8) & 0xff : 128 + (status & 0x7f), peakBytes: peak)
}
