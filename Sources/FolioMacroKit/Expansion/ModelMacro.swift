/// `@Model`: makes a class a persistent model.
///
/// - member role: storage for the backing data, `init(backingData:)`, the schema metadata, the index and
///   uniqueness declarations, and the record encoding and decoding of the persisted properties.
/// - memberAttribute role: `@_PersistedProperty` on each persisted stored property, which turns it into
///   a tracked property with `_name` storage.
/// - extension role: the `PersistentModel` and `Observable` conformances.
///
/// A subclass of another model is recognised by the compiler's own answer: the member role declares
/// the `PersistentModel` conformance, and the compiler lists it as missing only for a class that does
/// not inherit it.
struct ModelMacro {
    let request: ExpansionRequest
    let expander: MacroExpander

    func expand() -> ExpansionResult {
        guard let declaration = request.role == .memberAttribute ? request.parentDeclaration : request.declaration else {
            return ExpansionResult(source: "")
        }
        guard let type = expander.typeDecl(declaration.source) else {
            return ExpansionResult(
                source: "",
                diagnostics: request.role == .member
                    ? [
                        Diagnostics.error("'@Model' must be attached to a class declaration", at: 0, in: request.attribute)
                    ] : [])
        }
        switch request.role {
        case .member:
            return memberExpansion(type, declaration)
        case .memberAttribute:
            return memberAttributeExpansion(type)
        case .extension, .conformance:
            return extensionExpansion(type)
        default:
            return ExpansionResult(source: "")
        }
    }

    // MARK: Checks

    /// Problems that make the class unusable as a model; reported once, by the member role.
    private func classProblems(_ type: TypeDeclSyntax, _ snippet: SourceSnippet) -> [MacroDiagnostic] {
        guard type.keyword == "class" else {
            let fixIt = MacroDiagnostic.FixIt(
                message: "change '\(type.keyword)' to 'class'",
                startOffset: type.keywordOffset,
                endOffset: type.keywordOffset + type.keyword.utf8.count,
                replacement: "class")
            if type.keyword == "extension" {
                return [
                    Diagnostics.error(
                        "'@Model' cannot be applied to an extension; attach it to the class declaration itself",
                        at: type.keywordOffset, in: snippet)
                ]
            }
            let kind = ["actor", "enum"].contains(type.keyword) ? "an \(type.keyword)" : "a \(type.keyword)"
            return [
                Diagnostics.error(
                    "'@Model' cannot be applied to \(kind); models are classes, because a model context tracks each instance by identity",
                    at: type.keywordOffset, in: snippet, fixIts: type.keyword == "extension" ? [] : [fixIt])
            ]
        }
        if type.genericParameters != nil {
            return [
                Diagnostics.error(
                    "'@Model' does not support generic classes; a stored entity needs one concrete type",
                    at: type.nameOffset, in: snippet)
            ]
        }
        return []
    }

    // MARK: memberAttribute

    private func memberAttributeExpansion(_ type: TypeDeclSyntax) -> ExpansionResult {
        guard type.keyword == "class", type.genericParameters == nil,
            let member = request.declaration, let decl = DeclParser.parseMember(member.source)
        else {
            return ExpansionResult(source: "")
        }
        // A `let` keeps its plain storage: a constant cannot have accessors, and needs no tracking.
        if case .persisted(let property) = PropertyRules.classify(decl), !property.isConstant {
            return ExpansionResult(source: "@_PersistedProperty")
        }
        return ExpansionResult(source: "")
    }

    // MARK: extension

    private func extensionExpansion(_ type: TypeDeclSyntax) -> ExpansionResult {
        guard type.keyword == "class", type.genericParameters == nil,
            let extended = request.extendedType, let list = request.conformanceList
        else {
            return ExpansionResult(source: "")
        }
        var conformances: [String] = []
        if list.contains("PersistentModel") { conformances.append("Folio.PersistentModel") }
        if list.contains("Observable") { conformances.append("Observation.Observable") }
        guard !conformances.isEmpty else { return ExpansionResult(source: "") }
        return ExpansionResult(source: "extension \(extended): \(conformances.joined(separator: ", ")) {\n}")
    }

    // MARK: member

    private func memberExpansion(_ type: TypeDeclSyntax, _ snippet: SourceSnippet) -> ExpansionResult {
        let problems = classProblems(type, snippet)
        if !problems.isEmpty { return ExpansionResult(source: "", diagnostics: problems) }

        // The compiler lists PersistentModel as missing unless the class inherits it from a model, or
        // names it in its own inheritance clause (then the class is a root that spells it out).
        let namesConformance = type.inheritedTypes.contains { $0 == "PersistentModel" || $0.hasSuffix(".PersistentModel") }
        let isSubclass = request.conformanceList.map { !$0.contains("PersistentModel") } ?? !namesConformance
        let superclass = isSubclass ? type.inheritedTypes.first : nil
        let analysis = ModelAnalysis(type: type, snippet: snippet, isSubclass: isSubclass)
        let writer = ModelMemberWriter(analysis: analysis, superclass: superclass)
        return ExpansionResult(source: writer.source(), diagnostics: analysis.diagnostics)
    }
}
