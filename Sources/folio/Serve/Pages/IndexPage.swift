import FolioStorage

/// `/`: every store served, with its entities and their record counts.
struct IndexPage {
    let stores: ServedStores

    struct Summary {
        var name: String
        var path: String
        var entities: [(name: String, records: Int)] = []
        var lastSequence: UInt64 = 0
        var problem: String?
    }

    func summaries() -> [Summary] {
        stores.entries.map { entry in
            var summary = Summary(name: entry.name, path: entry.path)
            do {
                let store = try stores.current(entry.name).store
                summary.entities = RecordQuery.knownEntities(of: store, schema: SchemaInfo(store.schema)).map { ($0, store.count(of: $0)) }
                summary.lastSequence = store.lastSequence
            } catch let failure as CommandFailure {
                summary.problem = failure.message
            } catch {
                summary.problem = "\(error)"
            }
            return summary
        }
    }

    func response(format: ServeRoute.Format) -> HTTPResponse {
        let summaries = summaries()
        if format != .html {
            let list: [JSONValue] = summaries.map { summary in
                var object: [String: JSONValue] = [
                    "name": .string(summary.name), "path": .string(summary.path), "url": .string(ServeRoute.store(summary.name).path),
                    "lastSequence": .int(Int64(clamping: summary.lastSequence)),
                    "entities": .array(
                        summary.entities.map { entity in
                            .object([
                                "name": .string(entity.name), "records": .int(Int64(entity.records)),
                                "url": .string(ServeRoute.entity(store: summary.name, entity: entity.name).path),
                            ])
                        }),
                ]
                if let problem = summary.problem { object["error"] = .string(problem) }
                return .object(object)
            }
            return .json(ValueFormatting.json(.object(["stores": .array(list)])))
        }
        var body = "<h1>Stores</h1>\n<div class=\"cards\">\n"
        for summary in summaries {
            body += "<section class=\"card\"><h2>\(PageLayout.link(ServeRoute.store(summary.name).path, summary.name))</h2>"
            body += "<p class=\"dim mono\">\(HTMLEscaping.escape(summary.path))</p>"
            if let problem = summary.problem {
                body += "<p class=\"error\">\(HTMLEscaping.escape(problem))</p>"
            } else if summary.entities.isEmpty {
                body += "<p class=\"dim\">No entities.</p>"
            } else {
                body += "<table><tr><th>Entity</th><th>Records</th></tr>"
                for entity in summary.entities {
                    body += "<tr><td>\(PageLayout.link(ServeRoute.entity(store: summary.name, entity: entity.name).path, entity.name))</td>"
                    body += "<td class=\"num\">\(Numbers.grouped(entity.records))</td></tr>"
                }
                body += "</table>"
            }
            body += "</section>\n"
        }
        body += "</div>"
        return .html(
            PageLayout.page(
                title: "Stores", crumbs: [PageLayout.Crumb(text: "Stores")],
                alternates: [("JSON", ServeRoute.index.path(.json))], body: body))
    }
}

/// Counts for people: `5,007`.
enum Numbers {
    static func grouped(_ number: Int) -> String {
        let digits = String(number.magnitude)
        var result = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { result.append(",") }
            result.append(digit)
        }
        return (number < 0 ? "-" : "") + result
    }
}
