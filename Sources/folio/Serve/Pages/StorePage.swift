import FolioStorage

/// `/STORE`: the store's entities with their record counts, its schema and its recent transactions.
struct StorePage {
    let context: PageContext
    /// How many of the newest transactions the page lists.
    static let recentCount = 10

    func response(format: ServeRoute.Format) -> HTTPResponse {
        let store = context.store
        let entities = RecordQuery.knownEntities(of: store, schema: context.schema)
        let recent = ((try? context.views.history().transactions) ?? []).suffix(Self.recentCount).reversed()
        if format != .html {
            let object: JSONValue = .object([
                "name": .string(context.storeName), "lastSequence": .int(Int64(clamping: store.lastSequence)),
                "entities": .array(
                    entities.map { name in
                        var entity: [String: JSONValue] = [
                            "name": .string(name), "records": .int(Int64(store.count(of: name))),
                            "url": .string(ServeRoute.entity(store: context.storeName, entity: name).path),
                        ]
                        if let superentity = context.schema?.entities[name]?.superentity { entity["superentity"] = .string(superentity) }
                        return .object(entity)
                    }),
                "schema": store.schema ?? .null,
                "recentTransactions": .array(recent.map(LogCommand.summaryJSON)),
            ])
            return .json(ValueFormatting.json(object))
        }
        var body = "<h1>\(HTMLEscaping.escape(context.storeName))</h1>\n"
        body += "<p>\(PageLayout.link(ServeRoute.log(store: context.storeName).path, "Transaction log")) · "
        body += "\(PageLayout.link(ServeRoute.commits(store: context.storeName).path, "Commits")) · "
        body += "\(PageLayout.link(ServeRoute.conflicts(store: context.storeName).path, "Merge conflicts")) · "
        body += "<span class=\"dim\">last sequence \(store.lastSequence)</span></p>\n"
        body += "<h2>Entities</h2>\n<table><tr><th>Entity</th><th>Superentity</th><th>Records</th></tr>"
        for name in entities {
            let superentity = context.schema?.entities[name]?.superentity.map { HTMLEscaping.escape($0) } ?? ""
            body += "<tr><td>\(PageLayout.link(ServeRoute.entity(store: context.storeName, entity: name).path, name))</td>"
            body += "<td>\(superentity)</td><td class=\"num\">\(Numbers.grouped(store.count(of: name)))</td></tr>"
        }
        body += "</table>\n"
        body += schemaHTML(entities)
        body += "<h2>Recent transactions</h2>\n" + LogPage.table(Array(recent), context: context)
        return .html(
            PageLayout.page(
                title: context.storeName, crumbs: [PageLayout.Crumb(text: "Stores", path: "/"), PageLayout.Crumb(text: context.storeName)],
                alternates: [("JSON", ServeRoute.store(context.storeName).path(.json))], body: body))
    }

    /// Each entity's properties (kind, type, options, relationship details), uniqueness and indexes.
    private func schemaHTML(_ entities: [String]) -> String {
        guard let schema = context.schema else { return "<h2>Schema</h2><p class=\"dim\">The store records no schema.</p>" }
        var html = "<h2>Schema\(schema.version.map { " <span class=\"dim\">version \(HTMLEscaping.escape($0))</span>" } ?? "")</h2>\n"
        for name in entities {
            guard let entity = schema.entities[name] else { continue }
            html += "<h3 id=\"schema-\(PageLayout.attribute(PercentEncoding.encode(name)))\">\(HTMLEscaping.escape(name))</h3>"
            html += "<table><tr><th>Property</th><th>Kind</th><th>Type</th><th>Details</th></tr>"
            for property in entity.properties.values.sorted(by: { $0.name < $1.name }) {
                var details: [String] = []
                if property.isOptional { details.append("optional") }
                details += property.options
                if let destination = property.destination { details.append("→ \(destination)\(property.isToMany ? " (to-many)" : "")") }
                if let inverse = property.inverse { details.append("inverse \(inverse)") }
                if let rule = property.deleteRule { details.append("delete rule \(rule)") }
                if let original = property.originalName { details.append("was \(original)") }
                html += "<tr><td>\(HTMLEscaping.escape(property.name))</td><td>\(HTMLEscaping.escape(property.kind))</td>"
                html += "<td>\(HTMLEscaping.escape(property.type ?? ""))</td><td>\(HTMLEscaping.escape(details.joined(separator: ", ")))</td></tr>"
            }
            html += "</table>"
            for (label, groups) in [("Unique", entity.uniqueness), ("Indexes", entity.indices)] where !groups.isEmpty {
                html += "<p>\(label): " + HTMLEscaping.escape(groups.map { "(" + $0.joined(separator: ", ") + ")" }.joined(separator: ", ")) + "</p>"
            }
        }
        return html
    }
}
