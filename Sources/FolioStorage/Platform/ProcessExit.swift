import Foundation

/// The end of a child process, waited for without polling.
///
/// Foundation's `Process.waitUntilExit()` on Linux runs the run loop in 50 ms slices until it sees the
/// child gone, a delay every git command would pay; the termination handler runs as soon as the child
/// is reaped, with its status set.
package struct ProcessExit: Sendable {
    private let exited = DispatchSemaphore(value: 0)

    /// Starts `process`, which must not have a termination handler of its own.
    ///
    /// - Throws: what `Process.run()` throws when the program cannot be started.
    package init(running process: Process) throws {
        let exited = self.exited
        process.terminationHandler = { _ in exited.signal() }
        try process.run()
    }

    /// Blocks until the process has exited; its `terminationStatus` is then set.
    package func wait() {
        exited.wait()
        // Later waits return at once.
        exited.signal()
    }
}
