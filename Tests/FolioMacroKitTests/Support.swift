import Testing
@testable import FolioMacroKit

/// Compares generated source with the expected text; on a mismatch, records a line diff that says
/// which lines differ, so that a failure reads like a patch rather than two walls of text.
func expectSource(_ actual: String?, _ expected: String, sourceLocation: SourceLocation = #_sourceLocation) {
    guard let actual else {
        Issue.record("expected source, got nil", sourceLocation: sourceLocation)
        return
    }
    guard actual != expected else { return }
    Issue.record(
        Comment(rawValue: "generated source differs:\n" + lineDiff(expected: expected, actual: actual)),
        sourceLocation: sourceLocation)
}

/// Asserts that `actual` contains each of `fragments`, reporting the whole text when one is missing.
func expectContains(_ actual: String?, _ fragments: String..., sourceLocation: SourceLocation = #_sourceLocation) {
    guard let actual else {
        Issue.record("expected source, got nil", sourceLocation: sourceLocation)
        return
    }
    for fragment in fragments where !actual.contains(fragment) {
        Issue.record(Comment(rawValue: "missing:\n\(fragment)\n--- in ---\n\(actual)"), sourceLocation: sourceLocation)
    }
}

/// A minimal line diff (longest common subsequence): `-` expected only, `+` actual only.
func lineDiff(expected: String, actual: String) -> String {
    let a = expected.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    let b = actual.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    var table = Array(repeating: Array(repeating: 0, count: b.count + 1), count: a.count + 1)
    for i in stride(from: a.count - 1, through: 0, by: -1) {
        for j in stride(from: b.count - 1, through: 0, by: -1) {
            table[i][j] = a[i] == b[j] ? table[i + 1][j + 1] + 1 : max(table[i + 1][j], table[i][j + 1])
        }
    }
    var lines: [String] = []
    var i = 0, j = 0
    while i < a.count || j < b.count {
        if i < a.count, j < b.count, a[i] == b[j] {
            lines.append("  " + a[i]); i += 1; j += 1
        } else if j < b.count, i == a.count || table[i][j + 1] >= table[i + 1][j] {
            lines.append("+ " + b[j]); j += 1
        } else {
            lines.append("- " + a[i]); i += 1
        }
    }
    return lines.joined(separator: "\n")
}

/// The UTF-8 offset of the first occurrence of `needle` in `text` (for asserting offsets).
func offset(of needle: String, in text: String, occurrence: Int = 1) -> Int? {
    let hay = Array(text.utf8), pin = Array(needle.utf8)
    guard !pin.isEmpty, hay.count >= pin.count else { return nil }
    var seen = 0
    for start in 0...(hay.count - pin.count) where Array(hay[start..<(start + pin.count)]) == pin {
        seen += 1
        if seen == occurrence { return start }
    }
    return nil
}

/// The 1-based line of the first occurrence of `needle` in `text`.
func line(of needle: String, in text: String, occurrence: Int = 1) -> Int? {
    guard let at = offset(of: needle, in: text, occurrence: occurrence) else { return nil }
    return 1 + Array(text.utf8)[0..<at].filter { $0 == 0x0A }.count
}

/// Builds the requests the compiler sends for one `@Model` class, for in-process expansion.
struct ModelRequests {
    var source: String
    var fileName = "/tmp/Fixture.swift"
    var offset = 0
    var line = 1
    /// The compiler's `conformanceListSyntax` for the member and extension roles (nil: absent).
    var conformanceList: String? = "struct Placeholder: PersistentModel, Observable {}"
    var extendedType = "Trip"

    var snippet: SourceSnippet { SourceSnippet(source: source, fileName: fileName, offset: offset, line: line) }
    var attribute: SourceSnippet { SourceSnippet(source: "\n@Model", fileName: fileName, offset: offset, line: line) }

    func member() -> ExpansionRequest {
        ExpansionRequest(
            typeName: "ModelMacro", role: .member, attribute: attribute, declaration: snippet,
            conformanceList: conformanceList)
    }

    func extensionRole() -> ExpansionRequest {
        ExpansionRequest(
            typeName: "ModelMacro", role: .extension, attribute: attribute, declaration: snippet,
            extendedType: extendedType, conformanceList: conformanceList)
    }

    func memberAttribute(_ memberSource: String) -> ExpansionRequest {
        ExpansionRequest(
            typeName: "ModelMacro", role: .memberAttribute, attribute: attribute,
            declaration: SourceSnippet(source: memberSource, fileName: fileName),
            parentDeclaration: snippet, lexicalContext: [source])
    }

    static func persisted(_ role: MacroRole, _ memberSource: String) -> ExpansionRequest {
        ExpansionRequest(
            typeName: "PersistedPropertyMacro", role: role,
            attribute: SourceSnippet(source: "@_PersistedProperty", fileName: "@__swiftmacro_x.swift"),
            declaration: SourceSnippet(source: memberSource, fileName: "/tmp/Fixture.swift"))
    }
}

/// The members of a parsed type that are declarations, flattened through `#if`.
func decls(_ type: TypeDeclSyntax?) -> [MemberDecl] {
    type?.allMembers.map(\.decl) ?? []
}
