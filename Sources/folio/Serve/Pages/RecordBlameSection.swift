import Foundation
import FolioStorage

/// The "Blame" section of a record page: for each attribute and relationship, the transaction that set
/// it and, in a git work tree, the commit that brought that transaction, as `folio blame` finds them.
///
/// Git runs only when a folder above the store holds a `.git`: once to find the work tree and once for
/// each distinct transaction the record's values were set by.
struct RecordBlameSection {
    /// The blame; nil when the record has none (deleted, or older than the retained history).
    var blame: RecordBlame?
    /// Why there is no blame, for the page.
    var absence: String?
    /// The commit that brought each setting transaction; nil outside a git work tree.
    var commits: [String: TransactionCommits.Commit]?
    /// Why the commits could not be found, when git failed.
    var gitProblem: String?

    /// The blame of record `id` of the page's store.
    static func load(id: Int64, context: PageContext) throws(HTTPError) -> RecordBlameSection {
        var section = RecordBlameSection()
        do {
            section.blame = try context.store.blame(id: id)
        } catch let error as RecordBlameError {
            section.absence = "No values to blame: \(error)."
            return section
        } catch {
            throw HTTPError(.serviceUnavailable, "The history of '\(context.storeName)' cannot be read: \(error)")
        }
        guard let blame = section.blame,
            let repository = TransactionCommits.findInWorkTree(storeDirectory: URL(fileURLWithPath: context.directory))
        else { return section }
        do {
            section.commits = try BlameCommand.findCommits(for: blame, in: repository)
        } catch let failure as CommandFailure {
            section.gitProblem = failure.message
        } catch {
            section.gitProblem = "\(error)"
        }
        return section
    }

    /// `folio blame --json`'s object (`gitError` added when git failed), or null.
    var json: JSONValue {
        guard let blame else { return .null }
        var object = BlameCommand.json(blame, commits: commits).objectValue ?? [:]
        if let gitProblem { object["gitError"] = .string(gitProblem) }
        return .object(object)
    }

    func html(context: PageContext) -> String {
        var html = "<h2>Blame</h2>"
        guard let blame else { return html + "<p class=\"dim\">\(HTMLEscaping.escape(absence ?? "No values to blame."))</p>" }
        if let gitProblem { html += "<p class=\"error\">The commits could not be found: \(HTMLEscaping.escape(gitProblem))</p>" }
        if blame.members.isEmpty { return html + "<p class=\"dim\">The record has no values.</p>" }
        let logLinks = LogLinks(context: context)
        html += "<table id=\"blame\"><thead><tr><th>Member</th><th>Seq</th><th>Author</th><th>Time</th>"
        if commits != nil { html += "<th>Commit</th><th>Subject</th><th>Commit author</th><th>Date</th>" }
        html += "</tr></thead><tbody>"
        for member in blame.members {
            html += "<tr><th scope=\"row\">\(HTMLEscaping.escape(member.name))</th>"
            switch member.origin {
            case .set(let setter):
                html += "<td class=\"num\">\(logLinks.link(setter.sequence))</td>"
                html +=
                    "<td>\(setter.author.map(HTMLEscaping.escape) ?? "<span class=\"nil\">nil</span>")</td><td>\(context.values.time(setter.timestamp))</td>"
                if let commits { html += Self.commitCells(commits[setter.transactionID]) }
            case .beforeRetainedHistory(let sequence):
                html +=
                    "<td class=\"num\">≤\(sequence)</td><td colspan=\"\(commits == nil ? 2 : 6)\" class=\"dim\">set at or before transaction \(sequence); older history is not retained</td>"
            case .notInHistory:
                html +=
                    "<td class=\"num\">-</td><td colspan=\"\(commits == nil ? 2 : 6)\" class=\"dim\">not written by a retained transaction (a merge mended it)</td>"
            }
            html += "</tr>"
        }
        return html + "</tbody></table>"
    }

    private static func commitCells(_ commit: TransactionCommits.Commit?) -> String {
        guard let commit else { return "<td colspan=\"4\" class=\"dim\">(uncommitted)</td>" }
        return "<td class=\"mono\" title=\"\(PageLayout.attribute(commit.hash))\">\(HTMLEscaping.escape(commit.shortHash))</td>"
            + "<td>\(HTMLEscaping.escape(commit.subject))</td><td>\(HTMLEscaping.escape(commit.author))</td><td>\(CommitsPage.date(commit.date))</td>"
    }
}
