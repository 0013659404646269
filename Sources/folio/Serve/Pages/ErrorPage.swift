import FolioStorage

/// The page for a refused request: the status, a sentence saying why, and a way back.
enum ErrorPage {
    static func response(_ error: any Error, json: Bool) -> HTTPResponse {
        let refusal = (error as? HTTPError) ?? HTTPError(.internalServerError, "The page failed: \(error)")
        var response: HTTPResponse
        if json {
            let object: JSONValue = .object([
                "error": .object([
                    "status": .int(Int64(refusal.status.rawValue)), "message": .string(refusal.message),
                ])
            ])
            response = .json(ValueFormatting.json(object), status: refusal.status)
        } else {
            let title = "\(refusal.status.rawValue) \(refusal.status.reason)"
            let body = """
                <h1>\(HTMLEscaping.escape(title))</h1>
                <p class="error">\(HTMLEscaping.escape(refusal.message))</p>
                <p><a href="/">All stores</a></p>
                """
            response = .html(PageLayout.page(title: title, crumbs: [PageLayout.Crumb(text: "Stores", path: "/")], body: body), status: refusal.status)
        }
        if refusal.status == .methodNotAllowed { response.headers.append(("Allow", "GET, HEAD")) }
        return response
    }
}
