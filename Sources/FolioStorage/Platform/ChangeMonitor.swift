import Dispatch
import Foundation

/// Watches a store directory and calls a handler when another process changes the journal.
///
/// On Linux it blocks on `inotify` (no polling): the handler runs within milliseconds of an append.
/// Elsewhere it checks the journal's size and identity every `interval` (250 ms by default) from a
/// dispatch timer. The handler runs on a private thread or queue; it typically calls ``Store/refresh()``.
/// The monitor stops when ``cancel()`` is called or it is deallocated.
// Unchecked: its dispatch timer source and thread are not Sendable types; they are used only holding `lock`.
public final class ChangeMonitor: @unchecked Sendable {
    private let lock = NSLock()
    private var cancelled = false
    #if os(Linux)
        private var inotifyFD: Int32 = -1
        private var wakePipe: (Int32, Int32) = (-1, -1)
        private var thread: Thread?
    #endif
    private var timer: (any DispatchSourceTimer)?

    init(directory: String, interval: TimeInterval, shouldNotify: @escaping @Sendable () -> Bool, handler: @escaping @Sendable () -> Void) throws {
        #if os(Linux)
            let fd = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
            if fd >= 0 {
                let mask = UInt32(IN_MODIFY | IN_MOVED_TO | IN_CREATE | IN_CLOSE_WRITE)
                if inotify_add_watch(fd, directory, mask) >= 0 {
                    var fds: [Int32] = [0, 0]
                    if pipe(&fds) == 0 {
                        inotifyFD = fd
                        wakePipe = (fds[0], fds[1])
                        let thread = Thread { [inotifyFD = fd, wake = fds[0]] in
                            Self.watch(inotifyFD: inotifyFD, wakeFD: wake, shouldNotify: shouldNotify, handler: handler)
                        }
                        thread.name = "folio.storage.change-monitor"
                        self.thread = thread
                        thread.start()
                        return
                    }
                }
                _ = Glibc_or_Darwin_close(fd)
            }
        #endif
        startPolling(interval: interval, shouldNotify: shouldNotify, handler: handler)
    }

    #if os(Linux)
        private static func watch(inotifyFD: Int32, wakeFD: Int32, shouldNotify: @Sendable () -> Bool, handler: @Sendable () -> Void) {
            var fds = [pollfd(fd: inotifyFD, events: Int16(POLLIN), revents: 0), pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0)]
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                fds[0].revents = 0
                fds[1].revents = 0
                let ready = poll(&fds, 2, -1)
                if ready < 0 && errno == EINTR { continue }
                if ready < 0 || fds[1].revents != 0 { break }
                // Drain the events, then ask whether the journal really changed from this store's point of view.
                while buffer.withUnsafeMutableBytes({ read(inotifyFD, $0.baseAddress, $0.count) }) > 0 {}
                if shouldNotify() { handler() }
            }
            _ = Glibc_or_Darwin_close(inotifyFD)
            _ = Glibc_or_Darwin_close(wakeFD)
        }
    #endif

    private func startPolling(interval: TimeInterval, shouldNotify: @escaping @Sendable () -> Bool, handler: @escaping @Sendable () -> Void) {
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "folio.storage.change-monitor"))
        let nanoseconds = TimerInterval.nanoseconds(seconds: interval, minimum: 1_000_000)
        timer.schedule(deadline: .now() + .nanoseconds(nanoseconds), repeating: .nanoseconds(nanoseconds), leeway: .milliseconds(20))
        timer.setEventHandler { if shouldNotify() { handler() } }
        self.timer = timer
        timer.resume()
    }

    /// Stops watching. The handler is not called after this returns, except for a call already running.
    public func cancel() {
        lock.lock()
        defer { lock.unlock() }
        if cancelled { return }
        cancelled = true
        timer?.cancel()
        timer = nil
        #if os(Linux)
            if wakePipe.1 >= 0 {
                var byte: UInt8 = 1
                _ = write(wakePipe.1, &byte, 1)
                _ = Glibc_or_Darwin_close(wakePipe.1)
                wakePipe = (-1, -1)
            }
        #endif
    }

    deinit {
        cancel()
    }
}

extension Store {
    /// Calls `handler` when another process appends to (or compacts) this store, typically so that the
    /// caller can ``refresh()``. Latency is a few milliseconds on Linux (inotify), at most `interval`
    /// elsewhere (the default is 250 ms; an interval below 1 ms, NaN included, polls every millisecond). Keep
    /// the returned monitor; it stops when released or cancelled.
    public func monitorChanges(interval: TimeInterval = 0.25, handler: @escaping @Sendable () -> Void) throws -> ChangeMonitor {
        guard let paths else { throw StorageError(.invalidTransaction, "an in-memory store has no other writers to monitor") }
        return try ChangeMonitor(
            directory: paths.directory, interval: interval, shouldNotify: { [weak self] in self?.hasExternalChanges() ?? false },
            handler: handler)
    }
}
