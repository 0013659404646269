/// An HTTP/1.x request head (`folio serve` reads no request bodies).
struct HTTPRequest: Sendable, Equatable {
    var method: String
    /// The request target as sent: `/path?query`.
    var target: String
    /// 0 for HTTP/1.0, 1 for HTTP/1.1.
    var minorVersion: Int
    /// Header fields in order, names lowercased.
    var headers: [Header]

    struct Header: Sendable, Equatable {
        var name: String
        var value: String
    }

    /// The first value of a header field (name in any case).
    func header(_ name: String) -> String? {
        let lowered = name.lowercased()
        return headers.first { $0.name == lowered }?.value
    }

    /// Whether the client asked to keep the connection open (RFC 9112 §9.3).
    var keepsAlive: Bool {
        let tokens = headers.filter { $0.name == "connection" }
            .flatMap { $0.value.lowercased().split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }
        if tokens.contains("close") { return false }
        return minorVersion >= 1 || tokens.contains("keep-alive")
    }

    /// The target's path, before `?`, still percent-encoded.
    var rawPath: Substring { target.prefix { $0 != "?" && $0 != "#" } }

    /// The target's query, after `?`, still percent-encoded.
    var rawQuery: Substring {
        guard let mark = target.firstIndex(of: "?") else { return "" }
        return target[target.index(after: mark)...].prefix { $0 != "#" }
    }
}

/// A request `folio serve` refuses, with the status and a sentence for the error page.
struct HTTPError: Error, Equatable, Sendable {
    var status: HTTPStatus
    var message: String

    init(_ status: HTTPStatus, _ message: String) {
        self.status = status
        self.message = message
    }
}
