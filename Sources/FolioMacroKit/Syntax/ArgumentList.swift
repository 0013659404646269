/// One argument of a call or attribute: an optional label and the value's text.
package struct ArgumentSyntax: Sendable, Equatable {
    package var label: String?
    package var value: String
}

/// A key path literal such as `\.name`, `\Trip.name` or `\.location.city`.
package struct KeyPathSyntax: Sendable, Equatable {
    /// The root type's name, if written.
    package var root: String?
    /// The property names after the root, in order.
    package var components: [String]
    /// Whether the path has anything other than plain property names (`?`, `!`, subscripts, calls).
    package var hasOtherComponents: Bool
}

enum ArgumentList {
    /// Splits `a, label: b, c` at its top-level commas.
    static func split(_ text: String) -> [ArgumentSyntax] {
        let parser = DeclParser(text)
        let tokens = parser.tokens
        var arguments: [ArgumentSyntax] = []
        var depth = 0
        var start = 0
        func flush(_ end: Int) {
            guard start < end else { return }
            var label: String?
            var valueStart = start
            if end - start >= 2, tokens[start].kind == .identifier, tokens[start + 1].isPunctuation(":") {
                label = tokens[start].text
                valueStart = start + 2
            }
            let value = valueStart < end ? parser.slice(tokens[valueStart].start, tokens[end - 1].end) : ""
            arguments.append(ArgumentSyntax(label: label, value: value))
        }
        for (index, token) in tokens.enumerated() {
            if token.kind == .punctuation {
                if ["(", "[", "{"].contains(token.text) { depth += 1 }
                if [")", "]", "}"].contains(token.text) { depth -= 1 }
                if depth == 0 && token.text == "," {
                    flush(index)
                    start = index + 1
                }
            }
        }
        flush(tokens.count)
        return arguments
    }

    /// Parses the key paths inside `[\.a, \.b]`-style array literals: one list per literal.
    static func keyPathGroups(_ text: String) -> [[KeyPathSyntax]]? {
        var groups: [[KeyPathSyntax]] = []
        for argument in split(text) {
            let value = argument.value
            guard value.hasPrefix("["), value.hasSuffix("]") else { return nil }
            let inner = String(value.dropFirst().dropLast())
            var group: [KeyPathSyntax] = []
            for element in split(inner) {
                guard let keyPath = parseKeyPath(element.value) else { return nil }
                group.append(keyPath)
            }
            groups.append(group)
        }
        return groups
    }

    /// Parses `\.a.b` or `\Root.a.b`.
    static func parseKeyPath(_ text: String) -> KeyPathSyntax? {
        let tokens = Lexer.tokenize(text)
        guard let first = tokens.first, first.isPunctuation("\\") else { return nil }
        var index = 1
        var root: String?
        if index < tokens.count, tokens[index].kind == .identifier {
            root = tokens[index].text
            index += 1
        }
        var components: [String] = []
        var other = false
        while index < tokens.count {
            let token = tokens[index]
            if token.isPunctuation("."), index + 1 < tokens.count, tokens[index + 1].kind == .identifier {
                components.append(tokens[index + 1].text)
                index += 2
            } else {
                other = true
                index += 1
            }
        }
        guard !components.isEmpty else { return nil }
        return KeyPathSyntax(root: root, components: components, hasOtherComponents: other)
    }
}
