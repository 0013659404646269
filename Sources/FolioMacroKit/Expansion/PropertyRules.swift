/// What `@Model` makes of one member of the class body.
enum MemberRole: Equatable {
    /// A stored property that Folio persists.
    case persisted(PersistedProperty)
    /// Anything else: computed and static properties, `@Transient` ones, methods, initializers, types.
    case ignored
    /// A property that cannot be used as written; the diagnostics say why.
    case invalid([PropertyProblem])
}

/// A reason a member cannot be used, with the byte offset (in the member source) to point at.
struct PropertyProblem: Equatable {
    var message: String
    var offset: Int
}

/// A persisted stored property as the expansions need it.
struct PersistedProperty: Equatable {
    var name: String
    var type: String?
    var initializer: String?
    /// `@Attribute(…)` arguments, when written.
    var attributeArguments: String?
    /// `@Relationship(…)` arguments, when written.
    var relationshipArguments: String?
    var hasAttribute: Bool
    var hasRelationship: Bool
    var nameOffset: Int
    /// Whether the property is a `let`: set once by an initializer (or, for a stored model, by
    /// `init(_claimed:)` from its record), with no tracked accessors.
    var isConstant: Bool = false

    /// The type the property's storage holds: the annotation, with an implicitly unwrapped optional
    /// (`T!`, which is not allowed as a generic argument) spelled as the optional it is (`T?`).
    var storageType: String? {
        guard let type else { return nil }
        return type.hasSuffix("!") ? String(type.dropLast()) + "?" : type
    }
}

enum PropertyRules {
    /// Names that `@Model` itself gives the class, which a stored property must not take.
    static let reservedNames: Set<String> = [
        "persistentBackingData", "persistentModelID", "modelContext", "hasChanges", "isDeleted", "schemaMetadata",
        "hash", "hashValue",
    ]

    static func classify(_ decl: MemberDecl) -> MemberRole {
        guard decl.keyword == "var" || decl.keyword == "let" else { return .ignored }
        if decl.isStatic { return .ignored }
        let isTransient = decl.hasAttribute("Transient") || decl.hasAttribute("ObservationIgnored")
        var problems: [PropertyProblem] = []
        if decl.bindings.contains(where: { $0.accessorBlock == .computed }) {
            if let attribute = decl.attribute("Attribute") ?? decl.attribute("Relationship") {
                problems.append(
                    PropertyProblem(
                        message: "'@\(attribute.name)' applies to stored properties; a computed property is never persisted",
                        offset: attribute.start))
                return .invalid(problems)
            }
            return .ignored
        }
        if isTransient {
            for binding in decl.bindings where binding.initializer == nil {
                let isOptional = binding.type.map { TypeSyntax.parse($0).isOptional } ?? false
                if !isOptional || decl.keyword == "let" {
                    problems.append(
                        PropertyProblem(
                            message:
                                "a @Transient property needs a default value, because Folio creates models without calling your initializers; give '\(binding.name)' a default",
                            offset: binding.nameOffset))
                }
            }
            return problems.isEmpty ? .ignored : .invalid(problems)
        }
        if decl.modifiers.contains("lazy") {
            problems.append(
                PropertyProblem(
                    message: "a 'lazy' property cannot be persisted; mark it @Transient to keep it out of the store",
                    offset: decl.keywordOffset))
            return .invalid(problems)
        }
        if let weak = decl.modifiers.first(where: { $0.hasPrefix("weak") || $0.hasPrefix("unowned") }) {
            problems.append(
                PropertyProblem(
                    message: "a '\(weak)' reference cannot be persisted; use @Relationship for references between models, or mark it @Transient",
                    offset: decl.start))
            return .invalid(problems)
        }
        guard decl.bindings.count == 1, let binding = decl.bindings.first else {
            problems.append(
                PropertyProblem(
                    message: "declare one persisted property per 'var' so that Folio can track each of them",
                    offset: decl.keywordOffset))
            return .invalid(problems)
        }
        if binding.isComplexPattern {
            problems.append(
                PropertyProblem(
                    message: "a persisted property needs a plain name, not a pattern",
                    offset: binding.nameOffset))
            return .invalid(problems)
        }
        if binding.accessorBlock == .observers {
            problems.append(
                PropertyProblem(
                    message:
                        "'willSet'/'didSet' are not supported on a persisted property; observe the model with Observation instead, or mark '\(binding.name)' @Transient",
                    offset: binding.nameOffset))
        }
        if decl.keyword == "let" {
            if binding.initializer != nil {
                // A constant with an initial value cannot take its stored value when a model is loaded.
                problems.append(
                    PropertyProblem(
                        message:
                            "a persisted 'let' cannot have an initial value, because a stored model takes '\(binding.name)' from its record; write 'let \(binding.name): \(binding.type ?? "Type")' and set it in the initializer, or declare it with 'var'",
                        offset: decl.keywordOffset))
            } else if binding.type == nil {
                problems.append(
                    PropertyProblem(
                        message: "'\(binding.name)' needs a type annotation",
                        offset: binding.nameOffset))
            }
            if let relationship = decl.attribute("Relationship") {
                problems.append(
                    PropertyProblem(
                        message: "a relationship changes as its inverse does, so it cannot be a 'let'; declare '\(binding.name)' with 'var'",
                        offset: relationship.start))
            }
            if !problems.isEmpty { return .invalid(problems) }
        }
        if binding.type == nil && binding.initializer == nil {
            problems.append(
                PropertyProblem(
                    message: "'\(binding.name)' needs a type annotation or a default value",
                    offset: binding.nameOffset))
        }
        if PropertyRules.reservedNames.contains(binding.name) {
            problems.append(
                PropertyProblem(
                    message: "'\(binding.name)' is a name @Model gives every model; rename the property",
                    offset: binding.nameOffset))
        }
        if binding.name.hasPrefix("_") && binding.name.count > 1 {
            // `_x` would collide with the storage of a property `x`.
            problems.append(
                PropertyProblem(
                    message: "a persisted property's name cannot start with '_', which Folio uses for its storage; rename '\(binding.name)'",
                    offset: binding.nameOffset))
        }
        let attribute = decl.attribute("Attribute")
        let relationship = decl.attribute("Relationship")
        if let attribute, relationship != nil {
            problems.append(
                PropertyProblem(
                    message: "a property is either an @Attribute or a @Relationship, not both",
                    offset: attribute.start))
        }
        if let type = binding.type {
            let syntax = TypeSyntax.parse(type)
            if let reason = syntax.unpersistableReason {
                problems.append(
                    PropertyProblem(
                        message: "'\(binding.name)' cannot be persisted: \(reason). Mark it @Transient to keep it out of the store",
                        offset: binding.typeOffset ?? binding.nameOffset))
            } else if let relationship, syntax.isCertainlyNotModel {
                problems.append(
                    PropertyProblem(
                        message:
                            "@Relationship needs a model type or an optional or array of models, but '\(binding.name)' is '\(type)'; remove @Relationship, or use @Attribute for options",
                        offset: relationship.start))
            }
        }
        if !problems.isEmpty { return .invalid(problems) }
        return .persisted(
            PersistedProperty(
                name: binding.name, type: binding.type, initializer: binding.initializer,
                attributeArguments: attribute?.arguments, relationshipArguments: relationship?.arguments,
                hasAttribute: attribute != nil, hasRelationship: relationship != nil, nameOffset: binding.nameOffset,
                isConstant: decl.keyword == "let"))
    }
}
