/// One token of Swift source, as Folio's declaration parser needs it.
///
/// Offsets are UTF-8 byte offsets into the text that was lexed, so that a diagnostic can point at
/// `snippet.offset + token.start`.
package struct Token: Sendable, Equatable {
    package enum Kind: Sendable, Equatable {
        /// An identifier or keyword. For a backticked name, `text` is the name without backticks.
        case identifier
        /// A string literal of any form (plain, multi-line, raw, with interpolations), or an extended
        /// regex literal (`#/…/#`).
        case string
        /// A number literal.
        case number
        /// Punctuation or an operator: `{ } ( ) [ ] < > , : ; = . ? ! @ \` and operator runs such as `->`.
        case punctuation
        /// `#` followed by an identifier: `#if`, `#else`, `#Index`, `#Predicate`.
        case pound
    }

    package var kind: Kind
    package var text: String
    /// First byte of the token in the lexed text.
    package var start: Int
    /// One past the last byte of the token.
    package var end: Int
    /// Whether a line break (in whitespace or comments) separates this token from the previous one.
    package var startsLine: Bool
    /// Whether the identifier was written in backticks.
    package var isBackticked: Bool = false

    package func isIdentifier(_ name: String) -> Bool {
        kind == .identifier && !isBackticked && text == name
    }

    package func isPunctuation(_ symbol: String) -> Bool {
        kind == .punctuation && text == symbol
    }
}
