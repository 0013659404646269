/// Folio's `#Predicate` for Linux: Foundation's own macro, with `inner.evaluate(x)` allowed.
///
/// Foundation's macro on Linux refuses `evaluate`. This one renames each such call (see
/// ``EvaluateRewrite``) and hands the request to Foundation's implementation, loaded into the
/// toolchain's `swift-plugin-server`, and returns its reply unchanged. Every other form therefore
/// expands, and is diagnosed, exactly as Foundation's macro does it. The server is started on the first
/// `#Predicate` of a compiler job and reused for the rest; a failure to start or to answer in time
/// becomes an error at the macro, and the next expansion tries again.
package final class PredicateForwarder {
    private let locate: () -> Result<Toolchain, PluginServerError>
    private let timeout: Double
    private var connection: PluginServerConnection?

    /// - Parameters:
    ///   - timeout: Seconds to wait for any one answer from the server.
    ///   - locate: Finds the toolchain; by default the one the compiler that started this plugin runs from.
    package init(
        timeout: Double = 60,
        locate: @escaping () -> Result<Toolchain, PluginServerError> = Toolchain.ofParentProcess
    ) {
        self.timeout = timeout
        self.locate = locate
    }

    package func expand(_ request: ExpansionRequest) -> ExpansionResult {
        let rewrite = EvaluateRewrite(request.attribute)
        guard rewrite.diagnostics.isEmpty else { return ExpansionResult(source: nil, diagnostics: rewrite.diagnostics) }
        guard let body = request.message?["expandFreestandingMacro"], let syntax = body["syntax"] else {
            return failure("the compiler's request is not a freestanding expansion", request)
        }
        let foundationMacro = PluginJSON.object([
            ("moduleName", .string("FoundationMacros")), ("name", .string("Predicate")), ("typeName", .string("PredicateMacro")),
        ])
        let forwarded = PluginJSON.object([
            (
                "expandFreestandingMacro",
                body
                    .setting("macro", to: foundationMacro)
                    .setting("syntax", to: syntax.setting("source", to: .string(rewrite.source)))
            )
        ])
        do {
            return ExpansionResult(forwardedReply: try send(forwarded.serialized()))
        } catch {
            connection?.terminate()
            connection = nil
            return failure("\(error)", request)
        }
    }

    private func send(_ message: [UInt8]) throws -> [UInt8] {
        let connection = try self.connection ?? connect()
        self.connection = connection
        let reply = try connection.exchange(message)
        guard case .object(let members) = try PluginJSON.parse(reply), let name = members.first?.0,
            name == "expandMacroResult" || name == "expandFreestandingMacroResult"
        else {
            throw PluginServerError(description: "the server's answer is not an expansion")
        }
        return reply
    }

    private func connect() throws -> PluginServerConnection {
        let toolchain = try locate().get()
        let connection = try PluginServerConnection(executable: toolchain.pluginServer, timeout: timeout)
        let capability = PluginJSON.object([
            (
                "getCapability",
                .object([
                    ("capability", .object([("protocolVersion", .number(Double(PluginMessageCodec.protocolVersion)))]))
                ])
            )
        ])
        guard try PluginJSON.parse(connection.exchange(capability.serialized()))["getCapabilityResult"] != nil else {
            throw PluginServerError(description: "\(toolchain.pluginServer) did not answer as a plugin server")
        }
        let load = PluginJSON.object([
            (
                "loadPluginLibrary",
                .object([
                    ("libraryPath", .string(toolchain.foundationMacros)), ("moduleName", .string("FoundationMacros")),
                ])
            )
        ])
        let loaded = try PluginJSON.parse(connection.exchange(load.serialized()))["loadPluginLibraryResult"]
        guard loaded?["loaded"] == .bool(true) else {
            let reasons = (loaded?["diagnostics"]?.array ?? []).compactMap { $0["message"]?.string }
            throw PluginServerError(
                description: "\(toolchain.pluginServer) could not load \(toolchain.foundationMacros)"
                    + (reasons.isEmpty ? "" : ": " + reasons.joined(separator: "; ")))
        }
        return connection
    }

    /// An error at the macro's `#`.
    private func failure(_ reason: String, _ request: ExpansionRequest) -> ExpansionResult {
        let pound = Array(request.attribute.source.utf8).firstIndex(of: UInt8(ascii: "#")) ?? 0
        return ExpansionResult(
            source: nil,
            diagnostics: [
                Diagnostics.error(
                    "#Predicate could not be expanded: Folio hands it to Foundation's macro in the toolchain's swift-plugin-server, and \(reason)",
                    at: pound, in: request.attribute)
            ])
    }
}
