import Foundation
import Testing

/// The built `folio` executable, next to the test bundle.
func folioExecutable() -> URL? {
    builtExecutable(named: "folio")
}

/// The executable product `name`, built beside the tests.
func builtExecutable(named name: String) -> URL? {
    var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    for _ in 0..<4 {
        let candidate = directory.appendingPathComponent(name)
        if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        directory = directory.deletingLastPathComponent()
    }
    return nil
}

@Suite("The folio command")
struct FolioCommandTests {
    @Test func theExecutableIsBuilt() throws {
        #expect(folioExecutable() != nil)
    }
}
