import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

#if canImport(Darwin)
    private let noSignal: Int32 = 0
#else
    private let noSignal = Int32(MSG_NOSIGNAL)
#endif

/// A response as read off the wire.
struct RawResponse: CustomStringConvertible {
    var status: Int
    var headers: [String: String]
    var body: String
    /// Every byte received, head included.
    var raw: [UInt8]

    var description: String { "status \(status)\n\(String(decoding: raw.prefix(2000), as: UTF8.self))" }

    func header(_ name: String) -> String? { headers[name.lowercased()] }
}

/// A TCP client that sends exactly the bytes it is given, for testing a server's protocol handling.
struct RawHTTPClient {
    let port: UInt16

    /// A connected socket, reads time out after `timeout` seconds.
    func makeConnection(timeout: Double = 5) throws -> Int32 {
        #if canImport(Darwin)
            let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #else
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #endif
        try #require(descriptor >= 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let status = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        try #require(status == 0, "connect to port \(port): errno \(errno)")
        var value = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - timeout.rounded(.down)) * 1_000_000))
        _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
        return descriptor
    }

    /// Sends bytes; false when the server closed the connection first.
    @discardableResult
    static func sendBytes(_ descriptor: Int32, _ bytes: [UInt8]) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let count = bytes.withUnsafeBytes { buffer in
                send(descriptor, buffer.baseAddress.map { $0 + sent }, bytes.count - sent, noSignal)
            }
            if count <= 0 { return false }
            sent += count
        }
        return true
    }

    /// Reads until the server closes the connection or the read times out.
    static func readAll(_ descriptor: Int32) -> [UInt8] {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count <= 0 { return received }
            received += buffer.prefix(count)
        }
    }

    /// Sends the bytes on a new connection and reads until the server closes it (or `timeout` passes).
    func exchange(_ bytes: [UInt8], timeout: Double = 5) throws -> [UInt8] {
        let descriptor = try makeConnection(timeout: timeout)
        defer { close(descriptor) }
        Self.sendBytes(descriptor, bytes)
        return Self.readAll(descriptor)
    }

    func exchange(_ text: String, timeout: Double = 5) throws -> [UInt8] {
        try exchange(Array(text.utf8), timeout: timeout)
    }

    /// A GET (or another method) with `Connection: close`, parsed.
    func get(_ path: String, method: String = "GET", headers: [String: String] = [:]) throws -> RawResponse {
        var request = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        for (name, value) in headers { request += "\(name): \(value)\r\n" }
        let raw = try exchange(request + "\r\n")
        return try #require(Self.parse(raw), "a response to \(method) \(path)")
    }

    /// The first response in `raw`, nil if it is not one.
    static func parse(_ raw: [UInt8]) -> RawResponse? {
        guard let end = raw.firstRange(of: Array("\r\n\r\n".utf8)) else { return nil }
        let head = String(decoding: raw[..<end.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = head[0].split(separator: " ")
        guard statusParts.count >= 2, statusParts[0] == "HTTP/1.1", let status = Int(statusParts[1]) else { return nil }
        var headers: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { return nil }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let length = headers["content-length"].flatMap(Int.init) ?? (raw.count - end.upperBound)
        let body = raw[end.upperBound...].prefix(length)
        return RawResponse(status: status, headers: headers, body: String(decoding: body, as: UTF8.self), raw: raw)
    }
}
