/// The bounds a server puts on what clients send and how slowly they send it.
struct HTTPLimits: Sendable {
    /// The longest request line (method, target, version), in bytes.
    var maximumRequestLine = 8 * 1024
    /// The largest request head (request line and header fields), in bytes.
    var maximumHeadBytes = 32 * 1024
    var maximumHeaderCount = 100
    /// Connections served at once; more are answered 503 and closed.
    var maximumConnections = 64
    var maximumRequestsPerConnection = 1000
    /// How long a request head may take to arrive once it started.
    var headTimeoutMilliseconds: Int32 = 10_000
    /// How long an idle kept-alive connection stays open.
    var idleTimeoutMilliseconds: Int32 = 5_000
    /// How long the server waits for a client that does not read its response.
    var writeTimeoutMilliseconds: Int32 = 10_000
}

/// Parses HTTP/1.x request heads (RFC 9112) strictly: anything unusual is a 4xx, never a guess.
enum HTTPRequestParser {
    /// Where the head ends in `bytes` (the index after its blank line), or nil if it has not ended yet.
    /// Accepts CRLF or a bare LF as line ends, as RFC 9112 §2.2 allows.
    static func headEnd(in bytes: [UInt8], from start: Int = 0) -> Int? {
        var index = start
        while let newline = bytes[index...].firstIndex(of: 0x0A) {
            let next = newline + 1
            if next < bytes.count, bytes[next] == 0x0A { return next + 1 }
            if next + 1 < bytes.count, bytes[next] == 0x0D, bytes[next + 1] == 0x0A { return next + 2 }
            index = next
        }
        return nil
    }

    /// How many empty lines start `bytes`, in bytes (RFC 9112 §2.2 lets a server ignore them).
    static func leadingEmptyLines(_ bytes: [UInt8]) -> Int {
        var index = 0
        while index < bytes.count {
            if bytes[index] == 0x0A {
                index += 1
            } else if bytes[index] == 0x0D, index + 1 < bytes.count, bytes[index + 1] == 0x0A {
                index += 2
            } else {
                break
            }
        }
        return index
    }

    /// The status for a head that grew past the limits before it ended.
    static func oversizedHead(_ bytes: [UInt8], limits: HTTPLimits) -> HTTPError? {
        let firstLine = bytes.firstIndex(of: 0x0A) ?? bytes.count
        if firstLine > limits.maximumRequestLine {
            return HTTPError(.uriTooLong, "The request line is longer than \(limits.maximumRequestLine) bytes.")
        }
        if bytes.count > limits.maximumHeadBytes {
            return HTTPError(.requestHeaderFieldsTooLarge, "The request head is larger than \(limits.maximumHeadBytes) bytes.")
        }
        return nil
    }

    /// Parses a complete head (its blank line included or not).
    static func parse(_ head: ArraySlice<UInt8>, limits: HTTPLimits) throws(HTTPError) -> HTTPRequest {
        if let error = oversizedHead(Array(head), limits: limits) { throw error }
        var lines = try splitLines(head)
        while lines.last?.isEmpty == true { lines.removeLast() }
        guard let requestLine = lines.first else { throw HTTPError(.badRequest, "The request is empty.") }
        guard requestLine.count <= limits.maximumRequestLine else {
            throw HTTPError(.uriTooLong, "The request line is longer than \(limits.maximumRequestLine) bytes.")
        }
        var request = try parseRequestLine(requestLine)
        let fields = lines.dropFirst()
        guard fields.count <= limits.maximumHeaderCount else {
            throw HTTPError(.requestHeaderFieldsTooLarge, "The request has more than \(limits.maximumHeaderCount) header fields.")
        }
        request.headers = try fields.map(parseField)
        try checkFraming(request)
        return request
    }

    /// Lines without their CRLF or LF; a CR anywhere else is refused (RFC 9112 §2.2).
    private static func splitLines(_ head: ArraySlice<UInt8>) throws(HTTPError) -> [ArraySlice<UInt8>] {
        var lines: [ArraySlice<UInt8>] = []
        for var line in head.split(separator: 0x0A, omittingEmptySubsequences: false) {
            if line.last == 0x0D { line = line.dropLast() }
            if line.contains(0x0D) { throw HTTPError(.badRequest, "A line of the request holds a bare carriage return.") }
            lines.append(line)
        }
        return lines
    }

