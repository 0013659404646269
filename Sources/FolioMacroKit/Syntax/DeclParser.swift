/// Parses type and member declarations from the source text the compiler sends to a macro.
///
/// This is not a full Swift parser. It recognises the structure of declarations — attributes,
/// modifiers, the introducing keyword, names, type annotations, initializers, accessor blocks,
/// `#if` clauses and freestanding macros — and treats expressions and bodies as balanced token runs.
/// Declarations are separated by `;` or by a line break followed by something that can only start
/// a declaration (an attribute, a modifier, a declaration keyword, a `#` directive or a closing brace),
/// which is how an expression continued on the next line (`.map { … }`, `+ b`) stays in one piece.
package struct DeclParser {
    package let text: String
    package let tokens: [Token]
    private let bytes: [UInt8]
    private var position = 0
    /// How many `#if` blocks enclose the current position; bounded so that pathological input cannot
    /// exhaust the stack (the compiler rejects such nesting long before).
    private var ifConfigDepth = 0
    static let maximumNesting = 64

    package init(_ text: String) {
        self.text = text
        self.bytes = Array(text.utf8)
        self.tokens = Lexer.tokenize(text)
    }

    static let modifierWords: Set<String> = [
        "public", "private", "fileprivate", "internal", "package", "open", "final", "static", "override",
        "required", "convenience", "lazy", "weak", "unowned", "dynamic", "nonisolated", "mutating",
        "nonmutating", "optional", "indirect", "prefix", "postfix", "infix", "distributed", "consuming",
        "borrowing", "isolated", "__consuming",
    ]

    static let declarationKeywords: Set<String> = [
        "var", "let", "func", "init", "deinit", "subscript", "typealias", "associatedtype", "class", "struct",
        "enum", "actor", "protocol", "extension", "case", "import", "operator", "precedencegroup", "macro",
    ]

    /// Text of the bytes `start..<end` of the input.
    package func slice(_ start: Int, _ end: Int) -> String {
        guard start < end, start >= 0, end <= bytes.count else { return "" }
        return String(decoding: bytes[start..<end], as: UTF8.self)
    }

    private var current: Token? { position < tokens.count ? tokens[position] : nil }

    private func token(at offset: Int) -> Token? {
        let index = position + offset
        return index < tokens.count ? tokens[index] : nil
    }

    // MARK: Type declarations

    /// Parses the first type declaration in the text (the declaration a `@Model` is attached to).
    package static func parseTypeDecl(_ text: String) -> TypeDeclSyntax? {
        var parser = DeclParser(text)
        return parser.parseTypeDecl()
    }

    /// Parses a single member declaration (the declaration an accessor or peer macro is attached to).
    package static func parseMember(_ text: String) -> MemberDecl? {
        var parser = DeclParser(text)
        return parser.parseMemberDecl()
    }

    mutating func parseTypeDecl() -> TypeDeclSyntax? {
        let attributes = parseAttributes()
        let modifiers = parseModifiers()
        guard let keywordToken = current, keywordToken.kind == .identifier,
            ["class", "struct", "enum", "actor", "protocol", "extension"].contains(keywordToken.text)
        else {
            return nil
        }
        position += 1
        var name = ""
        var nameOffset = keywordToken.end
        if let nameToken = current, nameToken.kind == .identifier {
            name = nameToken.text
            nameOffset = nameToken.start
            position += 1
            while let dot = current, dot.isPunctuation("."), let next = token(at: 1), next.kind == .identifier {
                name += "." + next.text
                position += 2
            }
        }
        var genericParameters: String?
        if let open = current, open.isPunctuation("<") {
            let start = open.start
            skipBalanced(open: "<", close: ">")
            genericParameters = slice(start, tokens[position - 1].end)
        }
        var inherited: [String] = []
        if let colon = current, colon.isPunctuation(":") {
            position += 1
            var start: Int?
            var end = 0
            var angle = 0
            while let next = current, !next.isPunctuation("{"), !(angle == 0 && next.isIdentifier("where")) {
                if next.isPunctuation("<") { angle += 1 }
                if next.isPunctuation(">") { angle -= 1 }
                if angle == 0 && next.isPunctuation(",") {
                    if let from = start { inherited.append(slice(from, end)) }
                    start = nil
                } else {
                    if start == nil { start = next.start }
                    end = next.end
                }
                position += 1
            }
            if let from = start { inherited.append(slice(from, end)) }
        }
        while let next = current, !next.isPunctuation("{") { position += 1 }
        var members: [MemberItem] = []
        var complete = false
        if current != nil {
            position += 1
            members = parseMembers()
            if let close = current, close.isPunctuation("}") {
                complete = true
                position += 1
            }
        }
        return TypeDeclSyntax(
            attributes: attributes, modifiers: modifiers, keyword: keywordToken.text,
            keywordOffset: keywordToken.start, name: name, nameOffset: nameOffset,
            genericParameters: genericParameters, inheritedTypes: inherited, members: members,
            isComplete: complete)
    }

    // MARK: Members

    mutating func parseMembers() -> [MemberItem] {
        var items: [MemberItem] = []
        while let next = current {
            if next.isPunctuation("}") { break }
            if next.kind == .pound, ["#elseif", "#else", "#endif"].contains(next.text) { break }
            if next.kind == .pound, next.text == "#if" {
                guard ifConfigDepth < DeclParser.maximumNesting else { position += 1; continue }
                ifConfigDepth += 1
                items.append(.ifConfig(parseIfConfig()))
                ifConfigDepth -= 1
                continue
            }
            if next.isPunctuation(";") { position += 1; continue }
            let before = position
            if let decl = parseMemberDecl() {
                items.append(.declaration(decl))
            }
            if position == before { position += 1 }  // never loop on text that is not understood
        }
        return items
    }

    private mutating func parseIfConfig() -> [IfConfigClause] {
        var clauses: [IfConfigClause] = []
        while let directive = current, directive.kind == .pound,
            ["#if", "#elseif", "#else"].contains(directive.text)
        {
            position += 1
            var condition: String?
            if directive.text != "#else" {
                let start = current?.start ?? directive.end
                var end = start
                var parentheses = 0  // a parenthesised condition may continue on the next lines
                while let next = current, !next.startsLine || parentheses > 0,
                    !(next.kind == .pound && ["#if", "#elseif", "#else", "#endif"].contains(next.text))
                {
                    if next.isPunctuation("(") { parentheses += 1 }
                    if next.isPunctuation(")") { parentheses -= 1 }
                    end = next.end
                    position += 1
                }
                condition = slice(start, end)
            }
            let members = parseMembers()
            clauses.append(IfConfigClause(directive: directive.text, condition: condition, members: members))
        }
        if let end = current, end.kind == .pound, end.text == "#endif" { position += 1 }
        return clauses
    }

    /// Whether the token at the current position, at the start of a line, begins a new declaration.
    private func startsDeclaration(_ candidate: Token, next: Token?) -> Bool {
        if candidate.isPunctuation("@") || candidate.isPunctuation("}") { return true }
        if candidate.kind == .pound { return true }
        guard candidate.kind == .identifier, !candidate.isBackticked else { return false }
        if DeclParser.declarationKeywords.contains(candidate.text) { return true }
        if DeclParser.modifierWords.contains(candidate.text) {
            // `open` or `optional` as an ordinary identifier are followed by punctuation such as `(` or `.`.
            guard let next else { return false }
            return next.kind == .identifier || next.isPunctuation("(")
        }
        return false
    }

    mutating func parseMemberDecl() -> MemberDecl? {
        guard let first = current else { return nil }
        let start = first.start
        let attributes = parseAttributes()
        let modifiers = parseModifiers()
        guard let keywordToken = current else { return nil }
        position += 1
        var decl = MemberDecl(
            attributes: attributes, modifiers: modifiers, keyword: keywordToken.text,
            keywordOffset: keywordToken.start, bindings: [], start: start, end: keywordToken.end)
        if keywordToken.kind == .pound {
            if let open = current, open.isPunctuation("<"), !open.startsLine {
                let from = open.end
                skipBalanced(open: "<", close: ">")
                decl.macroGenericArgument = slice(from, tokens[position - 1].start)
            }
            if let open = current, open.isPunctuation("("), !open.startsLine {
                let from = open.end
                skipBalanced(open: "(", close: ")")
                decl.macroArguments = slice(from, tokens[position - 1].start)
            }
            decl.end = position > 0 ? tokens[position - 1].end : keywordToken.end
            return decl
        }
        let bodyStart = position
        // Find the end of the declaration.
        var depth = 0
        while let next = current {
            if depth == 0 {
                if next.isPunctuation("}") || next.isPunctuation(";") { break }
                if next.startsLine && startsDeclaration(next, next: token(at: 1)) { break }
            }
            if next.isPunctuation("{") || next.isPunctuation("(") || next.isPunctuation("[") { depth += 1 }
            if next.isPunctuation("}") || next.isPunctuation(")") || next.isPunctuation("]") { depth -= 1 }
            position += 1
        }
        let bodyEnd = position
        if bodyEnd > bodyStart { decl.end = tokens[bodyEnd - 1].end }
        if keywordToken.kind == .identifier, keywordToken.text == "var" || keywordToken.text == "let" {
            decl.bindings = parseBindings(bodyStart, bodyEnd)
        }
        return decl
    }

    private mutating func parseBindings(_ from: Int, _ to: Int) -> [BindingSyntax] {
        var bindings: [BindingSyntax] = []
        var index = from
        while index < to {
            var binding = BindingSyntax(name: "", nameOffset: tokens[index].start)
            let patternToken = tokens[index]
            if patternToken.kind == .identifier && !(patternToken.text == "_" && !patternToken.isBackticked) {
                binding.name = patternToken.text
                index += 1
            } else {
                binding.isComplexPattern = true
                if patternToken.isPunctuation("(") {
                    index = skipBalanced(from: index, open: "(", close: ")")
                } else {
                    index += 1
                }
            }
            if index < to, tokens[index].isPunctuation(":") {
                index += 1
                let typeStart = index
                var depth = 0
                while index < to {
                    let token = tokens[index]
                    if depth == 0 && (token.isPunctuation("=") || token.isPunctuation("{") || token.isPunctuation(",")) { break }
                    if ["(", "[", "<"].contains(token.text) && token.kind == .punctuation { depth += 1 }
                    if [")", "]", ">"].contains(token.text) && token.kind == .punctuation { depth -= 1 }
                    index += 1
                }
                if index > typeStart {
                    binding.type = slice(tokens[typeStart].start, tokens[index - 1].end)
                    binding.typeOffset = tokens[typeStart].start
                }
            }
            if index < to, tokens[index].isPunctuation("=") {
                index += 1
                let valueStart = index
                var depth = 0
                while index < to {
                    let token = tokens[index]
                    if depth == 0 && token.isPunctuation(",") { break }
                    if depth == 0 && token.isPunctuation("{") && blockStartsWithObserver(index) { break }
                    // `Dictionary<String, Int>()`: a generic argument clause, whose commas do not separate bindings.
                    if token.isPunctuation("<"), let close = genericArgumentClauseEnd(at: index, limit: to) {
                        index = close
                        continue
                    }
                    if ["(", "[", "{"].contains(token.text) && token.kind == .punctuation { depth += 1 }
                    if [")", "]", "}"].contains(token.text) && token.kind == .punctuation { depth -= 1 }
                    index += 1
                }
                if index > valueStart {
                    binding.initializer = slice(tokens[valueStart].start, tokens[index - 1].end)
                }
            }
            if index < to, tokens[index].isPunctuation("{") {
                binding.accessorBlock = blockStartsWithObserver(index) ? .observers : .computed
                index = skipBalanced(from: index, open: "{", close: "}")
            }
            bindings.append(binding)
            // Skip to the next binding.
            while index < to, !tokens[index].isPunctuation(",") { index += 1 }
            if index < to { index += 1 }
        }
        return bindings
    }

    /// When the `<` at `openIndex` starts a generic argument clause (`Dictionary<String, Int>`), the
    /// index after its closing `>`; nil when it is a less-than operator. As in the Swift parser, a
    /// clause follows a name without whitespace and contains only what types are made of.
    private func genericArgumentClauseEnd(at openIndex: Int, limit: Int) -> Int? {
        guard openIndex > 0, tokens[openIndex - 1].kind == .identifier,
            tokens[openIndex - 1].end == tokens[openIndex].start
        else { return nil }
        let typeSymbols: Set<String> = [".", ",", "[", "]", "(", ")", ":", "?", "!", "->", "&", "<", ">", "@", "..."]
        var depth = 0
        var index = openIndex
        while index < limit {
            let token = tokens[index]
            guard token.kind == .identifier || (token.kind == .punctuation && typeSymbols.contains(token.text)) else {
                return nil
            }
            if token.isPunctuation("<") { depth += 1 }
            if token.isPunctuation(">") {
                depth -= 1
                if depth == 0 { return index + 1 }
            }
            index += 1
        }
        return nil
    }

    private func blockStartsWithObserver(_ braceIndex: Int) -> Bool {
        var index = braceIndex + 1
        while index < tokens.count, tokens[index].isPunctuation("@") {
            index += 2
            if index < tokens.count, tokens[index].isPunctuation("(") {
                index = skipBalanced(from: index, open: "(", close: ")")
            }
        }
        guard index < tokens.count else { return false }
        return tokens[index].isIdentifier("willSet") || tokens[index].isIdentifier("didSet")
    }

    // MARK: Attributes and modifiers

    mutating func parseAttributes() -> [AttributeSyntax] {
        var attributes: [AttributeSyntax] = []
        while let at = current, at.isPunctuation("@"), let nameToken = token(at: 1), nameToken.kind == .identifier {
            position += 2
            var qualified = nameToken.text
            var name = nameToken.text
            var end = nameToken.end
            while let dot = current, dot.isPunctuation("."), let next = token(at: 1), next.kind == .identifier,
                !dot.startsLine
            {
                qualified += "." + next.text
                name = next.text
                end = next.end
                position += 2
            }
            if let open = current, open.isPunctuation("<"), !open.startsLine, open.start == end {
                skipBalanced(open: "<", close: ">")
                end = tokens[position - 1].end
            }
            var arguments: String?
            if let open = current, open.isPunctuation("("), !open.startsLine {
                let from = open.end
                skipBalanced(open: "(", close: ")")
                let close = tokens[position - 1]
                arguments = slice(from, close.isPunctuation(")") ? close.start : close.end)
                end = close.end
            }
            attributes.append(
                AttributeSyntax(
                    name: name, qualifiedName: qualified, arguments: arguments,
                    start: at.start, end: end))
        }
        return attributes
    }

    mutating func parseModifiers() -> [String] {
        var modifiers: [String] = []
        while let word = current, word.kind == .identifier, !word.isBackticked {
            let next = token(at: 1)
            if word.text == "class" {
                // `class var`, `class func`, `class override …` are modifiers; `class Name` declares a type.
                guard let next, next.kind == .identifier,
                    DeclParser.declarationKeywords.contains(next.text) || DeclParser.modifierWords.contains(next.text)
                else {
                    break
                }
            } else if !DeclParser.modifierWords.contains(word.text) {
                break
            } else if let next, !(next.kind == .identifier || next.isPunctuation("(")) {
                break
            }
            position += 1
            var modifier = word.text
            if let open = current, open.isPunctuation("("), !open.startsLine {
                let from = open.start
                skipBalanced(open: "(", close: ")")
                modifier += slice(from, tokens[position - 1].end)
            }
            modifiers.append(modifier)
        }
        return modifiers
    }

    // MARK: Balanced runs

    private mutating func skipBalanced(open: String, close: String) {
        position = skipBalanced(from: position, open: open, close: close)
    }

    /// Returns the index after the token that closes the run opened at `from`.
    private func skipBalanced(from: Int, open: String, close: String) -> Int {
        var depth = 0
        var index = from
        while index < tokens.count {
            let token = tokens[index]
            if token.kind == .punctuation {
                if token.text == open { depth += 1 }
                if token.text == close { depth -= 1 }
                // `>=`-style tokens and `->` never close a generic clause; a stray `{` ends one.
                if open == "<" && token.text == "{" { return index }
            }
            index += 1
            if depth == 0 { return index }
        }
        return index
    }
}
