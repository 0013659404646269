import Foundation
import Testing
@testable import FolioMacroKit

/// A model executor owns its context: the compiler, in the Swift 6 language mode, refuses to hand it a
/// context that stays reachable elsewhere. Region checking runs after type checking, so these fixtures
/// are compiled to SIL rather than only type-checked.
@Suite("Model executor ownership")
struct ModelActorSendingTests {
    static let fixture = """
        import Folio

        @MainActor
        func handOverTheMainContext(_ container: ModelContainer) -> DefaultSerialModelExecutor {
            let context = container.mainContext
            return DefaultSerialModelExecutor(modelContext: context) // expected-error: sending 'context'
        }

        func useAfterHandingOver(_ container: ModelContainer) -> DefaultSerialModelExecutor {
            let context = ModelContext(container)
            let executor = DefaultSerialModelExecutor(modelContext: context) // expected-error: sending 'context'
            context.autosaveEnabled = true
            return executor
        }

        func handOverANewContext(_ container: ModelContainer) -> DefaultSerialModelExecutor {
            let context = ModelContext(container)
            context.author = "importer"
            return DefaultSerialModelExecutor(modelContext: context)
        }

        @ModelActor
        actor Importer {
            func hasChanges() -> Bool { modelContext.hasChanges }
        }
        """

    @Test func anExecutorRefusesAContextThatIsUsedElsewhere() async throws {
        guard let products = BuildProducts.locate() else {
            try Test.cancel("Skipped: the built Folio module and FolioMacros-tool were not found next to the test bundle.")
        }
        guard let swiftc = BuildProducts.compiler() else {
            try Test.cancel("Skipped: no swiftc on PATH to compile the fixture with.")
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("folio-sending-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("Sending.swift")
        try Self.fixture.write(to: file, atomically: true, encoding: .utf8)

        let output = try await Self.compile(
            swiftc,
            [
                "-swift-version", "6", "-emit-sil", "-o", "/dev/null", "-diagnostic-style", "llvm",
                "-module-name", "FolioSendingFixture", "-I", products.modules,
                // A cache of its own: SIL generation loads clang modules that the shared cache may hold under
                // another path of the same build directory.
                "-module-cache-path", products.moduleCache + "-SIL",
                "-load-plugin-executable", products.plugin + "#FolioMacros", file.path,
            ])
        if output.contains("compiled with Swift") || output.contains("cannot load module") {
            try Test.cancel(Comment(rawValue: "Skipped: \(swiftc) cannot read the built modules:\n\(output)"))
        }
        let errors = output.split(separator: "\n").compactMap(EndToEndDiagnosticsTests.CompilerDiagnostic.init)
            .filter { $0.severity == "error" }
        let lines = Self.fixture.split(separator: "\n", omittingEmptySubsequences: false)
        let marked = lines.indices.filter { lines[$0].contains("// expected-error:") }.map { $0 + 1 }
        #expect(Set(errors.map(\.line)) == Set(marked), "\(output)")
        for error in errors {
            let expected =
                lines[error.line - 1].components(separatedBy: "// expected-error:").last?
                .trimmingCharacters(in: .whitespaces) ?? "?"
            #expect(error.message.contains(expected), "\(error)")
        }
    }

    /// Runs the compiler on a thread of its own and waits for it without holding a thread of the
    /// concurrency pool: a compile takes minutes on a loaded machine, and the pool has a thread per core.
    private static func compile(_ swiftc: String, _ arguments: [String]) async throws -> String {
        try await withCheckedThrowingContinuation { continuation in
            Thread {
                continuation.resume(with: Result { try EndToEndDiagnosticsTests().run(swiftc, arguments) })
            }.start()
        }
    }
}
