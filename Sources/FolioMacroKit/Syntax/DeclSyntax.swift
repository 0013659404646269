/// An attribute as written: `@Attribute(.unique, originalName: "old")`.
public struct AttributeSyntax: Sendable, Equatable {
    /// The attribute's name without `@` and without a module qualifier (`Folio.Attribute` → `Attribute`).
    public var name: String
    /// The name as written, qualifier included.
    public var qualifiedName: String
    /// The text between the parentheses, or nil when the attribute has no argument list.
    public var arguments: String?
    /// Offset of `@`.
    public var start: Int
    /// One past the end of the attribute.
    public var end: Int
}

/// The body of an accessor block written on a property.
public enum AccessorBlockKind: Sendable, Equatable {
    /// `willSet` / `didSet`: the property is still stored.
    case observers
    /// `get`/`set`, or a bare getter body: the property is computed.
    case computed
}

/// One `name: Type = value` part of a `var` or `let`.
public struct BindingSyntax: Sendable, Equatable {
    public var name: String
    /// Offset of the name.
    public var nameOffset: Int
    /// The type annotation's text, trimmed, or nil when the type is inferred.
    public var type: String?
    /// Offset of the type annotation.
    public var typeOffset: Int?
    /// The initializer expression's text, trimmed, or nil.
    public var initializer: String?
    /// What the accessor block is, if one is written.
    public var accessorBlock: AccessorBlockKind?
    /// Whether the pattern is something other than a simple name (a tuple, `_`).
    public var isComplexPattern: Bool = false
}

/// A member of a type body, or a `#if` block of members.
public indirect enum MemberItem: Sendable, Equatable {
    case declaration(MemberDecl)
    case ifConfig([IfConfigClause])
}

/// One clause of a `#if` block: `#if COND`, `#elseif COND` or `#else`, with its members.
public struct IfConfigClause: Sendable, Equatable {
    /// `#if`, `#elseif` or `#else`.
    public var directive: String
    /// The condition's text; nil for `#else`.
    public var condition: String?
    public var members: [MemberItem]
}

/// A declaration inside a type body.
public struct MemberDecl: Sendable, Equatable {
    public var attributes: [AttributeSyntax]
    public var modifiers: [String]
    /// The introducing keyword: `var`, `let`, `func`, `init`, `class`, `case`, … or `#Index` for a
    /// freestanding macro.
    public var keyword: String
    /// Offset of the keyword.
    public var keywordOffset: Int
    /// For `var` and `let`: the bindings.
    public var bindings: [BindingSyntax]
    /// For a freestanding macro (`#Index<Trip>(…)`): its generic argument and its argument text.
    public var macroGenericArgument: String?
    public var macroArguments: String?
    /// Offset of the first byte of the declaration (its first attribute or modifier).
    public var start: Int
    /// One past the end of the declaration.
    public var end: Int

    public func hasAttribute(_ name: String) -> Bool {
        attributes.contains { $0.name == name }
    }

    public func attribute(_ name: String) -> AttributeSyntax? {
        attributes.first { $0.name == name }
    }

    public var isStatic: Bool {
        modifiers.contains("static") || modifiers.contains("class")
    }
}

/// A type declaration: `@Model public final class Recipe: Base, P { … }`.
public struct TypeDeclSyntax: Sendable, Equatable {
    public var attributes: [AttributeSyntax]
    public var modifiers: [String]
    /// `class`, `struct`, `enum`, `actor`, `protocol` or `extension`.
    public var keyword: String
    public var keywordOffset: Int
    public var name: String
    public var nameOffset: Int
    /// The generic parameter clause's text (`<T>`), if any.
    public var genericParameters: String?
    /// The inherited types, in order, as written.
    public var inheritedTypes: [String]
    public var members: [MemberItem]
    /// Whether the member block was closed; false for truncated input.
    public var isComplete: Bool

    /// Every declaration in the body, flattened through `#if` clauses, with the conditions that
    /// enclose it (outermost first).
    public var allMembers: [(decl: MemberDecl, conditions: [IfConfigClause])] {
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
