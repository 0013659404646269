/// A piece of source the compiler sends: its text (with leading and trailing trivia) and where it starts.
package struct SourceSnippet: Sendable, Equatable {
    /// The node's full text, trivia included.
    package var source: String
    /// The file the text comes from. Empty for synthesised nodes.
    package var fileName: String
    /// The absolute UTF-8 offset of the first byte of `source` in `fileName`.
    package var offset: Int
    /// The 1-based line of the first byte of `source`.
    package var line: Int

    package init(source: String, fileName: String = "", offset: Int = 0, line: Int = 1) {
        self.source = source
        self.fileName = fileName
        self.offset = offset
        self.line = line
    }

    init?(json: PluginJSON?) {
        guard let json, let source = json["source"]?.string else { return nil }
        self.source = source
        let location = json["location"]
        self.fileName = location?["fileName"]?.string ?? ""
        // Clamped to what a real file can have, so that arithmetic on them never overflows.
        let limit = 1 << 40
        self.offset = min(max(location?["offset"]?.int ?? 0, 0), limit)
        self.line = min(max(location?["line"]?.int ?? 1, 0), limit)
    }
}

/// The roles an attached or freestanding macro is expanded in.
package enum MacroRole: String, Sendable {
    case expression, declaration, accessor, memberAttribute, member, peer, conformance, codeItem, `extension`
    case preamble, body
}

/// One expansion request from the compiler, reduced to what Folio's macros read.
package struct ExpansionRequest: Sendable {
    /// The macro's implementation type name, as written in `#externalMacro(module:type:)`.
    package var typeName: String
    package var role: MacroRole
    /// The attribute (`@Model`) for attached macros; the whole `#Index<…>(…)` for freestanding ones.
    package var attribute: SourceSnippet
    /// The declaration an attached macro is attached to.
    package var declaration: SourceSnippet?
    /// The enclosing type for memberAttribute requests.
    package var parentDeclaration: SourceSnippet?
    /// The extended type's name for extension requests (`Outer.Inner`).
    package var extendedType: String?
    /// For extension (and member) roles declared with `conformances:`: the protocols the type does not
    /// yet conform to, as `struct Placeholder: A, B {}`; nil when it conforms to all of them.
    package var conformanceList: String?
    /// Enclosing declarations, innermost first, with their bodies emptied.
    package var lexicalContext: [String]
    /// The host's whole message, for a macro that forwards it to another plugin (`#Predicate`).
    package var message: PluginJSON?

    package init(
        typeName: String, role: MacroRole, attribute: SourceSnippet, declaration: SourceSnippet? = nil,
        parentDeclaration: SourceSnippet? = nil, extendedType: String? = nil,
        conformanceList: String? = nil, lexicalContext: [String] = [], message: PluginJSON? = nil
    ) {
        self.typeName = typeName
        self.role = role
        self.attribute = attribute
        self.declaration = declaration
        self.parentDeclaration = parentDeclaration
        self.extendedType = extendedType
        self.conformanceList = conformanceList
        self.lexicalContext = lexicalContext
        self.message = message
    }
}

/// A diagnostic to send back: a message at a position, optionally with fix-its.
package struct MacroDiagnostic: Sendable, Equatable {
    package enum Severity: String, Sendable { case error, warning, note, remark }
    package struct FixIt: Sendable, Equatable {
        package var message: String
        package var startOffset: Int
        package var endOffset: Int
        package var replacement: String
    }

    package var message: String
    package var severity: Severity
    /// The file the diagnostic points into.
    package var fileName: String
    /// The absolute UTF-8 offset in `fileName`.
    package var offset: Int
    /// The 1-based line, computed by the plugin for tests and logs (the compiler derives its own).
    package var line: Int
    package var fixIts: [FixIt]

    package init(
        message: String, severity: Severity = .error, fileName: String, offset: Int, line: Int,
        fixIts: [FixIt] = []
    ) {
        self.message = message
        self.severity = severity
        self.fileName = fileName
        self.offset = offset
        self.line = line
        self.fixIts = fixIts
    }
}

