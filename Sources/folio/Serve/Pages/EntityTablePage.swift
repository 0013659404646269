import FolioStorage

/// `/STORE/ENTITY`: an entity's records as a table, selected as `folio cat` selects them. Parameters:
/// `where` (the `--where` syntax, repeatable), `sort` (`-price,name`), `fields` (`name,price`),
/// `exact=1`, `page` (from 1) and `size` (rows a page, up to 1000). The CSV form holds every matching
/// record; the JSON form one page.
struct EntityTablePage {
    let context: PageContext
    let entity: String
    static let defaultSize = 50
    /// How many characters of a value a cell shows.
    static let cellLimit = 120

    struct Request {
        var filterTexts: [String]
        var sortText: String?
        var fieldsText: String?
        var exact: Bool
        var page: Int
        var size: Int

        /// The parameters that select the table (not the page), for links that keep them.
        var selection: [(String, String)] {
            var items = filterTexts.map { ("where", $0) }
            if let sortText { items.append(("sort", sortText)) }
            if let fieldsText { items.append(("fields", fieldsText)) }
            if exact { items.append(("exact", "1")) }
            return items
        }
    }

    func response(format: ServeRoute.Format) throws(HTTPError) -> HTTPResponse {
        let query = context.query
        let request = Request(
            filterTexts: query.values("where"), sortText: query.value("sort"), fieldsText: query.value("fields"),
            exact: query.value("exact") == "1", page: try query.integer("page", in: 1...Int(Int32.max), fallback: 1),
            size: try query.integer("size", in: 1...1000, fallback: Self.defaultSize))
        var filters: [Filter] = []
        for text in request.filterTexts {
            do { filters.append(try Filter.parse(text)) } catch {
                return refusal(
                    HTTPError(.badRequest, "Invalid filter '\(text)': \(error.message) (at character \(error.column + 1))."), request, format)
            }
        }
        guard let sortKeys = request.sortText.map(RecordQuery.parseSort) ?? [] else {
            return refusal(
                HTTPError(.badRequest, "The sort '\(request.sortText ?? "")' is invalid: write fields separated by commas, like -price,name."),
                request, format)
        }
        let wanted = request.fieldsText?.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty } ?? []
        var recordQuery = RecordQuery(entity: entity, filters: filters, sortKeys: sortKeys, wantedFields: wanted, exact: request.exact)
        if format != .csv {
            recordQuery.offset = (request.page - 1) * request.size
            recordQuery.limit = request.size
        }
        let result: RecordQuery.Result
        do { result = try recordQuery.run(on: context.store, schema: context.schema, source: context.views) } catch {
            if case .unknownEntity = error { throw HTTPError(.notFound, "\(error.message) in the store '\(context.storeName)'. \(error.help)") }
            return refusal(HTTPError(.badRequest, "\(error.message) \(error.help)"), request, format)
        }
        let columns = wanted.isEmpty ? result.fieldNames : wanted.filter { $0 != "id" }
        switch format {
        case .csv: return csv(result, columns: columns)
        case .json: return json(result, request: request, columns: columns)
        case .html: return html(result, request: request, columns: columns, sortKeys: sortKeys)
        }
    }

    private var route: ServeRoute { .entity(store: context.storeName, entity: entity) }

    private func link(_ request: Request, page: Int? = nil, sort: String?? = nil, format: ServeRoute.Format = .html) -> String {
        var changed = request
        if let sort { changed.sortText = sort }
        var items = changed.selection
        if format != .csv {
            items += [("page", String(page ?? request.page)), ("size", String(request.size))]
        }
        return route.path(format) + (items.isEmpty ? "" : "?" + PercentEncoding.query(items))
    }

    private func csv(_ result: RecordQuery.Result, columns: [String]) -> HTTPResponse {
        var text = (["id"] + columns).map(CSV.field).joined(separator: ",") + "\r\n"
        for record in result.records {
            text += ([String(record.id)] + columns.map { ValueFormatting.cell(record.values[$0]) }).map(CSV.field).joined(separator: ",") + "\r\n"
        }
        let filename = String(
            entity.unicodeScalars.filter { $0.isASCII && ($0.properties.isAlphabetic || $0.properties.numericType != nil) }.map(Character.init))
        return HTTPResponse(
            contentType: "text/csv; charset=utf-8", body: Array(text.utf8),
            headers: [("Content-Disposition", "inline; filename=\"\(filename.isEmpty ? "records" : filename).csv\"")])
    }

    private func json(_ result: RecordQuery.Result, request: Request, columns: [String]) -> HTTPResponse {
        let pages = max(1, (result.matched + request.size - 1) / request.size)
        var object: [String: JSONValue] = [
            "store": .string(context.storeName), "entity": .string(entity), "total": .int(Int64(result.matched)),
            "page": .int(Int64(request.page)), "pageSize": .int(Int64(request.size)), "pages": .int(Int64(pages)),
            "where": .array(request.filterTexts.map { .string($0) }), "columns": .array(columns.map { .string($0) }),
            "csv": .string(link(request, format: .csv)),
            "records": .array(
                result.records.map { record in
                    var shown = record
                    if request.fieldsText != nil { shown.values = record.values.filter { columns.contains($0) } }
                    return ValueFormatting.recordJSON(shown)
                }),
        ]
        if let sort = request.sortText { object["sort"] = .string(sort) }
        if request.page < pages { object["next"] = .string(link(request, page: request.page + 1, format: .json)) }
        if request.page > 1 { object["previous"] = .string(link(request, page: request.page - 1, format: .json)) }
        return .json(ValueFormatting.json(.object(object)))
    }

    private func html(_ result: RecordQuery.Result, request: Request, columns: [String], sortKeys: [RecordQuery.SortKey]) -> HTTPResponse {
        let pages = max(1, (result.matched + request.size - 1) / request.size)
        let first = (request.page - 1) * request.size
        var body = "<h1>\(HTMLEscaping.escape(entity))</h1>\n" + form(request, problem: nil)
        body += "<p class=\"dim\">"
        body +=
            result.records.isEmpty
            ? "No records on this page; \(Numbers.grouped(result.matched)) match."
            : "Records \(Numbers.grouped(first + 1))–\(Numbers.grouped(first + result.records.count)) of \(Numbers.grouped(result.matched))."
        body += " " + PageLayout.link(link(request, format: .csv), "CSV") + " · " + PageLayout.link(link(request, format: .json), "JSON") + "</p>\n"
        let showEntity = result.entities.count > 1
        body += "<div class=\"scroll\"><table id=\"records\"><thead><tr>"
        for column in ["id"] + (showEntity ? ["entity"] : []) + columns {
            body += header(column, request: request, sortKeys: sortKeys)
        }
        body += "</tr></thead><tbody>\n"
        let values = context.values
        for record in result.records {
            body +=
                "<tr><td class=\"num\">"
                + PageLayout.link(ServeRoute.record(store: context.storeName, entity: record.entity, id: record.id).path, String(record.id)) + "</td>"
            if showEntity { body += "<td>\(HTMLEscaping.escape(record.entity))</td>" }
            for column in columns {
                let cell = values.render(record.values[column], field: column, entity: record.entity, id: record.id, limit: Self.cellLimit)
                body += cell.isNumber ? "<td class=\"num\">\(cell.html)</td>" : "<td>\(cell.html)</td>"
            }
            body += "</tr>\n"
        }
        body += "</tbody></table></div>\n"
        body += Pager.html(page: request.page, pages: pages, path: { link(request, page: $0) })
        return .html(
            PageLayout.page(
                title: entity, crumbs: context.storeCrumbs + [PageLayout.Crumb(text: entity)],
                alternates: [("JSON", link(request, format: .json)), ("CSV", link(request, format: .csv))], body: body))
    }

    /// A column header that sorts by the column, ascending first, descending when it already sorts so.
    private func header(_ column: String, request: Request, sortKeys: [RecordQuery.SortKey]) -> String {
        let current = sortKeys.first?.field == column ? sortKeys.first : nil
        let next = current.map { $0.descending ? column : "-" + column } ?? column
        let mark = current.map { $0.descending ? " ▼" : " ▲" } ?? ""
        let ariaSort = current.map { $0.descending ? " aria-sort=\"descending\"" : " aria-sort=\"ascending\"" } ?? ""
        return "<th\(ariaSort)>" + PageLayout.link(link(request, page: 1, sort: .some(next)), column + mark) + "</th>"
    }

    /// The filter form: the `--where` text, the columns, and the sort and page size kept.
    private func form(_ request: Request, problem: String?) -> String {
        let combined = request.filterTexts.count == 1 ? request.filterTexts[0] : request.filterTexts.map { "(\($0))" }.joined(separator: " and ")
        var html = "<form class=\"filter\" method=\"get\" action=\"\(PageLayout.attribute(route.path))\">"
        html +=
            "<input type=\"text\" name=\"where\" aria-label=\"Filter\" placeholder=\"Filter, e.g. price &lt; 100 and name contains tart\" value=\"\(PageLayout.attribute(combined))\">"
        html +=
            "<input type=\"text\" name=\"fields\" aria-label=\"Columns\" placeholder=\"Columns, e.g. name,price\" value=\"\(PageLayout.attribute(request.fieldsText ?? ""))\" style=\"flex:0 1 14rem\">"
        if let sort = request.sortText { html += "<input type=\"hidden\" name=\"sort\" value=\"\(PageLayout.attribute(sort))\">" }
        if request.exact { html += "<input type=\"hidden\" name=\"exact\" value=\"1\">" }
        html += "<input type=\"hidden\" name=\"size\" value=\"\(request.size)\">"
        html += "<button type=\"submit\">Filter</button></form>"
        if let problem { html += "<p class=\"error\" id=\"problem\">\(HTMLEscaping.escape(problem))</p>" }
        return html
    }

    /// A 400 for a bad filter, sort or field: in HTML, the page with its form, so the filter can be fixed.
    private func refusal(_ error: HTTPError, _ request: Request, _ format: ServeRoute.Format) -> HTTPResponse {
        guard format == .html else { return ErrorPage.response(error, json: true) }
        let body = "<h1>\(HTMLEscaping.escape(entity))</h1>\n" + form(request, problem: error.message)
        return .html(PageLayout.page(title: entity, crumbs: context.storeCrumbs + [PageLayout.Crumb(text: entity)], body: body), status: error.status)
    }
}
