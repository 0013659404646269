import FolioStorage

/// `/STORE/-/log`: the retained transactions, newest first, a page at a time, with their changes.
struct LogPage {
    let context: PageContext
    /// How many changes of one transaction the page lists before it says "and N more".
    static let changesShown = 20

    func response(format: ServeRoute.Format) throws(HTTPError) -> HTTPResponse {
        let size = try context.query.integer("size", in: 1...1000, fallback: 50)
        let page = try context.query.integer("page", in: 1...Int(Int32.max), fallback: 1)
        let all: [JournalTransaction]
        do { all = try context.views.history().transactions } catch {
            throw HTTPError(.serviceUnavailable, "The history of '\(context.storeName)' cannot be read: \(error)")
        }
        let newestFirst = all.reversed()
        let shown = Array(newestFirst.dropFirst((page - 1) * size).prefix(size))
        let pages = max(1, (all.count + size - 1) / size)
        let route = ServeRoute.log(store: context.storeName)
        if format != .html {
            let object: JSONValue = .object([
                "store": .string(context.storeName), "total": .int(Int64(all.count)), "page": .int(Int64(page)),
                "pageSize": .int(Int64(size)), "pages": .int(Int64(pages)),
                "transactions": .array(
                    shown.map { transaction in
                        var summary = LogCommand.summaryJSON(transaction).objectValue ?? [:]
                        summary["changes"] = .array(
                            LogCommand.changes(of: transaction).map { change in
                                .object([
                                    "kind": .string(change.kind), "entity": .string(change.entity), "id": .int(change.id),
                                    "values": .object(change.values),
                                ])
                            })
                        return .object(summary)
                    }),
            ])
            return .json(ValueFormatting.json(object))
        }
        var body = "<h1>Transaction log</h1>\n"
        body += "<p class=\"dim\">\(Numbers.grouped(all.count)) retained transaction\(all.count == 1 ? "" : "s"), newest first.</p>"
        body += Self.table(shown, context: context, withChanges: true)
        body += Pager.html(page: page, pages: pages, path: { Pager.path(route.path, page: $0, size: size) })
        return .html(
            PageLayout.page(
                title: "Log of \(context.storeName)", crumbs: context.storeCrumbs + [PageLayout.Crumb(text: "Log")],
                alternates: [("JSON", Pager.path(route.path(.json), page: page, size: size))],
                body: body))
    }

    /// A table of transactions: sequence, time, author, summary and, if asked, each change.
    static func table(_ transactions: [JournalTransaction], context: PageContext, withChanges: Bool = false) -> String {
        if transactions.isEmpty { return "<p class=\"dim\">No retained transactions.</p>" }
        var html = "<div class=\"scroll\"><table><thead><tr><th>Seq</th><th>Time</th><th>Author</th><th>Changes</th></tr></thead><tbody>"
        for transaction in transactions {
            html += "<tr id=\"t\(transaction.sequence)\"><td class=\"num\">\(transaction.sequence)</td>"
            html += "<td>\(context.values.time(transaction.timestamp))</td>"
            html += "<td>\(transaction.author.map(HTMLEscaping.escape) ?? "<span class=\"nil\">nil</span>")</td>"
            html += "<td>\(HTMLEscaping.escape(LogCommand.summary(of: transaction)))"
            for migration in transaction.migrations {
                html += "<br><span class=\"dim\">\(HTMLEscaping.escape(LogCommand.migrationText(migration)))</span>"
            }
            if withChanges { html += changeList(transaction, context: context) }
            html += "</td></tr>"
        }
        return html + "</tbody></table></div>"
    }

    /// The first ``changesShown`` changes of a transaction, and how many more it has.
    private static func changeList(_ transaction: JournalTransaction, context: PageContext) -> String {
        let total = transaction.inserted.count + transaction.updated.count + transaction.deleted.count
        guard total > 0 else { return "" }
        let changes = LogCommand.changes(of: transaction, limit: changesShown)
        var html = "<ul>"
        for change in changes.prefix(changesShown) {
            let mark = change.kind == "insert" ? "+" : change.kind == "update" ? "~" : "−"
            let link = PageLayout.link(
                ServeRoute.record(store: context.storeName, entity: change.entity, id: change.id).path, "\(change.entity) \(change.id)")
            var line = "<li>\(mark) \(link)"
            if !change.values.isEmpty {
                line +=
                    " <code>" + HTMLEscaping.escape(HTMLEscaping.truncated(ValueFormatting.json(.object(change.values)), to: 200).text) + "</code>"
            }
            html += line + "</li>"
        }
        if total > changesShown { html += "<li class=\"dim\">and \(total - changesShown) more</li>" }
        return html + "</ul>"
    }
}

/// Previous and next links with the page number.
enum Pager {
    /// `path` asking for page `page` of `size` rows.
    static func path(_ path: String, page: Int, size: Int) -> String {
        path + "?" + PercentEncoding.query([("page", String(page)), ("size", String(size))])
    }

    static func html(page: Int, pages: Int, path: (Int) -> String) -> String {
        var html = "<div class=\"pager\">"
        html += page > 1 ? PageLayout.link(path(page - 1), "← Previous") + " " : "<span class=\"dim\">← Previous</span>"
        html += "<span>Page \(Numbers.grouped(page)) of \(Numbers.grouped(pages))</span>"
        html += page < pages ? PageLayout.link(path(page + 1), "Next →") : "<span class=\"dim\">Next →</span>"
        return html + "</div>"
    }
}
