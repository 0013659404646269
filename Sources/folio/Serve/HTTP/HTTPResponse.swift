/// A complete HTTP response: status, header fields and body.
struct HTTPResponse: Sendable {
    var status: HTTPStatus
    /// Header fields besides Content-Length, Connection and the security headers every response gets.
    var headers: [(name: String, value: String)]
    var body: [UInt8]

    init(status: HTTPStatus = .ok, contentType: String, body: [UInt8], headers: [(name: String, value: String)] = []) {
        self.status = status
        self.headers = [("Content-Type", contentType)] + headers
        self.body = body
    }

    static func html(_ text: String, status: HTTPStatus = .ok) -> HTTPResponse {
        HTTPResponse(status: status, contentType: "text/html; charset=utf-8", body: Array(text.utf8))
    }

    static func json(_ text: String, status: HTTPStatus = .ok) -> HTTPResponse {
        HTTPResponse(status: status, contentType: "application/json; charset=utf-8", body: Array((text + "\n").utf8))
    }

    static func text(_ text: String, status: HTTPStatus = .ok) -> HTTPResponse {
        HTTPResponse(status: status, contentType: "text/plain; charset=utf-8", body: Array(text.utf8))
    }

    /// Headers every response carries: pages are live (never cached), run no script, load nothing from
    /// elsewhere and are not framed.
    static let standardHeaders: [(name: String, value: String)] = [
        ("Cache-Control", "no-store"),
        ("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'self'; frame-ancestors 'none'"),
        ("X-Content-Type-Options", "nosniff"),
        ("Referrer-Policy", "no-referrer"),
        ("Vary", "Accept"),
    ]

    /// The bytes on the wire; HEAD responses carry the headers of the GET without its body.
    func serialized(includeBody: Bool, keepAlive: Bool) -> [UInt8] {
        var head = "HTTP/1.1 \(status.rawValue) \(status.reason)\r\n"
        for (name, value) in headers + Self.standardHeaders {
            head += "\(name): \(value)\r\n"
        }
        head += "Content-Length: \(body.count)\r\n"
        head += "Connection: \(keepAlive ? "keep-alive" : "close")\r\n\r\n"
        return Array(head.utf8) + (includeBody ? body : [])
    }
}
