/// Everything the `@Model` member expansion needs to know about a class, with the problems found.
struct ModelAnalysis {
    /// A persisted property and the `#if` conditions around it (all must hold).
    struct Property {
        var property: PersistedProperty
        var conditions: [String]
    }

    /// A `#Index` or `#Unique` declaration: groups of property paths.
    struct KeyPathDeclaration {
        var groups: [[String]]
        var conditions: [String]
    }

    let type: TypeDeclSyntax
    let isSubclass: Bool
    var properties: [Property] = []
    var indexes: [KeyPathDeclaration] = []
    var uniques: [KeyPathDeclaration] = []
    var diagnostics: [MacroDiagnostic] = []

    /// The access level the generated members need: that of the class when it is public or package.
    var accessPrefix: String {
        if type.modifiers.contains("public") || type.modifiers.contains("open") { return "public " }
        if type.modifiers.contains("package") { return "package " }
        return ""
    }

    init(type: TypeDeclSyntax, snippet: SourceSnippet, isSubclass: Bool) {
        self.type = type
        self.isSubclass = isSubclass
        var hasInitializer = false
        var transientNames: Set<String> = []
        var pendingKeyPaths: [(decl: MemberDecl, isIndex: Bool, conditions: [String])] = []

        for (decl, conditions) in ModelAnalysis.members(type.members, []) {
            if decl.keyword == "init" { hasInitializer = true }
            if decl.keyword == "#Index" || decl.keyword == "#Unique" {
                pendingKeyPaths.append((decl, decl.keyword == "#Index", conditions))
                continue
            }
            switch PropertyRules.classify(decl) {
            case .persisted(let property):
                properties.append(Property(property: property, conditions: conditions))
            case .invalid(let problems):
                for problem in problems {
                    diagnostics.append(Diagnostics.error(problem.message, at: problem.offset, in: snippet))
                }
            case .ignored:
                if decl.keyword == "var" || decl.keyword == "let", !decl.isStatic {
                    for binding in decl.bindings { transientNames.insert(binding.name) }
                }
            }
        }
        if !hasInitializer && type.isComplete {
            diagnostics.append(
                Diagnostics.error(
                    "'@Model' requires an initializer be provided for '\(type.name)'; Folio creates stored models through their own path, so the class has no implicit 'init()'",
                    at: type.nameOffset, in: snippet))
        }
        let persistedNames = Set(properties.map(\.property.name))
        for (decl, isIndex, conditions) in pendingKeyPaths {
            let macroName = isIndex ? "#Index" : "#Unique"
            if let generic = decl.macroGenericArgument?.trimmingSpaces, !generic.isEmpty, generic != type.name,
                !generic.hasSuffix("." + type.name)
            {
                diagnostics.append(
                    Diagnostics.error(
                        "'\(macroName)<\(generic)>' inside '\(type.name)' must name '\(type.name)'",
                        at: decl.keywordOffset, in: snippet))
                continue
            }
            guard let arguments = decl.macroArguments, let groups = ArgumentList.keyPathGroups(arguments),
                !groups.isEmpty, !groups.contains(where: \.isEmpty)
            else {
                diagnostics.append(
                    Diagnostics.error(
                        "'\(macroName)' takes arrays of key paths, such as \(macroName)<\(type.name)>([\\.name], [\\.name, \\.date])",
                        at: decl.keywordOffset, in: snippet))
                continue
            }
            var paths: [[String]] = []
            var valid = true
            for group in groups {
                var names: [String] = []
                for keyPath in group {
                    let first = keyPath.components[0]
                    if keyPath.hasOtherComponents {
                        diagnostics.append(
                            Diagnostics.error(
                                "'\(macroName)' key paths must name properties directly; '\\.\(keyPath.components.joined(separator: "."))' has optional chaining or a subscript",
                                at: decl.keywordOffset, in: snippet))
                        valid = false
                    } else if transientNames.contains(first) {
                        diagnostics.append(
                            Diagnostics.error(
                                "'\(macroName)' names '\(first)', which is not persisted (it is @Transient or computed)",
                                at: decl.keywordOffset, in: snippet))
                        valid = false
                    } else if !persistedNames.contains(first) && !isSubclass {
                        diagnostics.append(
                            Diagnostics.error(
                                "'\(macroName)' names '\(first)', which is not a persisted property of '\(type.name)'",
                                at: decl.keywordOffset, in: snippet))
                        valid = false
                    }
                    names.append(keyPath.components.joined(separator: "."))
                }
                paths.append(names)
            }
            guard valid else { continue }
            let declaration = KeyPathDeclaration(groups: paths, conditions: conditions)
            if isIndex { indexes.append(declaration) } else { uniques.append(declaration) }
        }
    }

    /// Flattens the members, turning each enclosing `#if` clause into one condition that holds exactly
    /// when that clause is the active one.
    static func members(_ items: [MemberItem], _ conditions: [String]) -> [(MemberDecl, [String])] {
        var result: [(MemberDecl, [String])] = []
        for item in items {
            switch item {
            case .declaration(let decl):
                result.append((decl, conditions))
            case .ifConfig(let clauses):
                var earlier: [String] = []
                for clause in clauses {
                    var parts = earlier.map { "!(\($0))" }
                    if let condition = clause.condition { parts.append("(\(condition))") }
                    let combined = parts.isEmpty ? "true" : parts.joined(separator: " && ")
                    result += members(clause.members, conditions + [combined])
                    if let condition = clause.condition { earlier.append(condition) }
                }
            }
        }
        return result
    }
}

extension String {
    var trimmingSpaces: String {
        var text = Substring(self)
        while let first = text.first, first.isWhitespace { text = text.dropFirst() }
        while let last = text.last, last.isWhitespace { text = text.dropLast() }
        return String(text)
    }
}
