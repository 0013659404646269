/// The shape of a type annotation, as far as the macros need to know it.
package indirect enum TypeSyntax: Sendable, Equatable {
    /// `Name` or `Name<Args>`, possibly qualified (`Foundation.Date`).
    case named(String, [TypeSyntax])
    /// `T?`, `Optional<T>`, or `T!`.
    case optional(TypeSyntax)
    /// `[T]`.
    case array(TypeSyntax)
    /// `[K: V]`.
    case dictionary(TypeSyntax, TypeSyntax)
    /// `(A, B)`.
    case tuple([TypeSyntax])
    /// `(A) -> B`, possibly `async`/`throws`/`@Sendable`.
    case function
    /// `any P`, `some P`, `Any`, `AnyObject`, `P & Q`.
    case existential(String)
    /// `T.Type` or `T.Protocol`.
    case metatype
    /// Something the parser did not recognise.
    case unknown(String)

    /// Parses a type annotation's text.
    package static func parse(_ text: String) -> TypeSyntax {
        var parser = TypeParser(tokens: Lexer.tokenize(text))
        let type = parser.parseType()
        if parser.index < parser.tokens.count {
            // Trailing tokens, such as `& Q` compositions.
            if parser.tokens[parser.index...].contains(where: { $0.isPunctuation("&") }) {
                return .existential(text)
            }
            if parser.tokens[parser.index...].contains(where: { $0.isPunctuation("->") }) {
                return .function
            }
            return .unknown(text)
        }
        return type
    }

    /// The type without one level of optionality.
    package var unwrapped: TypeSyntax {
        if case .optional(let wrapped) = self { return wrapped }
        return self
    }

    package var isOptional: Bool {
        if case .optional = self { return true }
        return false
    }

    /// The last name component (`Foundation.Date` → `Date`), for named types.
    package var simpleName: String? {
        if case .named(let name, _) = self { return name.split(separator: ".").last.map(String.init) }
        return nil
    }

    /// Why a value of this type can never be persisted, or nil when it may be (whether it really is
    /// Codable or a model is checked by the compiler and at run time).
    package var unpersistableReason: String? {
        switch self {
        case .function: return "a function type cannot be stored"
        case .tuple(let elements) where elements.count > 1:
            return "a tuple is not Codable; use a struct that conforms to Codable"
        case .tuple(let elements): return elements.first?.unpersistableReason
        case .existential(let text):
            return "'\(text)' is an existential; Folio needs a concrete Codable type to decode it"
        case .metatype: return "a metatype cannot be stored"
        case .optional(let wrapped), .array(let wrapped): return wrapped.unpersistableReason
        case .dictionary(let key, let value): return key.unpersistableReason ?? value.unpersistableReason
        case .named(_, let arguments): return arguments.lazy.compactMap(\.unpersistableReason).first
        case .unknown: return nil
        }
    }

    /// Whether this is certainly not a model (a standard value type or collection of them), so that a
    /// `@Relationship` on it is a mistake.
    package var isCertainlyNotModel: Bool {
        switch self {
        case .optional(let wrapped), .array(let wrapped): return wrapped.isCertainlyNotModel
        case .dictionary, .tuple, .function, .existential, .metatype: return true
        case .named(let name, let arguments):
            let simple = name.split(separator: ".").last.map(String.init) ?? name
            if simple == "Set" || simple == "Array" || simple == "Optional" {
                return arguments.first?.isCertainlyNotModel ?? true
            }
            return TypeSyntax.standardValueTypes.contains(simple)
        case .unknown: return false
        }
    }

    static let standardValueTypes: Set<String> = [
        "String", "Substring", "Character", "Bool", "Int", "Int8", "Int16", "Int32", "Int64", "UInt", "UInt8",
        "UInt16", "UInt32", "UInt64", "Float", "Double", "Decimal", "Date", "UUID", "URL", "Data", "Dictionary",
        "TimeInterval", "CGFloat", "AttributedString",
    ]
}

private struct TypeParser {
    let tokens: [Token]
    var index = 0
    /// Nesting of `parseType` calls; bounded so that pathological input cannot exhaust the stack.
    var depth = 0

