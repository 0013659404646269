import Foundation
import Testing

/// What the documentation says is missing stays true: a status word such as "not built yet" is never
/// left in a page or a doc comment, and a "not yet" row of the SwiftData compatibility table names no
/// API that the sources declare, unless the row says the API is accepted without effect.
@Suite("Documentation status words")
struct DocumentationStatusTests {
    static let root = DocumentationTests.packageRoot

    /// Phrases that announce unfinished work. Where one is true, the compatibility table says so.
    static let statusPhrases = [
        "not built yet", "not yet built", "not yet supported", "not supported yet", "not yet implemented",
        "not implemented yet", "unimplemented", "coming soon", "TODO", "FIXME",
    ]

    /// Every Markdown page and every Swift source's doc comment lines, with their paths.
    static func documentedLines() throws -> [(path: String, line: Int, text: String)] {
        var found: [(String, Int, String)] = []
        let manager = FileManager.default
        for folder in ["docs", "Sources"] {
            guard let files = manager.enumerator(atPath: root.appendingPathComponent(folder).path) else { continue }
            for case let file as String in files where file.hasSuffix(".md") || file.hasSuffix(".swift") {
                let path = "\(folder)/\(file)"
                let text = try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
                for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                    let trimmed = line.trimmingCharacters(in: .whitespaces)
                    if file.hasSuffix(".md") || trimmed.hasPrefix("///") || trimmed.hasPrefix("//") {
                        found.append((path, number + 1, String(line)))
                    }
                }
            }
        }
        for page in ["README.md", "CONTRIBUTING.md"] {
            let text = try String(contentsOf: root.appendingPathComponent(page), encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                found.append((page, number + 1, String(line)))
            }
        }
        return found
    }

    @Test func noPageOrCommentAnnouncesUnfinishedWork() throws {
        let lines = try Self.documentedLines()
        #expect(lines.count > 1_000, "the documentation was found")
        for (path, line, text) in lines {
            for phrase in Self.statusPhrases where text.range(of: phrase, options: phrase == phrase.uppercased() ? [] : .caseInsensitive) != nil {
                Issue.record(
                    "\(path):\(line) says \"\(phrase)\": finish it, or say in docs/swiftdata-compatibility.md what is missing — \(text.trimmingCharacters(in: .whitespaces))"
                )
            }
        }
    }

    @Test func aNotYetRowNamesNothingTheSourcesDeclare() throws {
        let table = try String(contentsOf: Self.root.appendingPathComponent("docs/swiftdata-compatibility.md"), encoding: .utf8)
        let rows = table.split(separator: "\n").filter { $0.contains("| not yet |") }
        #expect(!rows.isEmpty, "the table has rows marked not yet")
        let sources = try Self.publicDeclarations()
        for row in rows {
            let cells = row.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count > 3 else { continue }
            // A row whose API is accepted without effect declares it on purpose.
            if cells[3].hasPrefix("Accepted") { continue }
            for name in Self.identifiers(inCodeSpansOf: cells[1]) where sources.contains(name) {
                Issue.record("docs/swiftdata-compatibility.md says `\(name)` is not yet there, but the sources declare it publicly: update the row")
            }
        }
    }

    /// The names the package's public declarations introduce.
    static func publicDeclarations() throws -> Set<String> {
        var names = Set<String>()
        let pattern = try NSRegularExpression(
            pattern: #"public (?:final )?(?:var|let|func|class|struct|enum|protocol|macro|typealias|actor) ([A-Za-z_][A-Za-z0-9_]*)"#)
        guard let files = FileManager.default.enumerator(atPath: root.appendingPathComponent("Sources").path) else { return names }
        for case let file as String in files where file.hasSuffix(".swift") {
            let text = try String(contentsOf: root.appendingPathComponent("Sources/\(file)"), encoding: .utf8)
            let range = NSRange(text.startIndex..., in: text)
            for match in pattern.matches(in: text, range: range) {
                if let name = Range(match.range(at: 1), in: text) { names.insert(String(text[name])) }
            }
        }
        return names
    }

    /// The plain identifiers written in backticks in a table cell (`@Query` gives `Query`).
    static func identifiers(inCodeSpansOf cell: String) -> [String] {
        cell.split(separator: "`", omittingEmptySubsequences: false).enumerated().compactMap { position, part in
            guard position % 2 == 1 else { return nil }
            let name = part.hasPrefix("@") ? part.dropFirst() : part[...]
            return name.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" } && !name.isEmpty ? String(name) : nil
        }
    }
}
