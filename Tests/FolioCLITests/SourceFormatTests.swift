import Foundation
import Testing

/// The sources are as `swift format` with the package's `.swift-format` leaves them: pretty-printing
/// only (4-space indentation, lines up to 150 columns, existing line breaks kept; no rule rewrites
/// code). Run `swift format format --in-place --recursive Sources Tests Package.swift` to fix a failure.
@Suite("Source formatting")
struct SourceFormatTests {
    /// Whether the toolchain on PATH has `swift format` (toolchains before 6.0 do not).
    static let hasSwiftFormat: Bool = {
        guard let swift = DocumentationTests.swiftExecutable() else { return false }
        return (try? run(swift, arguments: ["format", "--version"]))?.status == 0
    }()

    @Test(.enabled(if: hasSwiftFormat, "needs a toolchain with swift format on PATH"))
    func everySwiftFileIsFormattedAsTheConfigurationSays() throws {
        let swift = try #require(DocumentationTests.swiftExecutable())
        let root = DocumentationTests.packageRoot
        let lint = try run(
            swift,
            arguments: [
                "format", "lint", "--strict", "--recursive", "--parallel",
                "--configuration", root.appendingPathComponent(".swift-format").path,
                "Sources", "Tests", "Package.swift",
            ], directory: root)
        #expect(lint.status == 0, "swift format lint found unformatted code:\n\(lint.stderr.prefix(4000))")
    }
}
