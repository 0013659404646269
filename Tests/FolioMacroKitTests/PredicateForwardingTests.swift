import Foundation
import Testing
@testable import FolioMacroKit

/// Folio's `#Predicate`: the `evaluate` rewrite, and forwarding to Foundation's macro in the
/// toolchain's plugin server, including how it fails.
@Suite("Predicate forwarding")
struct PredicateForwardingTests {
    static let fileOffset = 120

    /// A `#Predicate` request as the compiler sends it, decoded as the plugin decodes it.
    private func request(_ source: String) throws -> ExpansionRequest {
        let location = PluginJSON.object([
            ("column", .number(17)), ("fileID", .string("App/Trips.swift")), ("fileName", .string("/app/Trips.swift")),
            ("line", .number(7)), ("offset", .number(Double(Self.fileOffset))),
        ])
        let message = PluginJSON.object([
            (
                "expandFreestandingMacro",
                .object([
                    ("discriminator", .string("$s3App0017Tripsswift_fMf_")),
                    ("lexicalContext", .array([])),
                    (
                        "macro",
                        .object([
                            ("moduleName", .string("FolioMacros")), ("name", .string("Predicate")),
                            ("typeName", .string("PredicateMacro")),
                        ])
                    ),
                    ("macroRole", .string("expression")),
                    ("syntax", .object([("kind", .string("expression")), ("location", location), ("source", .string(source))])),
                ])
            )
        ])
        guard case .expand(let decoded) = try PluginMessageCodec.decode(message.serialized()) else {
            throw PluginJSONError(description: "not decoded as an expansion")
        }
        return decoded
    }

    /// The toolchain `swift test` runs from, or nil when it has no plugin server.
    private func runningToolchain() -> Toolchain? {
        guard let swiftc = BuildProducts.compiler() else { return nil }
        let usr = URL(fileURLWithPath: swiftc).resolvingSymlinksInPath().deletingLastPathComponent().deletingLastPathComponent()
        return try? Toolchain(usr: usr.path).checked().get()
    }

    @Test func evaluateCallsAreRenamedAndNothingElseMoves() throws {
        let source =
            #"#Predicate<Trip> { cheap.evaluate($0) && $0.name != "x.evaluate(y)" && p?.evaluate($0) == true /* .evaluate( */ && evaluate($0) } // .evaluate("#
        let rewrite = EvaluateRewrite(SourceSnippet(source: source))
        let expected =
            #"#Predicate<Trip> { cheap.contains($0) && $0.name != "x.evaluate(y)" && p?.contains($0) == true /* .evaluate( */ && evaluate($0) } // .evaluate("#
        #expect(rewrite.source == expected)
        #expect(rewrite.source.utf8.count == source.utf8.count)
        let first = try #require(source.range(of: "evaluate($0)"))
        #expect(rewrite.renamed.first == source.utf8.distance(from: source.startIndex, to: first.lowerBound))
        #expect(rewrite.renamed.count == 2)
        #expect(rewrite.diagnostics.isEmpty)
    }

    @Test func evaluateWithTwoInputsIsAnErrorAtItsName() throws {
        let source = "#Predicate<Trip, Trip> { pair.evaluate($0, $1) || single.evaluate(f($0, $1)) }"
        let rewrite = EvaluateRewrite(SourceSnippet(source: source, fileName: "/app/Trips.swift", offset: 100, line: 3))
        let diagnostic = try #require(rewrite.diagnostics.first)
        #expect(rewrite.diagnostics.count == 1)
        #expect(diagnostic.message.contains("evaluate(_:) with one input only"))
        let name = try #require(source.range(of: "evaluate($0, $1)"))
        #expect(diagnostic.offset == 100 + source.utf8.distance(from: source.startIndex, to: name.lowerBound))
        #expect(rewrite.renamed.count == 1)  // the one-argument call, whose argument holds a comma
    }

    @Test func aMissingToolchainIsAnErrorAtTheMacroNotAHang() throws {
        let forwarder = PredicateForwarder(locate: { Toolchain(usr: "/nonexistent/usr").checked() })
        let result = forwarder.expand(try request("\n    #Predicate<Trip> { $0.price < 50 }"))
        let diagnostic = try #require(result.diagnostics.first)
        #expect(result.forwardedReply == nil)
        #expect(diagnostic.message.contains("/nonexistent/usr/bin/swift-plugin-server is missing"))
        #expect(diagnostic.offset == Self.fileOffset + 5)  // the '#'
    }

    @Test func aServerThatNeverAnswersTimesOut() throws {
        let script = FileManager.default.temporaryDirectory.appendingPathComponent("silent-server-\(UUID().uuidString)")
        try "#!/bin/sh\nexec sleep 60\n".write(to: script, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: script) }
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script.path)
        var silent = Toolchain(usr: "/unused")
        silent.pluginServer = script.path
        let forwarder = PredicateForwarder(timeout: 0.5, locate: { .success(silent) })
        let started = Date()
        let result = forwarder.expand(try request("#Predicate<Trip> { $0.price < 50 }"))
        #expect(Date().timeIntervalSince(started) < 10)
        #expect(result.diagnostics.first?.message.contains("did not answer within 0.5 seconds") == true)
    }

    @Test func foundationsMacroExpandsTheRenamedCallAndKeepsItsDiagnostics() throws {
        guard let toolchain = runningToolchain() else {
            try Test.cancel("Skipped: the running toolchain has no swift-plugin-server")
        }
        let forwarder = PredicateForwarder(locate: { .success(toolchain) })
        let nested = forwarder.expand(try request(#"#Predicate<Trip> { cheap.evaluate($0) && $0.name.starts(with: "A") }"#))
        let reply = try PluginJSON.parse(try #require(nested.forwardedReply))["expandMacroResult"]
        let expansion = try #require(reply?["expandedSource"]?.string)
        expectContains(expansion, "build_contains(", "build_Arg(cheap)", "build_starts(")
        #expect(reply?["diagnostics"]?.array?.isEmpty == true)

        // The same server answers the next request, and Foundation's own diagnostic comes back.
        let source = #"#Predicate<Trip> { $0.name.hasPrefix("A") }"#
        let refused = forwarder.expand(try request(source))
        let diagnostics = try PluginJSON.parse(try #require(refused.forwardedReply))["expandMacroResult"]?["diagnostics"]?.array
        let message = try #require(diagnostics?.first?["message"]?.string)
        #expect(message.contains("hasPrefix(_:) function is not supported"))
        let position = diagnostics?.first?["position"]?["offset"]?.int
        let call = try #require(source.range(of: "$0.name.hasPrefix"))
        #expect(position.map { $0 >= Self.fileOffset + source.utf8.distance(from: source.startIndex, to: call.lowerBound) } == true)
    }
}
