#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Why talking to another plugin process failed; the message becomes a compiler diagnostic.
package struct PluginServerError: Error, CustomStringConvertible, Sendable {
    package var description: String
}

/// A child process that speaks the compiler plugin protocol (the toolchain's `swift-plugin-server`),
/// with length-prefixed frames on its standard input and output.
///
/// Every read and write waits at most until a deadline, and a reply longer than `maximumFrame` is
/// refused, so that a server that hangs or misbehaves becomes a diagnostic, never a stuck compiler.
final class PluginServerConnection {
    static let maximumFrame: UInt64 = 64 << 20
    private let pid: pid_t
    private let toServer: Int32
    private let fromServer: Int32
    private let timeout: Double
    private var isOpen = true

    /// Starts `executable` with no arguments and an empty environment, as the compiler starts plugins.
    init(executable: String, timeout: Double) throws {
        // A write to a server that has died must fail with EPIPE, not kill this plugin.
        signal(SIGPIPE, SIG_IGN)
        var input: [Int32] = [-1, -1]
        var output: [Int32] = [-1, -1]
        guard pipe(&input) == 0 else { throw PluginServerError(description: "pipe() failed (errno \(errno))") }
        guard pipe(&output) == 0 else {
            close(input[0]); close(input[1])
            throw PluginServerError(description: "pipe() failed (errno \(errno))")
        }
        // The server must inherit only its two pipe ends, not the compiler's pipes to this plugin.
        for descriptor in 3..<Int32(1024) {
            let flags = fcntl(descriptor, F_GETFD)
            if flags >= 0 { _ = fcntl(descriptor, F_SETFD, flags | FD_CLOEXEC) }
        }
        // Darwin spells the type as an opaque pointer, Glibc as a struct.
        #if canImport(Darwin)
            var actions: posix_spawn_file_actions_t?
        #else
            var actions = posix_spawn_file_actions_t()
        #endif
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, input[0], 0)
        posix_spawn_file_actions_adddup2(&actions, output[1], 1)

        var child: pid_t = 0
        let path = strdup(executable)
        defer { free(path) }
        var arguments: [UnsafeMutablePointer<CChar>?] = [path, nil]
        var environment: [UnsafeMutablePointer<CChar>?] = [nil]
        let status = posix_spawn(&child, executable, &actions, nil, &arguments, &environment)
        close(input[0])
        close(output[1])
        guard status == 0 else {
            close(input[1]); close(output[0])
            throw PluginServerError(description: "could not start \(executable) (error \(status): \(String(cString: strerror(status))))")
        }
        self.pid = child
        self.toServer = input[1]
        self.fromServer = output[0]
        self.timeout = timeout
        for descriptor in [toServer, fromServer] {
            _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        }
    }

    deinit { terminate() }

    /// Sends one message and returns the server's one reply.
    func exchange(_ message: [UInt8]) throws -> [UInt8] {
        guard isOpen else { throw PluginServerError(description: "the connection is closed") }
        let deadline = PluginServerConnection.now() + timeout
        var length = UInt64(message.count)
        var frame: [UInt8] = []
        frame.reserveCapacity(8 + message.count)
        for _ in 0..<8 {
            frame.append(UInt8(truncatingIfNeeded: length))
            length >>= 8
        }
        frame.append(contentsOf: message)
        try write(frame, before: deadline)
        let header = try read(8, before: deadline)
        let size = header.reversed().reduce(UInt64(0)) { ($0 << 8) | UInt64($1) }
        guard size > 0, size <= PluginServerConnection.maximumFrame else {
            throw PluginServerError(description: "the server sent a frame of \(size) bytes")
        }
        return try read(Int(size), before: deadline)
    }

    /// Kills the server and reaps it. Safe to call more than once.
    func terminate() {
        guard isOpen else { return }
        isOpen = false
        close(toServer)
        close(fromServer)
        kill(pid, SIGKILL)
        var status: Int32 = 0
        _ = waitpid(pid, &status, 0)
    }

    private func write(_ bytes: [UInt8], before deadline: Double) throws {
        var written = 0
        while written < bytes.count {
            try wait(for: toServer, events: Int16(POLLOUT), before: deadline)
            let result = bytes.withUnsafeBytes { raw -> Int in
                guard let base = raw.baseAddress else { return 0 }
                return systemWrite(toServer, base + written, bytes.count - written)
            }
            if result < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                throw PluginServerError(description: "the server stopped reading (errno \(errno))")
            }
            written += result
        }
    }

    private func read(_ count: Int, before deadline: Double) throws -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            try wait(for: fromServer, events: Int16(POLLIN), before: deadline)
            let result = buffer.withUnsafeMutableBytes { raw -> Int in
                guard let base = raw.baseAddress else { return 0 }
                return systemRead(fromServer, base + filled, count - filled)
            }
            if result < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                throw PluginServerError(description: "reading from the server failed (errno \(errno))")
            }
            if result == 0 { throw PluginServerError(description: "the server exited without answering") }
            filled += result
        }
        return buffer
    }

    /// Waits until the descriptor is ready (or has hung up), or throws when the deadline passes.
    private func wait(for descriptor: Int32, events: Int16, before deadline: Double) throws {
        while true {
            let remaining = deadline - PluginServerConnection.now()
            guard remaining > 0 else {
                throw PluginServerError(description: "the server did not answer within \(timeout) seconds")
            }
            var entry = pollfd(fd: descriptor, events: events, revents: 0)
            let ready = poll(&entry, 1, Int32(min(remaining * 1000 + 1, 60_000)))
            if ready > 0 { return }
            if ready < 0 && errno != EINTR {
                throw PluginServerError(description: "poll() failed (errno \(errno))")
            }
        }
    }

    private static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}

// The C library's calls, under names that the connection's own `read` and `write` do not hide.
private func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    write(descriptor, bytes, count)
}

private func systemRead(_ descriptor: Int32, _ bytes: UnsafeMutableRawPointer, _ count: Int) -> Int {
    read(descriptor, bytes, count)
}
