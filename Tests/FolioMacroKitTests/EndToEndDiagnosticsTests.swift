import Foundation
import Testing
@testable import FolioMacroKit

/// Compiles fixture files with the real compiler, the built `Folio` module and the built plugin, and
/// checks that each macro error appears as `file:line: error: …` on the line marked for it.
///
/// A fixture marks each error it expects on the line where it must appear, with one or more
/// `// expected-error: <part of the message>` comments. Every error on a fixture line must be marked;
/// errors inside macro expansion buffers fail the test too (the generated code must compile).
@Suite("End-to-end diagnostics")
struct EndToEndDiagnosticsTests {
    static let fixtures: [String: String] = [
        "ModelActors.swift": modelActorFixture,
        "NotClasses.swift": """
        import Folio

        @Model
        struct PointModel { // expected-error: '@Model' cannot be applied to a struct
            var x: Int = 0
            init() {}
        }

        /// An enum { with a brace in its doc comment }
        @Model
        public enum KindModel { // expected-error: '@Model' cannot be applied to an enum
            case a
        }

        @Model actor CounterModel { // expected-error: '@Model' cannot be applied to an actor
            var count: Int = 0
            init() {}
        }
        """,
        "BadProperties.swift": """
        import Folio

        protocol Shape {}
        struct Square: Shape {}

        @Model
        final class Drawing {
            #Index<Drawing>([\\.title], [\\.scratch]) // expected-error: '#Index' names 'scratch', which is not persisted
            #Unique<Drawing>([\\.shout]) // expected-error: '#Unique' names 'shout', which is not persisted
            #Index<Drawing>([\\.nothing]) // expected-error: 'nothing', which is not a persisted property of 'Drawing' // expected-error: key path

            var title: String = "a } \\" {"
            var onTap: () -> Void // expected-error: 'onTap' cannot be persisted: a function type
            var corner: (Int, Int) // expected-error: 'corner' cannot be persisted: a tuple
            var shape: any Shape // expected-error: 'shape' cannot be persisted: 'any Shape' is an existential
            var kind: Int.Type // expected-error: 'kind' cannot be persisted: a metatype
            @Relationship var label: String = "" // expected-error: @Relationship needs a model type
            @Relationship(deleteRule: .cascade) // expected-error: but 'counts' is '[String: Int]'
            var counts: [String: Int] = [:]
            let id: Int
            let serial: Int = 7 // expected-error: a persisted 'let' cannot have an initial value
            lazy var cache: [Int] = [] // expected-error: a 'lazy' property cannot be persisted
            @Transient var scratch: Int = 0
            @Transient var temporary: Int // expected-error: a @Transient property needs a default value
            var shout: String { title.uppercased() }

            init(id: Int) {
                self.id = id
                self.onTap = {}
                self.corner = (0, 0)
                self.shape = Square()
                self.kind = Int.self
                self.temporary = 0
            }
        }

        @Model
        final class NoInit { // expected-error: '@Model' requires an initializer be provided for 'NoInit'
            var name: String = ""
        }
        """,
        "Valid.swift": """
        import Folio
        import Foundation

        // Everything here must compile without an error, in the fixture or in any expansion.

        @Model
        final class Journey {
            #Index<Journey>([\\.name], [\\.start, \\.name])
            #Unique<Journey>([\\.name])

            @Attribute(
                .unique,
                originalName: "title"
            )
            var name: String
            var start: Date = Date(timeIntervalSince1970: 0)
            var updated: Date = .distantPast
            var mood: Mood = .calm
            var ratio: Double = 1.0 / 3.0
            var flags: [Bool] = [true, false].map { !$0 }
            var attempts = Int.zero
            var café: String = "crème { \\" }"
            var `default`: Int = 0
            var scores = Dictionary<String, Int>()
            var tags: Set<String> = []
            var notes = [
                "a",
                "b",
            ]
            #if DEBUG
            var debugNote: String?
            #else
            var releaseNote: String?
            #endif
            #if (os(Linux)
                || os(macOS)) // a condition on two lines
            var desktop: Bool = true
            #endif
            @Relationship(deleteRule: .cascade, inverse: \\Leg.journey) var legs: [Leg] = []
            @Transient var isExpanded = false
            var display: String { "\\(name) { \\"x\\" }" }
            static var count = 0

            init(name: String) {
                self.name = name
            }
        }

        enum Mood: String, Codable { case calm, busy }

        @Model
        final class Leg {
            var from: String = ""
            var journey: Journey?
            init() {}
        }

        @Model
        class Vehicle: PersistentModel {
            var wheels: Int = 4
            init() {}
        }

        @Model
        final class Bicycle: Vehicle {
            var gears: Int = 1
            init(gears: Int) {
                self.gears = gears
                super.init()
            }
        }

        enum Outer {
            @Model
            final class Inner {
                var value: Int = 0
                init() {}
            }
        }
        """,
    ]

