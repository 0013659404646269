import FolioStorage

/// `/STORE/ENTITY/ID`: every attribute of a record, its relationships both ways, its history and its blame.
struct RecordPage {
    let context: PageContext
    let entity: String
    let id: Int64
    /// How many characters of a value the page shows.
    static let valueLimit = 2000
    /// How many referring records the page lists.
    static let incomingShown = 200

    func response(format: ServeRoute.Format) throws(HTTPError) -> HTTPResponse {
        let loaded: RecordDetails?
        do { loaded = try RecordDetails.load(id: id, store: context.store, schema: context.schema, views: context.views) } catch {
            throw HTTPError(.serviceUnavailable, "The history of '\(context.storeName)' cannot be read: \(error)")
        }
        guard let details = loaded else {
            throw HTTPError(.notFound, "No record with identifier \(id) in the store '\(context.storeName)'.")
        }
        guard details.entity == entity || (context.schema?.isKind(details.entity, of: entity) ?? false) else {
            throw HTTPError(
                .notFound,
                "Record \(id) is a \(details.entity), not a \(entity): see \(ServeRoute.record(store: context.storeName, entity: details.entity, id: id).path)."
            )
        }
        let blame = try RecordBlameSection.load(id: id, context: context)
        if format != .html {
            var object = details.json.objectValue ?? [:]
            object["blame"] = blame.json
            object["relationships"] = .object(
                Dictionary(
                    uniqueKeysWithValues: details.outgoing.map { outgoing in
                        (outgoing.name, JSONValue.array(outgoing.targets.map { .int($0) }))
                    }))
            return .json(ValueFormatting.json(.object(object)))
        }
        var title = "\(details.entity) \(id)"
        if details.record == nil { title += " (deleted)" }
        var body = "<h1>\(HTMLEscaping.escape(title))</h1>\n"
        if let superentity = context.schema?.entities[details.entity]?.superentity {
            body += "<p class=\"dim\">A \(HTMLEscaping.escape(superentity)).</p>"
        }
        if let record = details.record { body += attributes(record, details: details) }
        body += incoming(details)
        body += history(details)
        body += blame.html(context: context)
        let crumbs =
            context.storeCrumbs + [
                PageLayout.Crumb(text: entity, path: ServeRoute.entity(store: context.storeName, entity: entity).path),
                PageLayout.Crumb(text: String(id)),
            ]
        return .html(
            PageLayout.page(
                title: title, crumbs: crumbs,
                alternates: [("JSON", ServeRoute.record(store: context.storeName, entity: entity, id: id).path(.json))], body: body))
    }

    private func attributes(_ record: StoredRecord, details: RecordDetails) -> String {
        let relationshipNames = Set(details.outgoing.map(\.name))
        let declared = context.schema.map { schema in schema.propertyNames(of: record.entity).filter { !relationshipNames.contains($0) } } ?? []
        let names = declared + record.values.keys.filter { !declared.contains($0) && !relationshipNames.contains($0) }.sorted()
        let values = context.values
        var html = "<table id=\"attributes\"><thead><tr><th>Attribute</th><th>Value</th></tr></thead><tbody>"
        for name in names {
            let cell =
                record.values[name].map { values.render($0, field: name, entity: record.entity, id: record.id, limit: Self.valueLimit).html }
                ?? "<span class=\"dim\">(not stored)</span>"
            html += "<tr><th scope=\"row\">\(HTMLEscaping.escape(name))</th><td>\(cell)</td></tr>"
        }
        html += "</tbody></table>"
        if !details.outgoing.isEmpty {
            html += "<h2>Relationships</h2><table id=\"relationships\"><tbody>"
            for outgoing in details.outgoing {
                let destination = outgoing.destination.map { " <span class=\"dim\">(\(HTMLEscaping.escape($0)))</span>" } ?? ""
                let targets =
                    outgoing.targets.isEmpty ? "<span class=\"dim\">none</span>" : outgoing.targets.map(values.recordLink).joined(separator: ", ")
                html += "<tr><th scope=\"row\">\(HTMLEscaping.escape(outgoing.name))\(destination)</th><td>\(targets)</td></tr>"
            }
            html += "</tbody></table>"
        }
        return html
    }

    private func incoming(_ details: RecordDetails) -> String {
        guard !details.incoming.isEmpty else { return "" }
        var html = "<h2>Referred to by</h2><ul id=\"incoming\">"
        for incoming in details.incoming.prefix(Self.incomingShown) {
            html +=
                "<li>\(context.values.recordLink(incoming.record)) <span class=\"dim\">via \(HTMLEscaping.escape(incoming.relationship))</span></li>"
        }
        if details.incoming.count > Self.incomingShown { html += "<li class=\"dim\">and \(details.incoming.count - Self.incomingShown) more</li>" }
        return html + "</ul>"
    }

    private func history(_ details: RecordDetails) -> String {
        var html = "<h2>History</h2>"
        guard !details.history.isEmpty else { return html + "<p class=\"dim\">No retained transaction changed this record.</p>" }
        html += "<table id=\"history\"><thead><tr><th>Seq</th><th>Time</th><th>Author</th><th>Change</th><th>Values</th></tr></thead><tbody>"
        for entry in details.history.reversed() {
            let transaction = entry.transaction
            let verb = ["insert": "inserted", "update": "updated", "delete": "deleted"][entry.change.kind] ?? entry.change.kind
            let changed =
                entry.change.values.isEmpty
                ? "" : HTMLEscaping.escape(HTMLEscaping.truncated(ValueFormatting.json(.object(entry.change.values)), to: 300).text)
            html += "<tr><td class=\"num\">\(transaction.sequence)</td><td>\(context.values.time(transaction.timestamp))</td>"
            html +=
                "<td>\(transaction.author.map(HTMLEscaping.escape) ?? "<span class=\"nil\">nil</span>")</td><td>\(verb)</td><td><code>\(changed)</code></td></tr>"
        }
        return html + "</tbody></table>"
    }
}

/// `/STORE/ENTITY/ID/ATTRIBUTE`: one whole value as plain text (text as it is, other values as JSON).
enum ValuePage {
    static func response(context: PageContext, entity: String, id: Int64, attribute: String) throws(HTTPError) -> HTTPResponse {
        guard let record = context.store.record(id: id), record.entity == entity || (context.schema?.isKind(record.entity, of: entity) ?? false)
        else {
            throw HTTPError(.notFound, "No \(entity) with identifier \(id) in the store '\(context.storeName)'.")
        }
        guard let value = record.values[attribute] else {
            throw HTTPError(.notFound, "\(record.entity) \(id) stores no attribute '\(attribute)'.")
        }
        if case .string(let text) = value { return .text(text) }
        return .text(ValueFormatting.pretty(value) + "\n")
    }
}
