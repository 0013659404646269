/// An attribute as written: `@Attribute(.unique, originalName: "old")`.
package struct AttributeSyntax: Sendable, Equatable {
    /// The attribute's name without `@` and without a module qualifier (`Folio.Attribute` → `Attribute`).
    package var name: String
    /// The name as written, qualifier included.
    package var qualifiedName: String
    /// The text between the parentheses, or nil when the attribute has no argument list.
    package var arguments: String?
    /// Offset of `@`.
    package var start: Int
    /// One past the end of the attribute.
    package var end: Int
}

/// The body of an accessor block written on a property.
package enum AccessorBlockKind: Sendable, Equatable {
    /// `willSet` / `didSet`: the property is still stored.
    case observers
    /// `get`/`set`, or a bare getter body: the property is computed.
    case computed
}

/// One `name: Type = value` part of a `var` or `let`.
package struct BindingSyntax: Sendable, Equatable {
    package var name: String
    /// Offset of the name.
    package var nameOffset: Int
    /// The type annotation's text, trimmed, or nil when the type is inferred.
    package var type: String?
    /// Offset of the type annotation.
    package var typeOffset: Int?
    /// The initializer expression's text, trimmed, or nil.
    package var initializer: String?
    /// What the accessor block is, if one is written.
    package var accessorBlock: AccessorBlockKind?
    /// Whether the pattern is something other than a simple name (a tuple, `_`).
    package var isComplexPattern: Bool = false
}

/// A member of a type body, or a `#if` block of members.
package indirect enum MemberItem: Sendable, Equatable {
    case declaration(MemberDecl)
    case ifConfig([IfConfigClause])
}

/// One clause of a `#if` block: `#if COND`, `#elseif COND` or `#else`, with its members.
package struct IfConfigClause: Sendable, Equatable {
    /// `#if`, `#elseif` or `#else`.
    package var directive: String
    /// The condition's text; nil for `#else`.
    package var condition: String?
    package var members: [MemberItem]
}

/// A declaration inside a type body.
package struct MemberDecl: Sendable, Equatable {
    package var attributes: [AttributeSyntax]
    package var modifiers: [String]
    /// The introducing keyword: `var`, `let`, `func`, `init`, `class`, `case`, … or `#Index` for a
    /// freestanding macro.
    package var keyword: String
    /// Offset of the keyword.
    package var keywordOffset: Int
    /// For `var` and `let`: the bindings.
    package var bindings: [BindingSyntax]
    /// For a freestanding macro (`#Index<Trip>(…)`): its generic argument and its argument text.
    package var macroGenericArgument: String?
    package var macroArguments: String?
    /// Offset of the first byte of the declaration (its first attribute or modifier).
    package var start: Int
    /// One past the end of the declaration.
    package var end: Int

    package func hasAttribute(_ name: String) -> Bool {
        attributes.contains { $0.name == name }
    }

    package func attribute(_ name: String) -> AttributeSyntax? {
        attributes.first { $0.name == name }
    }

    package var isStatic: Bool {
        modifiers.contains("static") || modifiers.contains("class")
    }
}

/// A type declaration: `@Model public final class Recipe: Base, P { … }`.
package struct TypeDeclSyntax: Sendable, Equatable {
    package var attributes: [AttributeSyntax]
    package var modifiers: [String]
    /// `class`, `struct`, `enum`, `actor`, `protocol` or `extension`.
    package var keyword: String
    package var keywordOffset: Int
    package var name: String
    package var nameOffset: Int
    /// The generic parameter clause's text (`<T>`), if any.
    package var genericParameters: String?
    /// The inherited types, in order, as written.
    package var inheritedTypes: [String]
    package var members: [MemberItem]
    /// Whether the member block was closed; false for truncated input.
    package var isComplete: Bool

    /// Every declaration in the body, flattened through `#if` clauses, with the conditions that
    /// enclose it (outermost first).
    package var allMembers: [(decl: MemberDecl, conditions: [IfConfigClause])] {
        var result: [(MemberDecl, [IfConfigClause])] = []
        func walk(_ items: [MemberItem], _ path: [IfConfigClause]) {
            for item in items {
                switch item {
                case .declaration(let decl): result.append((decl, path))
                case .ifConfig(let clauses):
                    for clause in clauses { walk(clause.members, path + [clause]) }
                }
            }
        }
        walk(members, [])
        return result
    }
}
