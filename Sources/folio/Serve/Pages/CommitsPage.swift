import Foundation
import FolioStorage

/// `/STORE/-/commits`: in a git work tree, the commits that touched the store's directory, newest first,
/// a page at a time, each linked to its diff with its first parent. Outside a work tree the page says so
/// (200: the store is there, it has no commits to list).
struct CommitsPage {
    let context: PageContext
    /// The most commits a page lists.
    static let maximumPageSize = 200

    func response(format: ServeRoute.Format) throws(HTTPError) -> HTTPResponse {
        let size = try context.query.integer("size", in: 1...Self.maximumPageSize, fallback: 50)
        let page = try context.query.integer("page", in: 1...1_000_000, fallback: 1)
        let route = ServeRoute.commits(store: context.storeName)
        guard let repository = TransactionCommits.findInWorkTree(storeDirectory: URL(fileURLWithPath: context.directory)) else {
            return outsideWorkTree(format: format, route: route)
        }
        let log = StoreCommits(repository)
        var total = 0
        var commits: [StoreCommits.Commit] = []
        do {
            if try log.hasCommits() {
                total = try log.count()
                commits = try log.commits(skip: (page - 1) * size, limit: size)
            }
        } catch {
            throw HTTPError(.serviceUnavailable, "The commits of '\(context.storeName)' cannot be listed: \(error.failure.message)")
        }
        let pages = max(1, (total + size - 1) / size)
        if format != .html {
            let object: JSONValue = .object([
                "store": .string(context.storeName), "gitWorkTree": .bool(true), "total": .int(Int64(total)), "page": .int(Int64(page)),
                "pageSize": .int(Int64(size)), "pages": .int(Int64(pages)),
                "commits": .array(
                    commits.map { commit in
                        .object([
                            "hash": .string(commit.hash), "parents": .array(commit.parents.map { .string($0) }), "author": .string(commit.author),
                            "date": .string(commit.date), "subject": .string(commit.subject), "diff": diffPath(commit).map { .string($0) } ?? .null,
                        ])
                    }),
            ])
            return .json(ValueFormatting.json(object))
        }
        var body = "<h1>Commits</h1>\n"
        body += "<p class=\"dim\">\(Numbers.grouped(total)) commit\(total == 1 ? "" : "s") touched the store's folder, newest first. "
        body += "A commit links to what it changed since its first parent.</p>"
        body += table(commits)
        body += Pager.html(page: page, pages: pages, path: { Pager.path(route.path, page: $0, size: size) })
        return .html(
            PageLayout.page(
                title: "Commits of \(context.storeName)", crumbs: context.storeCrumbs + [PageLayout.Crumb(text: "Commits")],
                alternates: [("JSON", Pager.path(route.path(.json), page: page, size: size))],
                body: body))
    }

    /// The diff of a commit with its first parent; nil for a root commit.
    func diffPath(_ commit: StoreCommits.Commit) -> String? {
        guard let parent = commit.parents.first else { return nil }
        return DiffPage.path(store: context.storeName, from: parent, to: commit.hash)
    }

    private func table(_ commits: [StoreCommits.Commit]) -> String {
        if commits.isEmpty { return "<p class=\"dim\">No commit on this page.</p>" }
        var html =
            "<div class=\"scroll\"><table id=\"commits\"><thead><tr><th>Commit</th><th>Date</th><th>Author</th><th>Subject</th></tr></thead><tbody>"
        for commit in commits {
            let hash =
                diffPath(commit).map { PageLayout.link($0, commit.shortHash, className: "mono") }
                ?? "<span class=\"mono\">\(HTMLEscaping.escape(commit.shortHash))</span> <span class=\"dim\">(root)</span>"
            html += "<tr id=\"c\(HTMLEscaping.escape(commit.hash))\"><td>\(hash)</td><td>\(Self.date(commit.date))</td>"
            html += "<td>\(HTMLEscaping.escape(commit.author))</td><td>\(HTMLEscaping.escape(commit.subject))</td></tr>"
        }
        return html + "</tbody></table></div>"
    }

    /// A git date (`%aI`) in a `<time>` element.
    static func date(_ iso: String) -> String {
        "<time datetime=\"\(PageLayout.attribute(iso))\">\(HTMLEscaping.escape(iso.replacingOccurrences(of: "T", with: " ")))</time>"
    }

    private func outsideWorkTree(format: ServeRoute.Format, route: ServeRoute) -> HTTPResponse {
        if format != .html {
            return .json(ValueFormatting.json(.object(["store": .string(context.storeName), "gitWorkTree": .bool(false), "commits": .array([])])))
        }
        let body = """
            <h1>Commits</h1>
            <p>The store is not in a git work tree, so no commits are listed. Its own history is in the \
            \(PageLayout.link(ServeRoute.log(store: context.storeName).path, "transaction log")); \
            'git init' in a folder above it (then 'folio git-setup') starts one.</p>
            """
        return .html(
            PageLayout.page(
                title: "Commits of \(context.storeName)", crumbs: context.storeCrumbs + [PageLayout.Crumb(text: "Commits")],
                alternates: [("JSON", route.path(.json))], body: body))
    }
}
