/// A tokenizer for the part of Swift that declarations are made of.
///
/// It understands everything that can hide a brace or a quote from a naive scanner: line and nested
/// block comments, plain, multi-line and raw string literals with interpolations (which may contain
/// further strings), backticked identifiers, and unicode identifiers. It never fails: text it does
/// not understand becomes punctuation tokens, and an unterminated literal or comment ends at the end of
/// the input, so that the parser can report a diagnostic instead of the plugin crashing.
package struct Lexer {
    private let bytes: [UInt8]
    private var index = 0
    private var sawNewline = true
    /// Nesting of string literals inside interpolations; bounded so that pathological input cannot
    /// exhaust the stack.
    private var literalDepth = 0

    package init(_ text: String) {
        self.bytes = Array(text.utf8)
    }

    /// Tokenizes the whole input.
    package static func tokenize(_ text: String) -> [Token] {
        var lexer = Lexer(text)
        var tokens: [Token] = []
        while let token = lexer.next() {
            tokens.append(token)
        }
        return tokens
    }

    private func peek(_ offset: Int = 0) -> UInt8? {
        let position = index + offset
        return position < bytes.count ? bytes[position] : nil
    }

    private static func isIdentifierHead(_ byte: UInt8) -> Bool {
        (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == 0x5F || byte >= 0x80
    }

    private static func isIdentifierBody(_ byte: UInt8) -> Bool {
        isIdentifierHead(byte) || (byte >= 0x30 && byte <= 0x39)
    }

    private static let operatorBytes = Set("/=-+!*%<>&|^~?.".utf8)

    private mutating func skipTrivia() {
        while let byte = peek() {
            switch byte {
            case 0x0A, 0x0D:
                sawNewline = true
                index += 1
            case 0x20, 0x09, 0x0B, 0x0C:
                index += 1
            case UInt8(ascii: "/") where peek(1) == UInt8(ascii: "/"):
                while let next = peek(), next != 0x0A, next != 0x0D { index += 1 }
            case UInt8(ascii: "/") where peek(1) == UInt8(ascii: "*"):
                index += 2
                var depth = 1
                while depth > 0, let next = peek() {
                    if next == UInt8(ascii: "/"), peek(1) == UInt8(ascii: "*") {
                        depth += 1; index += 2
                    } else if next == UInt8(ascii: "*"), peek(1) == UInt8(ascii: "/") {
                        depth -= 1; index += 2
                    } else {
                        if next == 0x0A || next == 0x0D { sawNewline = true }
                        index += 1
                    }
                }
            default:
                return
            }
        }
    }

    /// Returns the next token, or nil at the end of the input.
    package mutating func next() -> Token? {
        skipTrivia()
        guard let byte = peek() else { return nil }
        let start = index
        let startsLine = sawNewline
        sawNewline = false

        func make(_ kind: Token.Kind, textStart: Int? = nil, textEnd: Int? = nil, backticked: Bool = false) -> Token {
            let from = textStart ?? start
            let to = textEnd ?? index
            return Token(
                kind: kind, text: String(decoding: bytes[from..<to], as: UTF8.self), start: start,
                end: index, startsLine: startsLine, isBackticked: backticked)
        }

        if byte == UInt8(ascii: "`") {
            index += 1
            let nameStart = index
            while let next = peek(), next != UInt8(ascii: "`"), next != 0x0A { index += 1 }
            let nameEnd = index
            if peek() == UInt8(ascii: "`") { index += 1 }
            return make(.identifier, textStart: nameStart, textEnd: nameEnd, backticked: true)
        }
        if Lexer.isIdentifierHead(byte) {
            while let next = peek(), Lexer.isIdentifierBody(next) { index += 1 }
            return make(.identifier)
        }
        if byte == UInt8(ascii: "$") {
            index += 1
            while let next = peek(), Lexer.isIdentifierBody(next) { index += 1 }
            return make(.identifier)
        }
        if byte >= 0x30 && byte <= 0x39 {
            while let next = peek() {
                if Lexer.isIdentifierBody(next) {
                    index += 1
                } else if next == UInt8(ascii: "."), let after = peek(1), after >= 0x30 && after <= 0x39 {
                    index += 1
                } else if (next == UInt8(ascii: "-") || next == UInt8(ascii: "+")),
                    let previous = index > 0 ? bytes[index - 1] : nil,
                    previous == UInt8(ascii: "e") || previous == UInt8(ascii: "E") || previous == UInt8(ascii: "p") || previous == UInt8(ascii: "P")
                {
                    index += 1
                } else {
                    break
                }
            }
            return make(.number)
        }
        if byte == UInt8(ascii: "\"") {
            scanString(hashes: 0)
            return make(.string)
        }
        if byte == UInt8(ascii: "#") {
            // A raw string: one or more '#' then a quote.
            var hashes = 0
            while peek(hashes) == UInt8(ascii: "#") { hashes += 1 }
            if peek(hashes) == UInt8(ascii: "\"") {
                index += hashes
                scanString(hashes: hashes)
                return make(.string)
            }
            if peek(hashes) == UInt8(ascii: "/") {
                // An extended regex literal, `#/a{2}/#`: it may hold braces and quotes.
                index += hashes + 1
                scanRegex(hashes: hashes)
                return make(.string)
            }
            index += 1
            if let next = peek(), Lexer.isIdentifierHead(next) {
                while let next = peek(), Lexer.isIdentifierBody(next) { index += 1 }
                return make(.pound)
            }
            return make(.punctuation)
        }
        if Lexer.operatorBytes.contains(byte) {
            // `->`, `...`, `==`, `?`, `!` and friends. `?`, `!`, `.`, `<`, `>`, `=` stand alone when
            // they are single, which is what a declaration parser wants.
            index += 1
            if byte == UInt8(ascii: "-"), peek() == UInt8(ascii: ">") {
                index += 1
                return make(.punctuation)
            }
            if byte == UInt8(ascii: "."), peek() == UInt8(ascii: "."), peek(1) == UInt8(ascii: ".") || peek(1) == UInt8(ascii: "<") {
                index += 2
                return make(.punctuation)
            }
            if [UInt8(ascii: "?"), UInt8(ascii: "!"), UInt8(ascii: "."), UInt8(ascii: "<"), UInt8(ascii: ">")].contains(byte) {
                if byte == UInt8(ascii: "!") || byte == UInt8(ascii: "<") || byte == UInt8(ascii: ">"), peek() == UInt8(ascii: "=") {
                    index += 1
                    if peek() == UInt8(ascii: "=") { index += 1 }
                }
                return make(.punctuation)
            }
            while let next = peek(), Lexer.operatorBytes.contains(next), next != UInt8(ascii: "."),
                !(next == UInt8(ascii: "/") && (peek(1) == UInt8(ascii: "/") || peek(1) == UInt8(ascii: "*")))
            {
                index += 1
            }
            return make(.punctuation)
        }
        index += 1
        return make(.punctuation)
    }

    /// Scans a string literal starting at the opening quote (after any `#`s of a raw string).
    private mutating func scanString(hashes: Int) {
        let isMultiline = peek(0) == UInt8(ascii: "\"") && peek(1) == UInt8(ascii: "\"") && peek(2) == UInt8(ascii: "\"")
        index += isMultiline ? 3 : 1
        while let byte = peek() {
            if byte == UInt8(ascii: "\\") && hashesFollow(at: index + 1, count: hashes) {
                index += 1 + hashes
                if peek() == UInt8(ascii: "(") {
                    scanInterpolation()
                } else if peek() != nil {
                    index += 1
                }
                continue
            }
            if byte == UInt8(ascii: "\"") {
                if isMultiline {
                    if peek(1) == UInt8(ascii: "\""), peek(2) == UInt8(ascii: "\""), hashesFollow(at: index + 3, count: hashes) {
                        index += 3 + hashes
                        return
                    }
                } else if hashesFollow(at: index + 1, count: hashes) {
                    index += 1 + hashes
                    return
                }
            }
            if (byte == 0x0A || byte == 0x0D) && !isMultiline {
                return  // unterminated single-line string: stop at the line end
            }
            if byte == 0x0A { sawNewline = false }
            index += 1
        }
    }

    /// Scans the rest of `#/…/#` after the opening delimiter, up to `/` followed by the same `#`s.
    private mutating func scanRegex(hashes: Int) {
        while let byte = peek() {
            if byte == UInt8(ascii: "\\"), peek(1) != nil {
                index += 2
                continue
            }
            if byte == UInt8(ascii: "/"), hashesFollow(at: index + 1, count: hashes) {
                index += 1 + hashes
                return
            }
            index += 1
        }
    }

    private func hashesFollow(at position: Int, count: Int) -> Bool {
        guard count > 0 else { return true }
        for offset in 0..<count where position + offset >= bytes.count || bytes[position + offset] != UInt8(ascii: "#") {
            return false
        }
        return true
    }

    /// Scans `( … )` of an interpolation, which can contain strings, comments and nested parentheses.
    private mutating func scanInterpolation() {
        // Line breaks inside the interpolation (in a comment, say) do not put the token after the
        // literal at the start of a line.
        let savedNewline = sawNewline
        defer { sawNewline = savedNewline }
        guard literalDepth < 64 else {
            index = bytes.count  // far deeper than any real source: the literal runs to the end
            return
        }
        literalDepth += 1
        defer { literalDepth -= 1 }
        var depth = 0
        while let byte = peek() {
            switch byte {
            case UInt8(ascii: "("):
                depth += 1; index += 1
            case UInt8(ascii: ")"):
                depth -= 1; index += 1
                if depth == 0 { return }
            case UInt8(ascii: "\""):
                scanString(hashes: 0)
            case UInt8(ascii: "#") where peek(1) == UInt8(ascii: "\"") || peek(1) == UInt8(ascii: "#"):
                var hashes = 0
                while peek(hashes) == UInt8(ascii: "#") { hashes += 1 }
                if peek(hashes) == UInt8(ascii: "\"") {
                    index += hashes
                    scanString(hashes: hashes)
                } else {
                    index += hashes
                }
            case UInt8(ascii: "/") where peek(1) == UInt8(ascii: "/") || peek(1) == UInt8(ascii: "*"):
                skipTrivia()
            default:
                index += 1
            }
        }
    }
}