    /// One `file:line:column: severity: message` line of compiler output.
    struct CompilerDiagnostic: CustomStringConvertible {
        var file: String
        var line: Int
        var severity: String
        var message: String
        var description: String { "\(file):\(line): \(severity): \(message)" }

        init?(_ text: Substring) {
            // file:line:column: severity: message — the file may itself contain ':' only in odd paths.
            let parts = text.split(separator: ":", maxSplits: 4, omittingEmptySubsequences: false)
            guard parts.count == 5, let line = Int(parts[1]), Int(parts[2]) != nil else { return nil }
            let severity = parts[3].trimmingCharacters(in: .whitespaces)
            guard ["error", "warning", "note", "remark"].contains(severity) else { return nil }
            self.file = String(parts[0])
            self.line = line
            self.severity = severity
            self.message = parts[4].trimmingCharacters(in: .whitespaces)
        }
    }

    @Test func macroErrorsAppearAtTheirLinesAndValidModelsCompile() throws {
        guard let products = BuildProducts.locate() else {
            try Test.cancel(
                Comment(
                    rawValue:
                        "Skipped: the built Folio module and FolioMacros-tool were not found next to the test bundle (\(BuildProducts.searched.joined(separator: ", "))); run under `swift test` or `swift build` first."
                ))
        }
        guard let swiftc = BuildProducts.compiler() else {
            try Test.cancel("Skipped: no swiftc on PATH to compile the fixtures with.")
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("folio-fixtures-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var paths: [String] = []
        for (name, text) in Self.fixtures.sorted(by: { $0.key < $1.key }) {
            let url = directory.appendingPathComponent(name)
            try text.write(to: url, atomically: true, encoding: .utf8)
            paths.append(url.path)
        }

        let arguments =
            [
                "-typecheck", "-wmo", "-diagnostic-style", "llvm", "-module-name", "FolioFixtures",
                "-I", products.modules, "-module-cache-path", products.moduleCache,
                "-load-plugin-executable", products.plugin + "#FolioMacros",
            ] + paths
        let output = try run(swiftc, arguments)
        if output.contains("compiled with Swift") || output.contains("cannot load module") {
            try Test.cancel(Comment(rawValue: "Skipped: \(swiftc) cannot read the built modules:\n\(output)"))
        }
        let diagnostics = output.split(separator: "\n").compactMap(CompilerDiagnostic.init)
        #expect(!diagnostics.isEmpty, "the compiler reported nothing:\n\(output)")

        // Every marked error appears on its line.
        for (name, text) in Self.fixtures {
            let path = directory.appendingPathComponent(name).path
            for (index, sourceLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let expectations = sourceLine.components(separatedBy: "// expected-error:").dropFirst()
                    .map { $0.trimmingCharacters(in: .whitespaces) }
                for expected in expectations {
                    let found = diagnostics.contains {
                        $0.file == path && $0.line == index + 1 && $0.severity == "error" && $0.message.contains(expected)
                    }
                    #expect(found, "\(name):\(index + 1): expected an error containing \"\(expected)\"; the compiler said:\n\(output)")
                }
            }
        }

        // No error is unexpected: not on an unmarked line, not in generated code.
        for diagnostic in diagnostics where diagnostic.severity == "error" {
            let name = (diagnostic.file as NSString).lastPathComponent
            let lines = Self.fixtures[name].map { $0.split(separator: "\n", omittingEmptySubsequences: false) }
            let marked = lines.map { diagnostic.line <= $0.count && $0[diagnostic.line - 1].contains("// expected-error:") } ?? false
            #expect(marked, "unexpected error: \(diagnostic)")
        }

        // Macro errors carry the compiler's suffix, so users see where they come from.
        #expect(diagnostics.contains { $0.message.hasSuffix("(from macro 'Model')") })

        // Generated code compiles without warnings too: users would see them in every build.
        let generatedWarnings = diagnostics.filter { $0.severity == "warning" && $0.file.contains("@__swiftmacro_") }
        #expect(generatedWarnings.isEmpty, "\(generatedWarnings.map(\.description).joined(separator: "\n"))")
    }

    /// The built plugin process speaks the framing: an 8-byte little-endian length, then JSON; it answers
    /// every message (garbage too) and exits with status 0 at a zero-length frame or at end of input.
    @Test(arguments: ["zero-length frame", "end of input", "truncated frame"])
    func pluginProcessAnswersEveryFrameAndExitsCleanly(ending: String) throws {
        guard let products = BuildProducts.locate() else {
            try Test.cancel("Skipped: the built FolioMacros-tool was not found next to the test bundle.")
        }
        func frame(_ payload: [UInt8]) -> [UInt8] {
            var length = UInt64(payload.count)
            var header: [UInt8] = []
            for _ in 0..<8 { header.append(UInt8(truncatingIfNeeded: length)); length >>= 8 }
            return header + payload
        }
        var input = frame(Array(#"{"getCapability":{"capability":{"protocolVersion":7}}}"#.utf8))
        input += frame(Array(WireTests.capturedMemberMessage.utf8))
        input += frame(Array("{ not json".utf8))
        input += frame(Array(#"{"expandAttachedMacro":{"attributeSyntax":{"source":"@X"},"macro":{"typeName":"Nope"},"macroRole":"peer"}}"#.utf8))
        switch ending {
        case "zero-length frame": input += frame([]) + frame(Array("ignored after the end".utf8))
        case "truncated frame": input += [100, 0, 0, 0, 0, 0, 0, 0] + Array("{\"get".utf8)
        default: break
        }

        let process = Process()
        process.executableURL = URL(fileURLWithPath: products.plugin)
        let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        stdin.fileHandleForWriting.write(Data(input))
        try stdin.fileHandleForWriting.close()
        let output = [UInt8](stdout.fileHandleForReading.readDataToEndOfFile())
        process.waitUntilExit()
        #expect(process.terminationReason == .exit)
        #expect(process.terminationStatus == 0)

        var replies: [PluginJSON] = []
        var index = 0
        while index + 8 <= output.count {
            var length = 0
            for byte in output[index..<(index + 8)].reversed() { length = length << 8 | Int(byte) }
            index += 8
            guard index + length <= output.count else { Issue.record("truncated reply frame"); break }
            replies.append(try PluginJSON.parse(Array(output[index..<(index + length)])))
            index += length
        }
        #expect(index == output.count, "stdout carries only frames")
        #expect(replies.count == 4)
        guard replies.count == 4 else { return }
        #expect(replies[0]["getCapabilityResult"]?["capability"]?["protocolVersion"]?.int == 7)
        #expect(replies[1]["expandMacroResult"]?["expandedSource"]?.string?.contains("persistentBackingData") == true)
        #expect(replies[2]["expandMacroResult"]?["diagnostics"]?.array?.first?["severity"]?.string == "error")
        #expect(replies[3]["expandMacroResult"]?["diagnostics"]?.array?.first?["message"]?.string?.contains("Nope") == true)
    }

    func run(_ executable: String, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }
}

/// Where `swift build` / `swift test` put the `Folio` module and the plugin executable.
struct BuildProducts {
    var modules: String
    var moduleCache: String
    var plugin: String

    nonisolated(unsafe) static var searched: [String] = []

    /// Looks in the directory of the running test bundle (and its parents, for bundle layouts), then in
    /// `.build/{debug,release}` of the package this file belongs to.
    static func locate(filePath: String = #filePath) -> BuildProducts? {
        var candidates: [URL] = []
        var executables = [Bundle.main.executablePath, CommandLine.arguments.first].compactMap { $0 }
        // On macOS, swift-testing runs the bundle through `swiftpm-testing-helper --test-bundle-path <bundle>`.
        if let flag = CommandLine.arguments.firstIndex(of: "--test-bundle-path"), flag + 1 < CommandLine.arguments.count {
            executables.append(CommandLine.arguments[flag + 1] + "/Contents/MacOS/bundle")
        }
        for executable in executables {
            var url = URL(fileURLWithPath: executable).resolvingSymlinksInPath().deletingLastPathComponent()
            for _ in 0..<4 {
                candidates.append(url)
                url = url.deletingLastPathComponent()
            }
        }
        let packageRoot = URL(fileURLWithPath: filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        for configuration in ["debug", "release"] {
            candidates.append(packageRoot.appendingPathComponent(".build").appendingPathComponent(configuration))
        }
        searched = candidates.map(\.path)
        for directory in candidates {
            let modules = directory.appendingPathComponent("Modules")
            let plugin = directory.appendingPathComponent("FolioMacros-tool")
            guard FileManager.default.fileExists(atPath: modules.appendingPathComponent("Folio.swiftmodule").path),
                FileManager.default.isExecutableFile(atPath: plugin.path)
            else { continue }
            return BuildProducts(
                modules: modules.path, moduleCache: directory.appendingPathComponent("ModuleCache").path,
                plugin: plugin.path)
        }
        return nil
    }

    /// The `swiftc` on PATH (the toolchain that `swift test` itself runs from).
    static func compiler() -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let candidate = "\(directory)/swiftc"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }
}
