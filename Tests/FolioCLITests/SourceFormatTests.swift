import Foundation
import Testing

/// The sources are as `swift format` with the package's `.swift-format` leaves them: pretty-printing
/// only (4-space indentation, lines up to 150 columns, existing line breaks kept; no rule rewrites
/// code). Run `swift format format --in-place --recursive Sources Tests Package.swift` to fix a failure.
@Suite("Source formatting")
struct SourceFormatTests {
    @Test(.enabled(if: DocumentationTests.swiftExecutable() != nil, "needs swift on PATH"))
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
