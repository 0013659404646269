import FolioStorage

/// `/STORE/-/conflicts`: the values merges did not keep, as `folio conflicts` lists them.
struct ConflictsPage {
    let context: PageContext

    func response(format: ServeRoute.Format) throws(HTTPError) -> HTTPResponse {
        let conflicts: [Store.ResolvedConflict]
        do { conflicts = try context.store.conflicts() } catch {
            throw HTTPError(.serviceUnavailable, "The conflicts of '\(context.storeName)' cannot be read: \(error)")
        }
        let route = ServeRoute.conflicts(store: context.storeName)
        if format != .html {
            let list: [JSONValue] = conflicts.map { resolved in
                let conflict = resolved.conflict
                return .object([
                    "entity": .string(conflict.entity), "id": .int(conflict.id), "member": .string(conflict.member),
                    "kept": conflict.kept ?? .null, "deleted": .bool(conflict.kept == nil), "lost": conflict.lost,
                    "lostTransaction": .string(conflict.lostTransaction), "sequence": .int(Int64(clamping: resolved.sequence)),
                    "transaction": .string(resolved.transactionID),
                ])
            }
            return .json(ValueFormatting.json(.object(["store": .string(context.storeName), "conflicts": .array(list)])))
        }
        var body = "<h1>Merge conflicts</h1>\n"
        if conflicts.isEmpty {
            body += "<p class=\"dim\">No conflicts recorded: no merge had to choose between two values.</p>"
        } else {
            body +=
                "<div class=\"scroll\"><table><thead><tr><th>Record</th><th>Attribute</th><th>Kept</th><th>Lost</th><th>Resolved in</th></tr></thead><tbody>"
            for resolved in conflicts {
                let conflict = resolved.conflict
                let record = PageLayout.link(
                    ServeRoute.record(store: context.storeName, entity: conflict.entity, id: conflict.id).path, "\(conflict.entity) \(conflict.id)")
                let kept =
                    conflict.kept.map { "<code>\(HTMLEscaping.escape(HTMLEscaping.truncated(ValueFormatting.json($0), to: 300).text))</code>" }
                    ?? "<span class=\"dim\">(record deleted)</span>"
                body += "<tr><td>\(record)</td><td>\(HTMLEscaping.escape(conflict.member))</td><td>\(kept)</td>"
                body += "<td><code>\(HTMLEscaping.escape(HTMLEscaping.truncated(ValueFormatting.json(conflict.lost), to: 300).text))</code></td>"
                body += "<td class=\"num\">\(PageLayout.link(ServeRoute.log(store: context.storeName).path, String(resolved.sequence)))</td></tr>"
            }
            body += "</tbody></table></div>"
        }
        return .html(
            PageLayout.page(
                title: "Conflicts in \(context.storeName)", crumbs: context.storeCrumbs + [PageLayout.Crumb(text: "Conflicts")],
                alternates: [("JSON", route.path(.json))], body: body))
    }
}
