/// One token of Swift source, as Folio's declaration parser needs it.
///
/// Offsets are UTF-8 byte offsets into the text that was lexed, so that a diagnostic can point at
/// `snippet.offset + token.start`.
public struct Token: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
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

    public var kind: Kind
    public var text: String
    /// First byte of the token in the lexed text.
    public var start: Int
    /// One past the last byte of the token.
    public var end: Int
    /// Whether a line break (in whitespace or comments) separates this token from the previous one.
    public var startsLine: Bool
    /// Whether the identifier was written in backticks.
    public var isBackticked: Bool = false

    public func isIdentifier(_ name: String) -> Bool {
        kind == .identifier && !isBackticked && text == name
    }

    public func isPunctuation(_ symbol: String) -> Bool {
        kind == .punctuation && text == symbol
    }
}
