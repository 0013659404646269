// The platform seam of `folio serve`: the one file that calls the C library's socket functions.
#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

#if canImport(Darwin)
    private let sendFlags: Int32 = 0
#else
    /// A write to a closed connection fails with EPIPE instead of raising SIGPIPE.
    private let sendFlags = Int32(MSG_NOSIGNAL)
#endif

/// A failed socket call, with the call's name and `errno`'s text.
struct SocketError: Error, CustomStringConvertible {
    var call: String
    var code: Int32

    var description: String { "\(call) failed: \(String(cString: strerror(code)))" }
}

/// A TCP socket descriptor. Closed explicitly with ``close()``, once.
struct Socket: Sendable {
    let descriptor: Int32

    /// Stops writes to closed connections from killing the process (they fail with EPIPE instead).
    static func ignoreBrokenPipes() {
        signal(SIGPIPE, SIG_IGN)
    }

    /// Lets SIGINT, SIGTERM and SIGHUP end the process: a parent may have started it with them blocked
    /// (the mask is inherited), and a server that cannot be stopped would outlive it.
    static func unblockTerminationSignals() {
        var set = sigset_t()
        sigemptyset(&set)
        for signal in [SIGINT, SIGTERM, SIGHUP] { sigaddset(&set, signal) }
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
    }

    /// A socket listening on an IPv4 or IPv6 address and port (0: a free port the system picks).
    static func listening(host: String, port: UInt16, backlog: Int32 = 128) throws -> Socket {
        var hints = addrinfo()
        hints.ai_flags = AI_NUMERICHOST | AI_PASSIVE
        hints.ai_family = AF_UNSPEC
        #if canImport(Darwin)
            hints.ai_socktype = SOCK_STREAM
        #else
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let info = list else {
            throw SocketError(call: "getaddrinfo(\(host))", code: status == EAI_SYSTEM ? errno : EINVAL)
        }
        defer { freeaddrinfo(list) }
        let descriptor = socket(info.pointee.ai_family, info.pointee.ai_socktype, info.pointee.ai_protocol)
        guard descriptor >= 0 else { throw SocketError(call: "socket", code: errno) }
        var one: Int32 = 1
        _ = setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        guard bind(descriptor, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 else {
            let code = errno
            _ = close(descriptor)
            throw SocketError(call: "bind(\(host):\(port))", code: code)
        }
        guard listen(descriptor, backlog) == 0 else {
            let code = errno
            _ = close(descriptor)
            throw SocketError(call: "listen", code: code)
        }
        return Socket(descriptor: descriptor)
    }

    /// The port a listening socket is bound to.
    var localPort: UInt16? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let status = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard status == 0 else { return nil }
        switch Int32(storage.ss_family) {
        case AF_INET:
            return withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin_port) }
            }
        case AF_INET6:
            return withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin6_port) }
            }
        default:
            return nil
        }
    }

    /// Waits up to `milliseconds` for the socket to be readable (or writable); false on timeout.
    func wait(forWriting: Bool = false, milliseconds: Int32) -> Bool {
        var entry = pollfd(fd: descriptor, events: Int16(forWriting ? POLLOUT : POLLIN), revents: 0)
        while true {
            let status = poll(&entry, 1, milliseconds)
            if status < 0, errno == EINTR { continue }
            return status > 0
        }
    }

    /// Accepts a pending connection; nil when none is pending or the accept failed.
    func acceptConnection() -> Socket? {
        let connection = accept(descriptor, nil, nil)
        return connection >= 0 ? Socket(descriptor: connection) : nil
    }

    /// Reads what is available, up to `maximum` bytes: empty at the end of the stream, nil on an error.
    func receive(maximum: Int) -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: maximum)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, maximum, 0) }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { return nil }
            return Array(buffer.prefix(count))
        }
    }

    /// Writes every byte, waiting up to `milliseconds` each time the peer is not reading; false when the
    /// peer went away or stopped reading.
    func sendAll(_ bytes: [UInt8], milliseconds: Int32) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let count = bytes.withUnsafeBytes { buffer -> Int in
                guard let base = buffer.baseAddress else { return 0 }
                return send(descriptor, base + sent, buffer.count - sent, sendFlags)
            }
            if count > 0 {
                sent += count
            } else if count < 0, errno == EINTR {
                continue
            } else if count < 0, errno == EAGAIN || errno == EWOULDBLOCK {
                guard wait(forWriting: true, milliseconds: milliseconds) else { return false }
            } else {
                return false
            }
        }
        return true
    }

    /// Bounds how long one blocking send may wait for a peer that does not read.
    func setSendTimeout(milliseconds: Int32) {
        var value = timeval(tv_sec: Int(milliseconds / 1000), tv_usec: Int(milliseconds % 1000) * 1000)
        _ = setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Ends the sending side and reads, discarding, what the client still sends (up to `limit` bytes or
    /// `milliseconds`): closing with unread input would reset the connection, and the client could lose
    /// the response it has not read yet.
    func drainAfterSending(limit: Int, milliseconds: Int32) {
        _ = shutdown(descriptor, Int32(SHUT_WR))
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: .milliseconds(Int(milliseconds)))
        var drained = 0
        while drained < limit, clock.now < deadline, wait(milliseconds: 50) {
            guard let bytes = receive(maximum: 16 * 1024), !bytes.isEmpty else { return }
            drained += bytes.count
        }
    }

    func closeSocket() {
        _ = close(descriptor)
    }
}
