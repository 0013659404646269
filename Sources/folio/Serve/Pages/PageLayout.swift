/// The frame of every HTML page: one inline stylesheet, system fonts, light and dark colours, an inline
/// SVG favicon, breadcrumbs. Pages load nothing from elsewhere and run no script.
enum PageLayout {
    /// A crumb of the navigation line: its text and, but for the current page, its path.
    struct Crumb {
        var text: String
        var path: String?
    }

    /// A whole page; `body` is HTML the caller escaped.
    static func page(title: String, crumbs: [Crumb], alternates: [(label: String, path: String)] = [], body: String) -> String {
        var navigation = crumbs.map { crumb in
            crumb.path.map { "<a href=\"\(attribute($0))\">\(HTMLEscaping.escape(crumb.text))</a>" }
                ?? "<span>\(HTMLEscaping.escape(crumb.text))</span>"
        }.joined(separator: " <span class=\"sep\">/</span> ")
        if !alternates.isEmpty {
            navigation +=
                "<span class=\"alt\">"
                + alternates.map { "<a href=\"\(attribute($0.path))\">\(HTMLEscaping.escape($0.label))</a>" }.joined(separator: " ") + "</span>"
        }
        return """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta name="color-scheme" content="light dark">
            <title>\(HTMLEscaping.escape(title)) · folio</title>
            <link rel="icon" href="\(favicon)">
            <style>\(stylesheet)</style>
            </head>
            <body>
            <nav>\(navigation)</nav>
            <main>
            \(body)
            </main>
            </body>
            </html>

            """
    }

    /// A value for a double-quoted attribute (an already encoded URL, a field name).
    static func attribute(_ text: String) -> String { HTMLEscaping.escape(text) }

    /// A link; `text` is escaped here.
    static func link(_ path: String, _ text: String, className: String? = nil) -> String {
        let classAttribute = className.map { " class=\"\($0)\"" } ?? ""
        return "<a href=\"\(attribute(path))\"\(classAttribute)>\(HTMLEscaping.escape(text))</a>"
    }

    /// A folio leaf on a page, as an SVG data URL.
    static let favicon =
        "data:image/svg+xml,"
        + PercentEncoding.encode(
            "<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 16 16'><rect x='2' y='1' width='12' height='14' rx='2' fill='#4a6fa5'/><path d='M5 5h6M5 8h6M5 11h4' stroke='white' stroke-width='1.5'/></svg>"
        )

    static let stylesheet = """
        :root{--bg:#fff;--fg:#1d1f23;--dim:#6b7280;--line:#e3e5e8;--head:#f5f6f8;--link:#2456a6;--accent:#4a6fa5;--bad:#b42318}
        @media (prefers-color-scheme:dark){:root{--bg:#16181c;--fg:#e6e7ea;--dim:#9aa1ad;--line:#2c3038;--head:#1f2228;--link:#8ab4f8;--accent:#8ab4f8;--bad:#f97066}}
        *{box-sizing:border-box}
        body{margin:0;background:var(--bg);color:var(--fg);font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
        nav{padding:.6rem 1.2rem;border-bottom:1px solid var(--line);background:var(--head)}
        nav .sep{color:var(--dim)} nav .alt{float:right} nav .alt a{margin-left:.8rem}
        main{padding:1rem 1.2rem;max-width:100%}
        a{color:var(--link);text-decoration:none} a:hover{text-decoration:underline}
        h1{font-size:1.4rem;margin:.2rem 0 .8rem} h2{font-size:1.1rem;margin:1.4rem 0 .5rem}
        .dim,.nil{color:var(--dim)} .nil{font-style:italic}
        .error{color:var(--bad)}
        .scroll{overflow:auto;max-height:75vh;border:1px solid var(--line);border-radius:6px}
        table{border-collapse:collapse;font-variant-numeric:tabular-nums}
        th,td{padding:.3rem .6rem;border-bottom:1px solid var(--line);text-align:left;vertical-align:top}
        th{position:sticky;top:0;background:var(--head);font-weight:600;white-space:nowrap;z-index:1}
        td.num{text-align:right;white-space:nowrap} td{max-width:32rem;overflow-wrap:break-word} time{white-space:nowrap}
        code,pre,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.9em}
        pre{white-space:pre-wrap;overflow-wrap:anywhere;margin:0}
        form.filter{display:flex;flex-wrap:wrap;gap:.5rem;margin:0 0 .8rem}
        form.filter input[type=text]{flex:1 1 22rem;padding:.35rem .5rem;font:inherit;color:inherit;background:var(--bg);border:1px solid var(--line);border-radius:5px}
        form.filter button{padding:.35rem .9rem;font:inherit}
        .pager{margin:.8rem 0;display:flex;gap:1rem;align-items:center}
        .cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(18rem,1fr));gap:1rem}
        .card{border:1px solid var(--line);border-radius:8px;padding:.8rem 1rem}
        """
}
