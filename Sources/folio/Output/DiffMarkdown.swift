import FolioStorage

/// `folio diff --markdown`: the differences of two stores as GitHub-flavoured Markdown, for a pull
/// request's description or a CI comment. A heading with the summary, then per entity a table of its
/// inserted, changed and deleted records; a changed record shows each changed attribute `old → new`.
///
/// The text is bounded whatever the stores hold: at most ``maximumRows`` records in all, at most
/// ``maximumAttributes`` attributes per record and ``maximumValueLength`` characters per value, each
/// cut said with a count of what was left out. Every value is escaped so that it shows as text: `|`,
/// backquotes, HTML and line breaks cannot end a cell, a table or a code span.
struct DiffMarkdown {
    /// The most records listed, over all entities.
    var maximumRows = 100
    /// The most attributes shown of one record.
    var maximumAttributes = 8
    /// The most characters shown of one value (as canonical JSON).
    var maximumValueLength = 80

    /// The Markdown for `comparison`; `title` names what was compared (stores and points), as code.
    func render(_ comparison: DiffCommand.Comparison, title: String) -> String {
        let summary = DiffCommand.summary(comparison)
        var lines = ["### Folio: \(Self.code(title))", "", summary.prefix(1).uppercased() + summary.dropFirst() + "."]
        if comparison.schemaChanged {
            lines += ["", "The recorded schema changed: \(Self.escape(DiffCommand.schemaText(comparison)))."]
        }
        var shown = 0
        for entity in comparison.entities {
            let changes = comparison.changes.filter { $0.entity == entity }
            lines += ["", "#### \(Self.escape(entity)): \(Self.counts(changes))"]
            let room = max(0, maximumRows - shown)
            if room > 0 {
                lines += ["", "| | id | attributes |", "|---|--:|---|"]
                for change in changes.prefix(room) { lines.append(row(change)) }
                shown += min(room, changes.count)
            }
            if changes.count > room {
                let left = changes.count - room
                lines += ["", "_\(left)\(room > 0 ? " more" : "") \(left == 1 ? "record" : "records") of \(Self.escape(entity)) not shown._"]
            }
        }
        if comparison.changes.isEmpty { lines += ["", "No records differ."] }
        if shown < comparison.changes.count {
            lines += ["", "_Showing \(shown) of \(comparison.changes.count) changed records: run `folio diff` for all of them._"]
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// One record's row: its kind, identifier and attributes.
    private func row(_ change: DiffCommand.RecordChange) -> String {
        let kind: String
        var parts: [String]
        switch change.kind {
        case .insert:
            kind = "inserted"
            parts = DiffCommand.sortedNames(change.new.keys).map { "\(Self.code($0)) \(value(change.new[$0]))" }
        case .update:
            kind = "changed"
            parts = change.changedNames.map { "\(Self.code($0)) \(value(change.old[$0])) → \(value(change.new[$0]))" }
        case .delete:
            kind = "deleted"
            parts = DiffCommand.sortedNames(change.old.keys).map { "\(Self.code($0)) \(value(change.old[$0]))" }
        }
        if parts.count > maximumAttributes {
            let left = parts.count - maximumAttributes
            parts = Array(parts.prefix(maximumAttributes)) + ["_and \(left) more \(left == 1 ? "attribute" : "attributes")_"]
        }
        return "| \(kind) | \(change.id) | \(parts.joined(separator: "<br>")) |"
    }

    /// A value as a code span of its canonical JSON, cut to ``maximumValueLength`` characters; `(none)`
    /// for an attribute the record does not hold.
    private func value(_ value: JSONValue?) -> String {
        guard let value else { return "_(none)_" }
        let text = ValueFormatting.json(value)
        guard text.count > maximumValueLength else { return Self.code(text) }
        return Self.code(String(text.prefix(maximumValueLength))) + "… _(\(text.count) characters)_"
    }

    /// "1 inserted, 2 changed" for an entity's changes.
    private static func counts(_ changes: [DiffCommand.RecordChange]) -> String {
        let kinds: [(DiffCommand.RecordChange.Kind, String)] = [(.insert, "inserted"), (.update, "changed"), (.delete, "deleted")]
        return kinds.compactMap { kind, word in
            let count = changes.filter { $0.kind == kind }.count
            return count == 0 ? nil : "\(count) \(word)"
        }.joined(separator: ", ")
    }

    /// `text` as an inline code span inside a table cell, where HTML shows as text. GitHub's tables split
    /// cells at `|` even inside code, unless it is written `\|` (the table drops the backslash); a run of
    /// backquotes in the text gets a longer fence, and line breaks and control characters are spelled out.
    static func code(_ text: String) -> String {
        var safe = ""
        for character in text {
            switch character {
            case "|": safe += "\\|"
            case "\n": safe += "\\n"
            case "\r\n": safe += "\\r\\n"
            case "\r": safe += "\\r"
            default:
                if character.unicodeScalars.allSatisfy({ $0.properties.generalCategory == .control }) {
                    safe += character.unicodeScalars.map { "\\u{\(String($0.value, radix: 16))}" }.joined()
                } else {
                    safe.append(character)
                }
            }
        }
        let longestRun = safe.split(whereSeparator: { $0 != "`" }).map(\.count).max() ?? 0
        let fence = String(repeating: "`", count: longestRun + 1)
        let padding = safe.hasPrefix("`") || safe.hasSuffix("`") || safe.isEmpty ? " " : ""
        return fence + padding + safe + padding + fence
    }

    /// `text` as Markdown text: characters Markdown or HTML would read escaped.
    static func escape(_ text: String) -> String {
        var safe = ""
        for character in text {
            switch character {
            case "\\", "`", "*", "_", "[", "]", "#", "|", "!": safe += "\\\(character)"
            case "<": safe += "&lt;"
            case ">": safe += "&gt;"
            case "&": safe += "&amp;"
            case "\n", "\r": safe += " "
            default: safe.append(character)
            }
        }
        return safe
    }
}
