import Foundation
import Testing

/// The package as its users see it: the DocC catalog builds without warnings, and the code in the
/// README and in the DocC articles compiles in a package of its own that depends on Folio by path.
@Suite("Documentation and a consumer package")
struct DocumentationTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let catalog = packageRoot.appendingPathComponent("Sources/Folio/Folio.docc")

    /// The `swift` code blocks of a Markdown file, in order.
    static func swiftBlocks(in url: URL) throws -> [String] {
        var blocks: [String] = []
        var current: [Substring]?
        for line in try String(contentsOf: url, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false) {
            if current == nil, line.trimmingCharacters(in: .whitespaces) == "```swift" {
                current = []
            } else if current != nil, line.trimmingCharacters(in: .whitespaces) == "```" {
                blocks.append((current ?? []).joined(separator: "\n"))
                current = nil
            } else {
                current?.append(line)
            }
        }
        return blocks
    }

    static var articles: [URL] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: catalog.path)) ?? []
        return names.filter { $0.hasSuffix(".md") }.sorted().map { catalog.appendingPathComponent($0) }
    }

    @Test func theCatalogHasALandingPageAndArticlesWithCode() throws {
        let names = Self.articles.map(\.lastPathComponent)
        #expect(names.contains("Folio.md"))
        for article in [
            "GettingStarted", "SwiftDataCompatibility", "Queries", "HistoryAndObservation", "Durability",
            "FileFormat", "KeepingAStoreInGit",
        ] {
            #expect(names.contains(article + ".md"), "\(article)")
            let landing = try String(contentsOf: Self.catalog.appendingPathComponent("Folio.md"), encoding: .utf8)
            #expect(landing.contains("<doc:\(article)>"), "the landing page lists \(article)")
        }
        #expect(try Self.swiftBlocks(in: Self.catalog.appendingPathComponent("GettingStarted.md")).count >= 3)
    }

    @Test(.timeLimit(.minutes(10)))
    func theDocCCatalogBuildsWithoutWarnings() throws {
        let modules = try #require(builtExecutable(named: "folio")).deletingLastPathComponent().appendingPathComponent("Modules")
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("folio-docs-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: output) }
        let script = Self.packageRoot.appendingPathComponent("Tools/build-docs")
        let run = try run(
            URL(fileURLWithPath: "/bin/bash"),
            arguments: [script.path, "--modules", modules.path, "--output", output.path])
        #expect(run.status == 0, "\(run)")
        #expect(!run.stdout.contains("warning:") && !run.stderr.contains("warning:"), "\(run)")
        let pages = output.appendingPathComponent("data/documentation/folio")
        for page in ["gettingstarted.json", "modelcontainer.json", "modelcontext.json", "fetchdescriptor.json"] {
            #expect(FileManager.default.fileExists(atPath: pages.appendingPathComponent(page).path), "\(page)")
        }
    }

    @Test(.timeLimit(.minutes(10)))
    func everyPublicSymbolOfFolioHasADocComment() throws {
        let modules = try #require(builtExecutable(named: "folio")).deletingLastPathComponent().appendingPathComponent("Modules")
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("folio-symbols-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: output) }
        try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
        let extractor = try #require(Self.executable(named: "swift-symbolgraph-extract"), "the toolchain has swift-symbolgraph-extract")
        let triple = try #require(Self.targetTriple())
        let run = try run(
            extractor,
            arguments: [
                "-module-name", "Folio", "-I", modules.path, "-target", triple, "-minimum-access-level", "public",
                "-skip-synthesized-members", "-module-cache-path", output.appendingPathComponent("cache").path,
                "-output-dir", output.path,
            ])
        #expect(run.status == 0, "\(run)")
        var undocumented: [String] = []
        var count = 0
        for file in try FileManager.default.contentsOfDirectory(atPath: output.path) where file.hasSuffix(".symbols.json") {
            let graph = try JSONSerialization.jsonObject(with: Data(contentsOf: output.appendingPathComponent(file))) as? [String: Any]
            for symbol in graph?["symbols"] as? [[String: Any]] ?? [] {
                let path = symbol["pathComponents"] as? [String] ?? []
                // Underscored names are machinery the macros' generated code uses; DocC hides them.
                guard !path.contains(where: { $0.hasPrefix("_") }) else { continue }
                count += 1
                if symbol["docComment"] == nil { undocumented.append(path.joined(separator: ".")) }
            }
        }
        #expect(count > 300, "the symbol graph lists Folio's public API")
        #expect(undocumented.isEmpty, "public symbols without a doc comment: \(undocumented.sorted())")
    }

    static func targetTriple() -> String? {
        guard let swiftc = executable(named: "swiftc"), let run = try? run(swiftc, arguments: ["-print-target-info"]),
            let data = run.stdout.data(using: .utf8),
            let info = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let target = info["target"] as? [String: Any]
        else { return nil }
        return target["triple"] as? String
    }

    /// Builds, with `swift build`, a package that depends on this one by path and holds the README's
    /// example as an executable and each article's code as a library: code that uses API which is
    /// internal or `package` by mistake fails here.
    @Test(.timeLimit(.minutes(30)))
    func theReadmeAndArticleCodeCompileInAPackageThatDependsOnFolio() throws {
        let consumer = FileManager.default.temporaryDirectory.appendingPathComponent("folio-consumer-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: consumer) }
        var targets: [(name: String, isExecutable: Bool, source: String)] = []
        let readme = try #require(try Self.swiftBlocks(in: Self.packageRoot.appendingPathComponent("README.md")).first)
        targets.append(("ReadmeExample", true, readme))
        for article in Self.articles {
            let blocks = try Self.swiftBlocks(in: article)
            guard !blocks.isEmpty else { continue }
            targets.append((article.deletingPathExtension().lastPathComponent + "Article", false, blocks.joined(separator: "\n\n")))
        }
        #expect(targets.count >= 7, "the README and the articles have code to compile")
        for target in targets {
            let directory = consumer.appendingPathComponent("Sources/\(target.name)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try target.source.write(
                to: directory.appendingPathComponent(target.isExecutable ? "main.swift" : "\(target.name).swift"),
                atomically: true, encoding: .utf8)
        }
        // A path dependency's package is named after its directory, as a clone's is.
        let identity = Self.packageRoot.lastPathComponent
        // Each target lists the predicate plugin, as the articles tell a client target to.
        let declarations = targets.map { target in
            "        .\(target.isExecutable ? "executableTarget" : "target")(name: \"\(target.name)\", dependencies: [.product(name: \"Folio\", package: \"\(identity)\")], plugins: [.plugin(name: \"FolioPredicates\", package: \"\(identity)\")]),"
        }
        let manifest = """
            // swift-tools-version: 6.0
            import PackageDescription

            let package = Package(
                name: "FolioConsumer",
                platforms: [.macOS(.v15), .iOS(.v18)],
                dependencies: [.package(path: "\(Self.packageRoot.path)")],
                targets: [
            \(declarations.joined(separator: "\n"))
                ]
            )
            """
        try manifest.write(to: consumer.appendingPathComponent("Package.swift"), atomically: true, encoding: .utf8)
        // Kept between runs, so that a developer's second run builds only what changed.
        let scratch = Self.packageRoot.appendingPathComponent(".build/consumer-check")
        let swift = try #require(Self.swiftExecutable(), "swift is on PATH")
        let run = try run(swift, arguments: ["build", "--package-path", consumer.path, "--scratch-path", scratch.path])
        #expect(run.status == 0, "\(run)")
    }

    static func swiftExecutable() -> URL? {
        executable(named: "swift")
    }

    /// The executable `name` on PATH.
    static func executable(named name: String) -> URL? {
        for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") {
            let candidate = URL(fileURLWithPath: String(directory)).appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return nil
    }
}