    mutating func parseType() -> TypeSyntax {
        guard depth < DeclParser.maximumNesting else {
            let rest = tokens[min(index, tokens.count)...].map(\.text).joined(separator: " ")
            index = tokens.count
            return .unknown(rest)
        }
        depth += 1
        defer { depth -= 1 }
        // Attributes and specifiers that do not change the shape.
        while index < tokens.count {
            let token = tokens[index]
            if token.isPunctuation("@"), index + 1 < tokens.count {
                index += 2
                continue
            }
            if token.kind == .identifier, ["sending", "borrowing", "consuming", "__owned", "isolated"].contains(token.text) {
                index += 1
                continue
            }
            break
        }
        guard index < tokens.count else { return .unknown("") }
        var type = parsePrimary()
        // Postfix: `?`, `!`, `.Type`, `.Protocol`, and a function arrow.
        while index < tokens.count {
            let token = tokens[index]
            if token.isPunctuation("?") || token.isPunctuation("!") {
                type = .optional(type)
                index += 1
            } else if token.isPunctuation("."), index + 1 < tokens.count,
                tokens[index + 1].isIdentifier("Type") || tokens[index + 1].isIdentifier("Protocol")
            {
                type = .metatype
                index += 2
            } else if token.kind == .identifier, ["async", "throws", "rethrows"].contains(token.text) {
                index += 1
                if index < tokens.count, tokens[index].isPunctuation("(") { skipParens() }
            } else if token.isPunctuation("->") {
                index += 1
                _ = parseType()
                return .function
            } else {
                break
            }
        }
        return type
    }

    mutating func skipParens() {
        var depth = 0
        while index < tokens.count {
            if tokens[index].isPunctuation("(") { depth += 1 }
            if tokens[index].isPunctuation(")") { depth -= 1 }
            index += 1
            if depth == 0 { return }
        }
    }

    mutating func parsePrimary() -> TypeSyntax {
        let token = tokens[index]
        if token.isPunctuation("[") {
            index += 1
            let element = parseType()
            if index < tokens.count, tokens[index].isPunctuation(":") {
                index += 1
                let value = parseType()
                if index < tokens.count, tokens[index].isPunctuation("]") { index += 1 }
                return .dictionary(element, value)
            }
            if index < tokens.count, tokens[index].isPunctuation("]") { index += 1 }
            return .array(element)
        }
        if token.isPunctuation("(") {
            index += 1
            var elements: [TypeSyntax] = []
            while index < tokens.count, !tokens[index].isPunctuation(")") {
                // Skip element labels: `(name: String, …)`.
                if tokens[index].kind == .identifier, index + 1 < tokens.count, tokens[index + 1].isPunctuation(":") {
                    index += 2
                }
                elements.append(parseType())
                if index < tokens.count, tokens[index].isPunctuation(",") { index += 1 } else { break }
            }
            if index < tokens.count, tokens[index].isPunctuation(")") { index += 1 }
            if index < tokens.count,
                tokens[index].isPunctuation("->") || tokens[index].isIdentifier("throws")
                    || tokens[index].isIdentifier("async")
            {
                return .function  // the postfix loop will consume the arrow
            }
            return .tuple(elements)
        }
        if token.kind == .identifier {
            if token.text == "any" || token.text == "some" {
                let start = index
                index += 1
                _ = parseType()
                return .existential(tokens[start..<index].map(\.text).joined(separator: " "))
            }
            if token.text == "Any" || token.text == "AnyObject" {
                index += 1
                return .existential(token.text)
            }
            var name = token.text
            index += 1
            var arguments: [TypeSyntax] = []
            while true {
                if index < tokens.count, tokens[index].isPunctuation("<") {
                    index += 1
                    arguments = []
                    while index < tokens.count, !tokens[index].isPunctuation(">") {
                        arguments.append(parseType())
                        if index < tokens.count, tokens[index].isPunctuation(",") { index += 1 } else { break }
                    }
                    if index < tokens.count, tokens[index].isPunctuation(">") { index += 1 }
                }
                if index + 1 < tokens.count, tokens[index].isPunctuation("."), tokens[index + 1].kind == .identifier,
                    tokens[index + 1].text != "Type", tokens[index + 1].text != "Protocol"
                {
                    name += "." + tokens[index + 1].text
                    index += 2
                    continue
                }
                break
            }
            let simple = name.split(separator: ".").last.map(String.init) ?? name
            if simple == "Optional", arguments.count == 1 { return .optional(arguments[0]) }
            if simple == "Array", arguments.count == 1 { return .array(arguments[0]) }
            if simple == "Dictionary", arguments.count == 2 { return .dictionary(arguments[0], arguments[1]) }
            return .named(name, arguments)
        }
        index += 1
        return .unknown(token.text)
    }
}
