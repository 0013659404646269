import FolioStorage

/// `/STORE/-/diff?from=POINT&to=POINT`: the records that differ between two points of a store's past
/// (a transaction's sequence or identifier, or a git revision; `to` is the store as it is now when
/// absent), compared as `folio diff --from --to` compares them, a table per entity.
struct DiffPage {
    let context: PageContext
    /// The most changes a page shows; the rest are counted.
    static let changesShown = 500
    /// The most characters of one value a page shows.
    static let valueLimit = 300

    /// The page comparing `from` with `to` (the store as it is now when nil).
    static func path(store: String, from: String, to: String?) -> String {
        ServeRoute.diff(store: store).path + "?" + PercentEncoding.query([("from", from)] + (to.map { [("to", $0)] } ?? []))
    }

    func response(format: ServeRoute.Format) throws(HTTPError) -> HTTPResponse {
        guard let fromText = context.query.value("from") else {
            throw HTTPError(
                .badRequest, "Give the point to compare from: from=REVISION or from=SEQUENCE (and to=…, the store as it is now by default).")
        }
        let toText = context.query.value("to")
        let from = try Self.point(fromText, parameter: "from")
        let to = try toText.map { text throws(HTTPError) in try Self.point(text, parameter: "to") }
        let old = try open(from)
        defer { old.close() }
        let new = try to.map { point throws(HTTPError) in try open(point) }
        defer { new?.close() }
        let comparison = DiffCommand.compare(old, new ?? context.store)
        let shown = Array(comparison.changes.prefix(Self.changesShown))
        let omitted = comparison.changes.count - shown.count
        let route = ServeRoute.diff(store: context.storeName)
        if format != .html {
            var object = DiffCommand.json(comparison).objectValue ?? [:]
            object["changes"] = DiffCommand.json(DiffCommand.Comparison(changes: shown, oldSchema: nil, newSchema: nil))["changes"]
            object["store"] = .string(context.storeName)
            object["from"] = .string(fromText)
            object["to"] = toText.map { .string($0) } ?? .null
            object["changesOmitted"] = .int(Int64(omitted))
            return .json(ValueFormatting.json(.object(object)))
        }
        var body = "<h1>Changes from \(HTMLEscaping.escape(fromText)) to \(HTMLEscaping.escape(toText ?? "now"))</h1>\n"
        body += form(from: fromText, to: toText)
        body += "<p>\(HTMLEscaping.escape(DiffCommand.summary(comparison))).</p>"
        body += tables(shown)
        if omitted > 0 {
            body +=
                "<p class=\"dim\">and \(Numbers.grouped(omitted)) more change\(omitted == 1 ? "" : "s") not shown (the JSON form counts them too).</p>"
        }
        return .html(
            PageLayout.page(
                title: "Diff of \(context.storeName)", crumbs: context.storeCrumbs + [PageLayout.Crumb(text: "Diff")],
                alternates: [("JSON", route.path(.json) + "?" + PercentEncoding.query([("from", fromText)] + (toText.map { [("to", $0)] } ?? [])))],
                body: body))
    }

    /// A point as a query names it. A revision that git would read as an option, or with control
    /// characters, is refused here, before any git runs.
    static func point(_ text: String, parameter: String) throws(HTTPError) -> StorePoint {
        do { try GitStoreRevision.checkRevision(text) } catch {
            throw HTTPError(
                .badRequest,
                "\(parameter)=\(text.prefix(200)) is not a point of the store's past: name a transaction (12 or #12) or a git revision (HEAD~2, a commit); a revision cannot start with '-' or hold control characters."
            )
        }
        return StorePoint(text)
    }

    /// The store as it was at `point`, read-only; a point it cannot be read at is a 404 saying why.
    private func open(_ point: StorePoint) throws(HTTPError) -> Store {
        do {
            return try StoreAccess.openReadOnly(context.directory, at: point)
        } catch let failure as CommandFailure {
            throw HTTPError(.notFound, failure.message)
        } catch {
            throw HTTPError(.serviceUnavailable, "The store '\(context.storeName)' cannot be read as of \(point): \(error)")
        }
    }

    private func form(from: String, to: String?) -> String {
        """
        <form class="filter" method="get" action="\(PageLayout.attribute(ServeRoute.diff(store: context.storeName).path))">\
        <input type="text" name="from" value="\(PageLayout.attribute(from))" aria-label="from">\
        <input type="text" name="to" value="\(PageLayout.attribute(to ?? ""))" placeholder="now" aria-label="to">\
        <button type="submit">Compare</button></form>
        """
    }

    /// A table per entity: each record inserted (its values), changed (old → new) or deleted (its values).
    private func tables(_ changes: [DiffCommand.RecordChange]) -> String {
        var html = ""
        var index = changes.startIndex
        while index < changes.endIndex {
            let entity = changes[index].entity
            var end = index
            while end < changes.endIndex, changes[end].entity == entity { end += 1 }
            html +=
                "<h2>\(HTMLEscaping.escape(entity))</h2><div class=\"scroll\"><table class=\"diff\"><thead><tr><th>Record</th><th>Change</th><th>Values</th></tr></thead><tbody>"
            for change in changes[index..<end] { html += row(change) }
            html += "</tbody></table></div>"
            index = end
        }
        return html
    }

    private func row(_ change: DiffCommand.RecordChange) -> String {
        let link = PageLayout.link(
            ServeRoute.record(store: context.storeName, entity: change.entity, id: change.id).path, "\(change.entity) \(change.id)")
        let lines: [String]
        switch change.kind {
        case .insert: lines = DiffCommand.sortedNames(change.new.keys).map { "\(HTMLEscaping.escape($0)) \(value(change.new[$0]))" }
        case .delete: lines = DiffCommand.sortedNames(change.old.keys).map { "\(HTMLEscaping.escape($0)) \(value(change.old[$0]))" }
        case .update: lines = change.changedNames.map { "\(HTMLEscaping.escape($0)) \(value(change.old[$0])) → \(value(change.new[$0]))" }
        }
        let word = ["insert": "inserted", "update": "changed", "delete": "deleted"][change.kind.rawValue] ?? change.kind.rawValue
        return "<tr class=\"\(change.kind.rawValue)\"><td>\(link)</td><td>\(word)</td><td>\(lines.joined(separator: "<br>"))</td></tr>"
    }

    /// A value as canonical JSON, escaped and cut, or `(none)`.
    private func value(_ value: JSONValue?) -> String {
        guard let value else { return "<span class=\"dim\">(none)</span>" }
        let (text, remaining) = HTMLEscaping.truncated(ValueFormatting.json(value), to: Self.valueLimit)
        return "<code>\(HTMLEscaping.escape(text))\(remaining > 0 ? "…" : "")</code>"
    }
}