/// What an expansion produces: source text (nil when nothing is produced) and diagnostics.
package struct ExpansionResult: Sendable, Equatable {
    package var source: String?
    package var diagnostics: [MacroDiagnostic]
    /// A complete reply that another plugin produced (Foundation's `#Predicate`), sent to the host
    /// unchanged so that its diagnostics keep their notes, highlights and fix-its.
    package var forwardedReply: [UInt8]?

    package init(source: String?, diagnostics: [MacroDiagnostic] = []) {
        self.source = source
        self.diagnostics = diagnostics
    }

    package init(forwardedReply: [UInt8]) {
        self.source = nil
        self.diagnostics = []
        self.forwardedReply = forwardedReply
    }
}

/// Decodes host messages and encodes replies.
package enum PluginMessageCodec {
    /// The protocol version Folio's plugin speaks (the 6.3 host sends 7).
    package static let protocolVersion = 7

    /// What the host asked for.
    package enum HostMessage: Sendable {
        case getCapability
        case expand(ExpansionRequest)
        case unknown(String)
    }

    package static func decode(_ bytes: [UInt8]) throws -> HostMessage {
        let json = try PluginJSON.parse(bytes)
        guard case .object(let members) = json, let (name, body) = members.first else {
            throw PluginJSONError(description: "a host message must be an object with one key")
        }
        switch name {
        case "getCapability":
            return .getCapability
        case "expandAttachedMacro", "expandFreestandingMacro":
            let macro = body["macro"]
            let typeName = macro?["typeName"]?.string ?? ""
            let roleName = body["macroRole"]?.string ?? ""
            let role = MacroRole(rawValue: roleName == "freeStandingDeclaration" ? "declaration" : roleName) ?? .declaration
            let attributeJSON = name == "expandAttachedMacro" ? body["attributeSyntax"] : body["syntax"]
            guard let attribute = SourceSnippet(json: attributeJSON) else {
                throw PluginJSONError(description: "the expansion request has no syntax")
            }
            let context = (body["lexicalContext"]?.array ?? []).compactMap { $0["source"]?.string }
            return .expand(
                ExpansionRequest(
                    typeName: typeName,
                    role: role,
                    attribute: attribute,
                    declaration: SourceSnippet(json: body["declSyntax"]),
                    parentDeclaration: SourceSnippet(json: body["parentDeclSyntax"]),
                    extendedType: body["extendedTypeSyntax"]?["source"]?.string,
                    conformanceList: body["conformanceListSyntax"]?["source"]?.string,
                    lexicalContext: context,
                    message: json))
        default:
            return .unknown(name)
        }
    }

    package static func capabilityReply() -> [UInt8] {
        PluginJSON.object([
            ("getCapabilityResult", .object([("capability", .object([("protocolVersion", .number(Double(protocolVersion)))]))]))
        ]).serialized()
    }

    package static func expansionReply(_ result: ExpansionResult) -> [UInt8] {
        if let forwarded = result.forwardedReply { return forwarded }
        let diagnostics: [PluginJSON] = result.diagnostics.map { diagnostic in
            let position = PluginJSON.object([
                ("fileName", .string(diagnostic.fileName)), ("offset", .number(Double(diagnostic.offset))),
            ])
            let fixIts: [PluginJSON] = diagnostic.fixIts.map { fixIt in
                .object([
                    ("message", .string(fixIt.message)),
                    (
                        "changes",
                        .array([
                            .object([
                                (
                                    "range",
                                    .object([
                                        ("fileName", .string(diagnostic.fileName)),
                                        ("startOffset", .number(Double(fixIt.startOffset))),
                                        ("endOffset", .number(Double(fixIt.endOffset))),
                                    ])
                                ),
                                ("newText", .string(fixIt.replacement)),
                            ])
                        ])
                    ),
                ])
            }
            return .object([
                ("message", .string(diagnostic.message)),
                ("severity", .string(diagnostic.severity.rawValue)),
                ("position", position),
                ("highlights", .array([])),
                ("notes", .array([])),
                ("fixIts", .array(fixIts)),
            ])
        }
        return PluginJSON.object([
            (
                "expandMacroResult",
                .object([
                    ("expandedSource", result.source.map(PluginJSON.string) ?? .null),
                    ("diagnostics", .array(diagnostics)),
                ])
            )
        ]).serialized()
    }

    package static func errorReply(_ message: String) -> [UInt8] {
        expansionReply(
            ExpansionResult(
                source: nil,
                diagnostics: [
                    MacroDiagnostic(message: message, fileName: "", offset: 0, line: 0)
                ]))
    }
}
