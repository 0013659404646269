/// A page of `folio serve`, read from a request's path, and the path of each page.
///
/// ```
/// /                              the stores            /index.json
/// /STORE                         entities, schema, recent transactions
/// /STORE/ENTITY                  the records as a table (…/ENTITY.csv: the filtered table as CSV)
/// /STORE/ENTITY/ID               one record
/// /STORE/ENTITY/ID/ATTRIBUTE     one whole value, as text
/// /STORE/-/log                   the transaction log
/// /STORE/-/conflicts             the conflicts merges resolved
/// /STORE/-/commits               the git commits that touched the store
/// /STORE/-/diff?from=A&to=B      the records that differ between two points of the store's past
/// ```
/// Every page but a whole value has a JSON form: its path with `.json` added.
enum ServeRoute: Equatable {
    case index
    case store(String)
    case entity(store: String, entity: String)
    case record(store: String, entity: String, id: Int64)
    case value(store: String, entity: String, id: Int64, attribute: String)
    case log(store: String)
    case conflicts(store: String)
    case commits(store: String)
    case diff(store: String)

    /// How a page is asked for.
    enum Format: Equatable {
        case html, json, csv
    }

    /// Reads a request path (still percent-encoded) against the served store names.
    ///
    /// - Throws: ``HTTPError`` 400 for a malformed or escaping path (`..`, `%2e%2e`, control
    ///   characters), 404 for a path that names no page.
    static func parse(_ rawPath: Substring, storeNames: Set<String>) throws(HTTPError) -> (ServeRoute, Format) {
        var segments: [String] = []
        let parts = rawPath.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        for (position, part) in parts.enumerated() {
            guard let segment = PercentEncoding.decode(part) else {
                throw HTTPError(.badRequest, "The path holds a malformed percent-escape or bytes that are not UTF-8.")
            }
            if segment == "." || segment == ".." {
                throw HTTPError(.badRequest, "Paths with '.' or '..' segments are refused.")
            }
            if segment.contains("/") || segment.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
                throw HTTPError(.badRequest, "A path segment holds an encoded '/' or a control character.")
            }
            if segment.isEmpty {
                // A trailing slash is allowed; an empty segment elsewhere names nothing.
                guard position == parts.count - 1 else { throw notFound }
                continue
            }
            segments.append(segment)
        }
        return try route(segments, storeNames: storeNames)
    }

    private static var notFound: HTTPError { HTTPError(.notFound, "No page has this address.") }

    private static func route(_ segments: [String], storeNames: Set<String>) throws(HTTPError) -> (ServeRoute, Format) {
        guard let first = segments.first else { return (.index, .html) }
        if segments.count == 1 {
            if storeNames.contains(first) { return (.store(first), .html) }
            if first == "index.json" { return (.index, .json) }
            if let stripped = strip(first, ".json"), storeNames.contains(stripped) { return (.store(stripped), .json) }
            throw HTTPError(.notFound, "No store named '\(first)' is served here.")
        }
        guard storeNames.contains(first) else { throw HTTPError(.notFound, "No store named '\(first)' is served here.") }
        let store = first
        if segments[1] == "-" {
            guard segments.count == 3 else { throw notFound }
            let (name, format) = suffixed(segments[2])
            switch (name, format) {
            case ("log", .html), ("log", .json): return (.log(store: store), format)
            case ("conflicts", .html), ("conflicts", .json): return (.conflicts(store: store), format)
            case ("commits", .html), ("commits", .json): return (.commits(store: store), format)
            case ("diff", .html), ("diff", .json): return (.diff(store: store), format)
            default: throw notFound
            }
        }
        switch segments.count {
        case 2:
            let (entity, format) = suffixed(segments[1])
            return (.entity(store: store, entity: entity), format)
        case 3:
            let (idText, format) = suffixed(segments[2])
            guard format != .csv, let id = Int64(idText) else {
                throw HTTPError(.notFound, "'\(segments[2])' is not a record identifier (a whole number).")
            }
            return (.record(store: store, entity: segments[1], id: id), format)
        case 4:
            guard let id = Int64(segments[2]) else { throw HTTPError(.notFound, "'\(segments[2])' is not a record identifier (a whole number).") }
            return (.value(store: store, entity: segments[1], id: id, attribute: segments[3]), .html)
        default:
            throw notFound
        }
    }

    private static func suffixed(_ segment: String) -> (String, Format) {
        if let name = strip(segment, ".json") { return (name, .json) }
        if let name = strip(segment, ".csv") { return (name, .csv) }
        return (segment, .html)
    }

    private static func strip(_ text: String, _ suffix: String) -> String? {
        text.hasSuffix(suffix) && text.count > suffix.count ? String(text.dropLast(suffix.count)) : nil
    }

    /// The path of a page, every component percent-encoded.
    var path: String {
        func join(_ parts: String...) -> String { "/" + parts.map(PercentEncoding.encode).joined(separator: "/") }
        switch self {
        case .index: return "/"
        case .store(let store): return join(store)
        case .entity(let store, let entity): return join(store, entity)
        case .record(let store, let entity, let id): return join(store, entity, String(id))
        case .value(let store, let entity, let id, let attribute): return join(store, entity, String(id), attribute)
        case .log(let store): return join(store, "-", "log")
        case .conflicts(let store): return join(store, "-", "conflicts")
        case .commits(let store): return join(store, "-", "commits")
        case .diff(let store): return join(store, "-", "diff")
        }
    }

    /// The path of the page's JSON (or CSV) form.
    func path(_ format: Format) -> String {
        switch (self, format) {
        case (_, .html): return path
        case (.index, .json): return "/index.json"
        case (_, .json): return path + ".json"
        case (_, .csv): return path + ".csv"
        }
    }
}