    private static func parseRequestLine(_ line: ArraySlice<UInt8>) throws(HTTPError) -> HTTPRequest {
        let parts = line.split(separator: 0x20, omittingEmptySubsequences: false)
        guard parts.count == 3, let method = token(parts[0]) else {
            throw HTTPError(.badRequest, "The request line is not 'METHOD /path HTTP/1.1'.")
        }
        let targetBytes = originForm(parts[1])
        guard targetBytes.first == UInt8(ascii: "/"), targetBytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw HTTPError(.badRequest, "The request target must be a path starting with '/', in visible ASCII characters.")
        }
        let version = String(decoding: parts[2], as: UTF8.self)
        let minor: Int
        switch version {
        case "HTTP/1.1": minor = 1
        case "HTTP/1.0": minor = 0
        default:
            let isVersion = version.hasPrefix("HTTP/") && version.count == 8
            throw HTTPError(
                isVersion ? .httpVersionNotSupported : .badRequest,
                isVersion ? "Only HTTP/1.0 and HTTP/1.1 are spoken here." : "The request line does not end with an HTTP version.")
        }
        guard method == "GET" || method == "HEAD" else {
            throw HTTPError(.methodNotAllowed, "This server is read-only: it answers GET and HEAD, not \(method).")
        }
        return HTTPRequest(method: method, target: String(decoding: targetBytes, as: UTF8.self), minorVersion: minor, headers: [])
    }

    /// The path and query of an absolute-form target (`http://host/path?query`, which RFC 9112 §3.2.2
    /// says a server must accept), or the target unchanged.
    private static func originForm(_ target: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        let text = String(decoding: target.prefix(8), as: UTF8.self).lowercased()
        let schemeLength = text.hasPrefix("http://") ? 7 : text.hasPrefix("https://") ? 8 : 0
        guard schemeLength > 0 else { return target }
        let afterScheme = target.dropFirst(schemeLength)
        guard let slash = afterScheme.firstIndex(where: { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") }) else { return [UInt8(ascii: "/")] }
        return afterScheme[slash] == UInt8(ascii: "/") ? afterScheme[slash...] : [UInt8(ascii: "/")] + afterScheme[slash...]
    }

    private static func parseField(_ line: ArraySlice<UInt8>) throws(HTTPError) -> HTTPRequest.Header {
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")), let name = token(line[line.startIndex..<colon]) else {
            throw HTTPError(.badRequest, "A header field is not 'Name: value' (folded lines are not accepted).")
        }
        var value = line[(colon + 1)...]
        while let first = value.first, first == 0x20 || first == 0x09 { value = value.dropFirst() }
        while let last = value.last, last == 0x20 || last == 0x09 { value = value.dropLast() }
        guard value.allSatisfy({ $0 == 0x09 || ($0 >= 0x20 && $0 != 0x7F) }) else {
            throw HTTPError(.badRequest, "The header field \(name) holds a control character.")
        }
        return HTTPRequest.Header(name: name.lowercased(), value: String(decoding: value, as: UTF8.self))
    }

    /// Refuses heads whose framing the server cannot honour: no Host in HTTP/1.1, or a body.
    private static func checkFraming(_ request: HTTPRequest) throws(HTTPError) {
        let hosts = request.headers.filter { $0.name == "host" }
        if request.minorVersion == 1, hosts.count != 1 {
            throw HTTPError(.badRequest, "An HTTP/1.1 request needs exactly one Host header field.")
        }
        if request.header("transfer-encoding") != nil {
            throw HTTPError(.notImplemented, "Request bodies (Transfer-Encoding) are not accepted.")
        }
        for field in request.headers where field.name == "content-length" {
            guard let length = Int(field.value), length >= 0 else {
                throw HTTPError(.badRequest, "Content-Length is not a number.")
            }
            if length > 0 { throw HTTPError(.contentTooLarge, "Request bodies are not accepted.") }
        }
    }

    /// The bytes as a token (RFC 9110 §5.6.2), nil if they are empty or hold another character.
    private static func token(_ bytes: ArraySlice<UInt8>) -> String? {
        guard !bytes.isEmpty else { return nil }
        let extra = Set("!#$%&'*+-.^_`|~".utf8)
        for byte in bytes {
            let isAlphanumeric = (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
            guard isAlphanumeric || extra.contains(byte) else { return nil }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
