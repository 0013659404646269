/// The HTTP status codes `folio serve` answers with.
enum HTTPStatus: Int, Sendable {
    case ok = 200
    case badRequest = 400
    case notFound = 404
    case methodNotAllowed = 405
    case notAcceptable = 406
    case requestTimeout = 408
    case contentTooLarge = 413
    case uriTooLong = 414
    case misdirectedRequest = 421
    case requestHeaderFieldsTooLarge = 431
    case internalServerError = 500
    case notImplemented = 501
    case serviceUnavailable = 503
    case httpVersionNotSupported = 505

    /// The reason phrase of RFC 9110.
    var reason: String {
        switch self {
        case .ok: return "OK"
        case .badRequest: return "Bad Request"
        case .notFound: return "Not Found"
        case .methodNotAllowed: return "Method Not Allowed"
        case .notAcceptable: return "Not Acceptable"
        case .requestTimeout: return "Request Timeout"
        case .contentTooLarge: return "Content Too Large"
        case .uriTooLong: return "URI Too Long"
        case .misdirectedRequest: return "Misdirected Request"
        case .requestHeaderFieldsTooLarge: return "Request Header Fields Too Large"
        case .internalServerError: return "Internal Server Error"
        case .notImplemented: return "Not Implemented"
        case .serviceUnavailable: return "Service Unavailable"
        case .httpVersionNotSupported: return "HTTP Version Not Supported"
        }
    }
}
