/// Renames each `inner.evaluate(x)` in a `#Predicate` body to `inner.contains(x)`, so that Foundation's
/// macro (which on Linux refuses `evaluate`) expands it into `PredicateExpressions.build_contains`, for
/// which Folio supplies an overload that takes a predicate and builds a nested-predicate node.
///
/// Both names are eight bytes long, so every offset in the rewritten text is the offset in the file:
/// Foundation's diagnostics and fix-its point at the right place without any translation. Strings and
/// comments are left alone, because the rewrite works on tokens.
package struct EvaluateRewrite: Sendable {
    /// The macro's source with the calls renamed.
    package let source: String
    /// The UTF-8 offsets into the source of the names that were renamed.
    package let renamed: [Int]
    /// Calls that cannot be forwarded: `evaluate` with more than one input.
    package let diagnostics: [MacroDiagnostic]

    package init(_ snippet: SourceSnippet) {
        let tokens = Lexer.tokenize(snippet.source)
        var bytes = Array(snippet.source.utf8)
        var renamed: [Int] = []
        var diagnostics: [MacroDiagnostic] = []
        for index in tokens.indices where EvaluateRewrite.isEvaluateCall(tokens, at: index) {
            let name = tokens[index]
            if EvaluateRewrite.argumentCount(tokens, openingAt: index + 1) > 1 {
                diagnostics.append(
                    Diagnostics.error(
                        "#Predicate on Linux supports evaluate(_:) with one input only; write the inner predicate's condition here instead",
                        at: name.start, in: snippet))
                continue
            }
            bytes.replaceSubrange(name.start..<name.end, with: Array("contains".utf8))
            renamed.append(name.start)
        }
        self.source = String(decoding: bytes, as: UTF8.self)
        self.renamed = renamed
        self.diagnostics = diagnostics
    }

    /// `evaluate` written as a member (`p.evaluate(`, `p?.evaluate(`) and called.
    private static func isEvaluateCall(_ tokens: [Token], at index: Int) -> Bool {
        guard tokens[index].isIdentifier("evaluate"), index > 0, index + 1 < tokens.count else { return false }
        let before = tokens[index - 1]
        return before.kind == .punctuation && before.text.hasSuffix(".") && tokens[index + 1].isPunctuation("(")
    }

    /// The number of arguments in the parenthesised list that opens at `open`: top-level commas plus one.
    private static func argumentCount(_ tokens: [Token], openingAt open: Int) -> Int {
        var depth = 0
        var count = 1
        var index = open
        while index < tokens.count {
            let token = tokens[index]
            if token.kind == .punctuation {
                switch token.text {
                case "(", "[", "{": depth += 1
                case ")", "]", "}":
                    depth -= 1
                    if depth == 0 { return count }
                case "," where depth == 1: count += 1
                default: break
                }
            }
            index += 1
        }
        return count
    }
}
