/// Routes the compiler's requests to Folio's macros and turns the results into replies.
///
/// One expander lives for the whole plugin process. It caches parsed declarations by their source
/// text, because the compiler sends the same type body for every member and every role.
package final class MacroExpander {
    private var typeCache: [String: TypeDeclSyntax] = [:]
    private lazy var predicateForwarder = PredicateForwarder()

    package init() {}

    /// Answers one framed message from the host.
    package func handle(message: [UInt8]) -> [UInt8] {
        do {
            switch try PluginMessageCodec.decode(message) {
            case .getCapability:
                return PluginMessageCodec.capabilityReply()
            case .expand(let request):
                return PluginMessageCodec.expansionReply(expand(request))
            case .unknown(let name):
                return PluginMessageCodec.errorReply("The Folio macro plugin does not understand the message '\(name)'.")
            }
        } catch {
            return PluginMessageCodec.errorReply("The Folio macro plugin could not read the compiler's message: \(error)")
        }
    }

    /// Parses a type declaration, reusing an earlier parse of the same text.
    func typeDecl(_ source: String) -> TypeDeclSyntax? {
        if let cached = typeCache[source] { return cached }
        let parsed = DeclParser.parseTypeDecl(source)
        if typeCache.count > 64 { typeCache.removeAll() }
        typeCache[source] = parsed
        return parsed
    }

    /// Expands one request.
    package func expand(_ request: ExpansionRequest) -> ExpansionResult {
        switch request.typeName {
        case "ModelMacro":
            return ModelMacro(request: request, expander: self).expand()
        case "PersistedPropertyMacro":
            return PersistedPropertyMacro(request: request).expand()
        case "AttributeMacro", "RelationshipMacro", "TransientMacro":
            return PropertyAnnotationMacro(request: request).expand()
        case "ModelActorMacro":
            return ModelActorMacro(request: request, expander: self).expand()
        case "IndexMacro", "UniqueMacro":
            return ExpansionResult(source: "")
        case "PredicateMacro":
            return predicateForwarder.expand(request)
        default:
            return ExpansionResult(
                source: nil,
                diagnostics: [
                    Diagnostics.error(
                        "Folio's plugin has no macro named '\(request.typeName)'.",
                        at: 0, in: request.attribute)
                ])
        }
    }
}
