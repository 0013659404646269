import FolioStorage

/// The pages of `folio serve`: reads a request's route, the store's current state, and answers with the
/// page as HTML, JSON or CSV, or with an error page of the right status.
struct ServeSite: HTTPHandler {
    let stores: ServedStores
    /// Whether only loopback Host headers (`127.0.0.1`, `localhost`, `[::1]`, any port) are answered:
    /// this stops a web page from reaching a loopback server through a DNS name rebound to 127.0.0.1.
    let loopbackOnly: Bool

    func respond(to request: HTTPRequest) -> HTTPResponse {
        let json = Self.wantsJSON(request)
        if loopbackOnly, let host = request.header("host"), !Self.isLoopbackHost(host) {
            return ErrorPage.response(HTTPError(.misdirectedRequest, "This server answers requests for 127.0.0.1 and localhost only."), json: json)
        }
        var format: ServeRoute.Format = json ? .json : .html
        do {
            let (route, asked) = try ServeRoute.parse(request.rawPath, storeNames: Set(stores.entries.map(\.name)))
            if asked != .html { format = asked }
            guard let query = PercentEncoding.decodeQuery(request.rawQuery) else {
                throw HTTPError(.badRequest, "The query string holds a malformed percent-escape or bytes that are not UTF-8.")
            }
            return try page(route, format: format, query: PageQuery(items: query))
        } catch {
            return ErrorPage.response(error, json: format != .html)
        }
    }

    func respond(to error: HTTPError) -> HTTPResponse {
        ErrorPage.response(error, json: false)
    }

    /// Whether a Host header names the loopback interface.
    static func isLoopbackHost(_ host: String) -> Bool {
        var name = host.lowercased()
        if let colon = name.lastIndex(of: ":"), !name.hasSuffix("]"), name.first != "[" || name[..<colon].hasSuffix("]") {
            name = String(name[..<colon])
        }
        return name == "127.0.0.1" || name == "localhost" || name == "[::1]"
    }

    /// Whether the client prefers JSON: it accepts `application/json` and does not ask for HTML.
    static func wantsJSON(_ request: HTTPRequest) -> Bool {
        guard let accept = request.header("accept")?.lowercased() else { return false }
        return accept.contains("application/json") && !accept.contains("text/html")
    }

    private func page(_ route: ServeRoute, format: ServeRoute.Format, query: PageQuery) throws(HTTPError) -> HTTPResponse {
        if case .index = route { return IndexPage(stores: stores).response(format: format) }
        let context = try context(for: route, query: query)
        switch route {
        case .index: return IndexPage(stores: stores).response(format: format)
        case .store: return StorePage(context: context).response(format: format)
        case .entity(_, let entity): return try EntityTablePage(context: context, entity: entity).response(format: format)
        case .record(_, let entity, let id): return try RecordPage(context: context, entity: entity, id: id).response(format: format)
        case .value(_, let entity, let id, let attribute):
            return try ValuePage.response(context: context, entity: entity, id: id, attribute: attribute)
        case .log: return try LogPage(context: context).response(format: format)
        case .conflicts: return try ConflictsPage(context: context).response(format: format)
        case .commits: return try CommitsPage(context: context).response(format: format)
        case .diff: return try DiffPage(context: context).response(format: format)
        }
    }

    private func context(for route: ServeRoute, query: PageQuery) throws(HTTPError) -> PageContext {
        let name: String
        switch route {
        case .index: name = ""
        case .store(let store), .entity(let store, _), .record(let store, _, _), .value(let store, _, _, _), .log(let store),
            .conflicts(let store), .commits(let store), .diff(let store):
            name = store
        }
        do {
            let views = try stores.current(name)
            return PageContext(
                storeName: name, directory: stores.entry(named: name)?.path ?? "", views: views,
                schema: SchemaInfo(views.store.schema), query: query)
        } catch let failure as CommandFailure {
            throw HTTPError(.serviceUnavailable, failure.message + (failure.help.map { " \($0)" } ?? ""))
        } catch {
            throw HTTPError(.serviceUnavailable, "The store '\(name)' cannot be read now: \(error)")
        }
    }
}

/// A page's query parameters, decoded.
struct PageQuery {
    var items: [(String, String)]

    /// The last value of a parameter, nil when absent or empty.
    func value(_ name: String) -> String? {
        items.last { $0.0 == name }.map(\.1).flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Every non-empty value of a parameter, in order.
    func values(_ name: String) -> [String] {
        items.filter { $0.0 == name && !$0.1.isEmpty }.map(\.1)
    }

    /// A positive whole number parameter within `range`, `fallback` when absent.
    func integer(_ name: String, in range: ClosedRange<Int>, fallback: Int) throws(HTTPError) -> Int {
        guard let text = value(name) else { return fallback }
        guard let number = Int(text), range.contains(number) else {
            throw HTTPError(.badRequest, "The parameter \(name)=\(text) must be a whole number from \(range.lowerBound) to \(range.upperBound).")
        }
        return number
    }
}

/// What a store's pages read: the store in its current state, its schema and the page's parameters.
struct PageContext {
    var storeName: String
    /// The store's directory, as given on the command line.
    var directory: String
    /// The store and what the server keeps of it.
    var views: StoreViews
    var store: Store { views.store }
    var schema: SchemaInfo?
    var query: PageQuery

    var values: ValueHTML { ValueHTML(storeName: storeName, store: store, schema: schema) }

    /// The breadcrumbs down to the store, the store linked.
    var storeCrumbs: [PageLayout.Crumb] {
        [PageLayout.Crumb(text: "Stores", path: "/"), PageLayout.Crumb(text: storeName, path: ServeRoute.store(storeName).path)]
    }
}
