/// `@ModelActor`: makes an actor a model actor, as SwiftData's macro does.
///
/// - member role: `nonisolated let modelExecutor`, `nonisolated let modelContainer` and
///   `init(modelContainer:)`, which gives the actor a `DefaultSerialModelExecutor` owning a new context.
///   Each is left out when the actor declares it itself; the initializer also when the actor has
///   stored properties it could not initialize (then the actor's own initializers set everything).
/// - extension role: the `ModelActor` conformance.
///
/// Attached to anything but a (local) actor, the member role reports one error saying what to write.
struct ModelActorMacro {
    let request: ExpansionRequest
    let expander: MacroExpander

    func expand() -> ExpansionResult {
        guard let declaration = request.declaration else { return ExpansionResult(source: "") }
        let type = expander.typeDecl(declaration.source)
        switch request.role {
        case .member:
            guard let type else {
                return ExpansionResult(
                    source: "",
                    diagnostics: [
                        Diagnostics.error(
                            "'@ModelActor' must be attached to an actor declaration: write '@ModelActor actor Name { … }'",
                            at: 0, in: request.attribute)
                    ])
            }
            if let problem = problem(type, declaration) { return ExpansionResult(source: "", diagnostics: [problem]) }
            return ExpansionResult(source: members(type, Array(declaration.source.utf8)))
        case .extension, .conformance:
            guard let type, problem(type, declaration) == nil, let extended = request.extendedType,
                let list = request.conformanceList, list.contains("ModelActor")
            else {
                return ExpansionResult(source: "")
            }
            return ExpansionResult(source: "extension \(extended): Folio.ModelActor {\n}")
        default:
            return ExpansionResult(source: "")
        }
    }

    // MARK: Checks

    /// Why the declaration cannot be a model actor, if it cannot.
    private func problem(_ type: TypeDeclSyntax, _ snippet: SourceSnippet) -> MacroDiagnostic? {
        let name = type.name.isEmpty ? "Name" : type.name
        switch type.keyword {
        case "actor":
            guard type.modifiers.contains("distributed") else { return nil }
            return Diagnostics.error(
                "'@ModelActor' cannot be applied to a distributed actor; a model actor runs on a local serial executor: write 'actor \(name)'",
                at: type.keywordOffset, in: snippet)
        case "extension":
            return Diagnostics.error(
                "'@ModelActor' cannot be applied to an extension; attach it to the actor declaration itself: '@ModelActor actor \(name)'",
                at: type.keywordOffset, in: snippet)
        case "protocol":
            return Diagnostics.error(
                "'@ModelActor' cannot be applied to a protocol; attach it to an actor: '@ModelActor actor \(name)'",
                at: type.keywordOffset, in: snippet)
        default:
            let kind = type.keyword == "enum" ? "an enum" : "a \(type.keyword)"
            let fixIt = MacroDiagnostic.FixIt(
                message: "change '\(type.keyword)' to 'actor'", startOffset: type.keywordOffset,
                endOffset: type.keywordOffset + type.keyword.utf8.count, replacement: "actor")
            return Diagnostics.error(
                "'@ModelActor' cannot be applied to \(kind); write 'actor \(name)': a model actor is an actor, whose context's work runs on its own serial executor",
                at: type.keywordOffset, in: snippet, fixIts: [fixIt])
        }
    }

    // MARK: member

    private func members(_ type: TypeDeclSyntax, _ bytes: [UInt8]) -> String {
        let access = accessModifier(type)
        let declared = Set(
            type.allMembers.flatMap { member in
                ["var", "let"].contains(member.decl.keyword) && !member.decl.isStatic ? member.decl.bindings.map(\.name) : []
            })
        var parts: [String] = []
        if !declared.contains("modelExecutor") {
            parts.append("\(access)nonisolated let modelExecutor: any Folio.ModelExecutor")
        }
        if !declared.contains("modelContainer") {
            parts.append("\(access)nonisolated let modelContainer: Folio.ModelContainer")
        }
        if !declaresInitWithModelContainer(type, bytes) && !hasPropertiesNeedingInitialization(type) {
            parts.append(
                """
                \(access)init(modelContainer: Folio.ModelContainer) {
                    let modelContext = Folio.ModelContext(modelContainer)
                    self.modelExecutor = Folio.DefaultSerialModelExecutor(modelContext: modelContext)
                    self.modelContainer = modelContainer
                }
                """)
        }
        return parts.joined(separator: "\n\n")
    }

