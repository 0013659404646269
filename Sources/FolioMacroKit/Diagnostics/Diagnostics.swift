/// Builds diagnostics that point at a byte of a snippet the compiler sent.
enum Diagnostics {
    /// An error at `localOffset` bytes into `snippet.source`.
    static func error(
        _ message: String, at localOffset: Int, in snippet: SourceSnippet,
        fixIts: [MacroDiagnostic.FixIt] = []
    ) -> MacroDiagnostic {
        make(message, .error, at: localOffset, in: snippet, fixIts: fixIts)
    }

    static func warning(_ message: String, at localOffset: Int, in snippet: SourceSnippet) -> MacroDiagnostic {
        make(message, .warning, at: localOffset, in: snippet, fixIts: [])
    }

    static func make(
        _ message: String, _ severity: MacroDiagnostic.Severity, at localOffset: Int,
        in snippet: SourceSnippet, fixIts: [MacroDiagnostic.FixIt]
    ) -> MacroDiagnostic {
        let bytes = Array(snippet.source.utf8)
        let clamped = max(0, min(localOffset, bytes.count))
        let line = snippet.line + bytes[0..<clamped].reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
        let shifted = fixIts.map {
            MacroDiagnostic.FixIt(
                message: $0.message, startOffset: snippet.offset + $0.startOffset,
                endOffset: snippet.offset + $0.endOffset, replacement: $0.replacement)
        }
        return MacroDiagnostic(
            message: message, severity: severity, fileName: snippet.fileName,
            offset: snippet.offset + clamped, line: line, fixIts: shifted)
    }
}
