import FolioStorage
import Foundation

/// What answers the requests of an ``HTTPServer``; called from many connection threads at once.
protocol HTTPHandler: Sendable {
    /// The response to a well-formed GET or HEAD request.
    func respond(to request: HTTPRequest) -> HTTPResponse
    /// The response to a request the server refused before it reached ``respond(to:)``.
    func respond(to error: HTTPError) -> HTTPResponse
}

/// A small HTTP/1.1 server on POSIX sockets: a thread accepts connections and each connection is served
/// on its own thread, up to ``HTTPLimits/maximumConnections`` at once. Requests are read with bounded
/// heads and deadlines; a malformed one is answered with a 4xx and its connection closed, and nothing a
/// client sends stops the server.
final class HTTPServer: Sendable {
    let limits: HTTPLimits
    /// The port the server listens on (the one the system picked when asked for port 0).
    let port: UInt16
    private let listener: Socket
    private let handler: any HTTPHandler
    private let state = LockedState(State())

    private struct State {
        var connections = 0
        var stopping = false
        var acceptLoopEnded = false
    }

    /// Listens on `host` and `port`; serving starts with ``start()``.
    init(host: String, port: UInt16, limits: HTTPLimits = HTTPLimits(), handler: any HTTPHandler) throws {
        Socket.ignoreBrokenPipes()
        listener = try Socket.listening(host: host, port: port)
        guard let bound = listener.localPort else {
            listener.closeSocket()
            throw SocketError(call: "getsockname", code: 0)
        }
        self.port = bound
        self.limits = limits
        self.handler = handler
    }

    /// How many connections are open now.
    var openConnections: Int { state.withLock { $0.connections } }

    /// Accepts connections on a new thread until ``stop()``.
    func start() {
        Thread { [self] in acceptLoop() }.start()
    }

    /// Stops accepting connections and closes the listening socket; open connections end after their
    /// current request.
    func stop() {
        state.withLock { $0.stopping = true }
        while !state.withLock({ $0.acceptLoopEnded }) { Thread.sleep(forTimeInterval: 0.01) }
    }

    private func acceptLoop() {
        defer {
            listener.closeSocket()
            state.withLock { $0.acceptLoopEnded = true }
        }
        while !state.withLock({ $0.stopping }) {
            // A short wait, so that a stop is seen soon.
            guard listener.wait(milliseconds: 100), let connection = listener.acceptConnection() else { continue }
            let admitted = state.withLock { state -> Bool in
                guard state.connections < limits.maximumConnections else { return false }
                state.connections += 1
                return true
            }
            guard admitted else {
                refuse(connection)
                continue
            }
            Thread { [self] in
                serve(connection)
                state.withLock { $0.connections -= 1 }
            }.start()
        }
    }

    /// Answers a connection over the limit with a 503, without reading from it.
    private func refuse(_ connection: Socket) {
        connection.setSendTimeout(milliseconds: 1000)
        let response = handler.respond(to: HTTPError(.serviceUnavailable, "Too many connections are open; try again shortly."))
        _ = connection.sendAll(response.serialized(includeBody: true, keepAlive: false), milliseconds: 1000)
        connection.closeSocket()
    }

    /// Serves requests on one connection until the client closes it, an error, a timeout or the limit.
    private func serve(_ connection: Socket) {
        defer { connection.closeSocket() }
        connection.setSendTimeout(milliseconds: limits.writeTimeoutMilliseconds)
        var buffer: [UInt8] = []
        for served in 1...max(1, limits.maximumRequestsPerConnection) {
            let request: HTTPRequest
            switch readHead(connection, into: &buffer) {
            case .closed:
                return
            case .refused(let error):
                if send(handler.respond(to: error), to: connection, head: false, keepAlive: false) {
                    connection.drainAfterSending(limit: 4 << 20, milliseconds: 2000)
                }
                return
            case .head(let parsed):
                request = parsed
            }
            let keepAlive = request.keepsAlive && served < limits.maximumRequestsPerConnection && !state.withLock({ $0.stopping })
            let sent = send(handler.respond(to: request), to: connection, head: request.method == "HEAD", keepAlive: keepAlive)
            guard sent, keepAlive else { return }
        }
    }

    @discardableResult
    private func send(_ response: HTTPResponse, to connection: Socket, head: Bool, keepAlive: Bool) -> Bool {
        connection.sendAll(response.serialized(includeBody: !head, keepAlive: keepAlive), milliseconds: limits.writeTimeoutMilliseconds)
    }

    private enum HeadOutcome {
        case head(HTTPRequest)
        case refused(HTTPError)
        case closed
    }

    /// Reads until a request head is complete, its limits are passed, its deadline passes or the client
    /// leaves. Bytes after the head stay in `buffer` (a pipelined next request).
    private func readHead(_ connection: Socket, into buffer: inout [UInt8]) -> HeadOutcome {
        let clock = ContinuousClock()
        var started = clock.now
        while true {
            let blank = HTTPRequestParser.leadingEmptyLines(buffer)
            if blank > 0 { buffer.removeFirst(blank) }
            if let end = HTTPRequestParser.headEnd(in: buffer) {
                defer { buffer.removeFirst(end) }
                do { return .head(try HTTPRequestParser.parse(buffer[..<end], limits: limits)) } catch { return .refused(error) }
            }
            if let error = HTTPRequestParser.oversizedHead(buffer, limits: limits) { return .refused(error) }
            let timeout: Int32
            if buffer.isEmpty {
                timeout = limits.idleTimeoutMilliseconds
            } else {
                let elapsed = clock.now - started
                let left =
                    Int64(limits.headTimeoutMilliseconds) - elapsed.components.seconds * 1000 - elapsed.components.attoseconds / 1_000_000_000_000_000
                guard left > 0 else { return .refused(HTTPError(.requestTimeout, "The request head took too long to arrive.")) }
                timeout = Int32(clamping: left)
            }
            guard connection.wait(milliseconds: timeout) else {
                return buffer.isEmpty ? .closed : .refused(HTTPError(.requestTimeout, "The request head took too long to arrive."))
            }
            guard let bytes = connection.receive(maximum: 16 * 1024), !bytes.isEmpty else { return .closed }
            if buffer.isEmpty { started = clock.now }
            buffer += bytes
        }
    }
}