    /// The access the generated members need to witness a public protocol's requirements in a
    /// public actor: the actor's own, up to `public`.
    private func accessModifier(_ type: TypeDeclSyntax) -> String {
        if type.modifiers.contains("public") || type.modifiers.contains("open") { return "public " }
        if type.modifiers.contains("package") { return "package " }
        return ""
    }

    /// Whether the actor declares `init(modelContainer:)` itself (whatever the parameter's type).
    private func declaresInitWithModelContainer(_ type: TypeDeclSyntax, _ bytes: [UInt8]) -> Bool {
        type.allMembers.contains { member in
            guard member.decl.keyword == "init", member.decl.start < member.decl.end, member.decl.end <= bytes.count else {
                return false
            }
            let text = String(decoding: bytes[member.decl.start..<member.decl.end], as: UTF8.self)
            return Self.parameterLabels(ofInitializer: text) == ["modelContainer"]
        }
    }

    /// The argument labels of the initializer declared in `text` (`_` for none), or nil when its
    /// parameter list cannot be found.
    static func parameterLabels(ofInitializer text: String) -> [String]? {
        let tokens = Lexer.tokenize(text)
        guard let keyword = tokens.firstIndex(where: { $0.isIdentifier("init") }) else { return nil }
        var index = keyword + 1
        var angle = 0
        // `init?`, `init!` and a generic parameter clause come before the parameter list.
        while index < tokens.count, !(angle == 0 && tokens[index].isPunctuation("(")) {
            if tokens[index].isPunctuation("<") { angle += 1 }
            if tokens[index].isPunctuation(">") { angle -= 1 }
            index += 1
        }
        guard index < tokens.count else { return nil }
        var labels: [String] = []
        var depth = 0
        var startsParameter = true
        while index < tokens.count {
            let token = tokens[index]
            index += 1
            if token.kind == .punctuation, ["(", "[", "<"].contains(token.text) {
                depth += 1
                if depth == 1 { continue }
            }
            if token.kind == .punctuation, [")", "]", ">"].contains(token.text) {
                depth -= 1
                if depth == 0 { break }
            }
            if depth == 1 && token.isPunctuation(",") {
                startsParameter = true
                continue
            }
            if depth == 1 && startsParameter {
                startsParameter = false
                // Attributes of a parameter (`@escaping`) belong to its type, after the colon.
                if token.kind == .identifier { labels.append(token.text) }
            }
        }
        return labels
    }

    /// Whether the actor has stored instance properties that only an initializer can give a value: the
    /// generated `init(modelContainer:)` could not compile. `modelExecutor` and `modelContainer` it sets.
    private func hasPropertiesNeedingInitialization(_ type: TypeDeclSyntax) -> Bool {
        type.allMembers.contains { member in
            let decl = member.decl
            guard ["var", "let"].contains(decl.keyword), !decl.isStatic, !decl.modifiers.contains("lazy") else { return false }
            return decl.bindings.contains { binding in
                guard binding.name != "modelExecutor", binding.name != "modelContainer",
                    binding.accessorBlock != .computed, binding.initializer == nil
                else { return false }
                // A `var` of optional type starts as nil.
                if decl.keyword == "var", let type = binding.type,
                    type.hasSuffix("?") || type.hasSuffix("!") || type.hasPrefix("Optional<")
                {
                    return false
                }
                return true
            }
        }
    }
}
