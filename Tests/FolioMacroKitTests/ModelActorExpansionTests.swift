import Testing
@testable import FolioMacroKit

/// `@ModelActor`, expanded in-process the way the compiler asks for it: the members SwiftData's macro
/// adds, the conformance, what the actor's own declarations leave out, and one error on anything that
/// is not an actor.
@Suite("ModelActor expansion")
struct ModelActorExpansionTests {
    let expander = MacroExpander()

    static let importer = """

        /// Imports trips.
        @ModelActor
        actor ImportActor {
            var imported = 0
            func run() {}
        }
        """

    private func request(
        _ role: MacroRole, _ source: String, conformanceList: String? = "struct Placeholder: ModelActor {}",
        extendedType: String = "ImportActor"
    ) -> ExpansionRequest {
        ExpansionRequest(
            typeName: "ModelActorMacro", role: role,
            attribute: SourceSnippet(source: "@ModelActor", fileName: "/src/Actors.swift", offset: 100, line: 5),
            declaration: SourceSnippet(source: source, fileName: "/src/Actors.swift", offset: 100, line: 5),
            extendedType: extendedType, conformanceList: conformanceList)
    }

    static let generatedInit = """
        init(modelContainer: Folio.ModelContainer) {
            let modelContext = Folio.ModelContext(modelContainer)
            self.modelExecutor = Folio.DefaultSerialModelExecutor(modelContext: modelContext)
            self.modelContainer = modelContainer
        }
        """

    // MARK: member

    @Test func theMemberRoleAddsTheExecutorTheContainerAndInitModelContainer() {
        let result = expander.expand(request(.member, Self.importer))
        #expect(result.diagnostics.isEmpty)
        expectSource(
            result.source,
            """
            nonisolated let modelExecutor: any Folio.ModelExecutor

            nonisolated let modelContainer: Folio.ModelContainer

            \(Self.generatedInit)
            """)
    }

    @Test(arguments: [
        ("public actor", "public "), ("open actor", "public "), ("package actor", "package "),
        ("private actor", ""), ("final actor", ""),
    ])
    func theGeneratedMembersHaveTheActorsAccess(declaration: String, access: String) {
        let result = expander.expand(request(.member, "@ModelActor \(declaration) A {}"))
        expectContains(
            result.source, "\(access)nonisolated let modelExecutor: any Folio.ModelExecutor",
            "\(access)nonisolated let modelContainer: Folio.ModelContainer",
            "\(access)init(modelContainer: Folio.ModelContainer) {")
    }

    @Test(arguments: [
        "init(modelContainer: ModelContainer) { fatalError() }",
        "public init(modelContainer c: ModelContainer) { fatalError() }",
        "#if DEBUG\n    init(modelContainer: Folio.ModelContainer) { fatalError() }\n    #endif",
        "let batchSize: Int",
        "var names: [String]",
        "let note: String?",
        "var a = 0, b: Int",
    ])
    func theGeneratedInitIsLeftOutWhenTheActorHasItOrCouldNotUseIt(member: String) {
        let source = "@ModelActor\nactor A {\n    \(member)\n}"
        let generated = expander.expand(request(.member, source)).source ?? ""
        #expect(!generated.contains("init("), "\(member): \(generated)")
        #expect(generated.contains("nonisolated let modelExecutor"))
        #expect(generated.contains("nonisolated let modelContainer"))
    }

    @Test(arguments: [
        "var note: String?",
        "var handler: (() -> Void)!",
        "var count = 0",
        "let limit: Int = 10",
        "static let shared: Int",
        "lazy var cache: [Int] = []",
        "var display: String { \"x\" }",
        "var observed: Int = 0 { didSet {} }",
        "init(other: Int) { fatalError() }",
        "init(container: ModelContainer) { fatalError() }",
        "init(_ modelContainer: ModelContainer) { fatalError() }",
    ])
    func membersThatNeedNoInitializerKeepTheGeneratedOne(member: String) {
        let source = "@ModelActor\nactor A {\n    \(member)\n}"
        expectContains(expander.expand(request(.member, source)).source, Self.generatedInit)
    }

    @Test func propertiesTheActorDeclaresAreNotAddedAgain() {
        let source = """
            @ModelActor
            actor A {
                nonisolated let modelContainer: ModelContainer
                nonisolated let modelExecutor: any ModelExecutor
            }
            """
        let generated = expander.expand(request(.member, source)).source
        #expect(generated?.contains("nonisolated let") == false)
        expectSource(generated, Self.generatedInit)
    }

    @Test(arguments: [
        ("init(modelContainer: ModelContainer)", ["modelContainer"]),
        ("public convenience init?<T>(modelContainer c: ModelContainer, t: T)", ["modelContainer", "t"]),
        ("init(_ x: Int, handler: @escaping (Int) -> Void = { _ in }, values: [Int] = [1, 2])", ["_", "handler", "values"]),
        ("init()", []),
    ])
    func initializerLabelsAreReadFromTheSignature(text: String, labels: [String]) {
        #expect(ModelActorMacro.parameterLabels(ofInitializer: text + " {}") == labels)
    }

    // MARK: extension

    @Test func theExtensionRoleAddsTheModelActorConformance() {
        expectSource(expander.expand(request(.extension, Self.importer)).source, "extension ImportActor: Folio.ModelActor {\n}")
    }

    @Test func aNestedActorIsExtendedByItsQualifiedName() {
        let result = expander.expand(request(.extension, Self.importer, extendedType: "Outer.ImportActor"))
        expectSource(result.source, "extension Outer.ImportActor: Folio.ModelActor {\n}")
    }

    @Test func anActorThatConformsAlreadyGetsNoExtension() {
        #expect(expander.expand(request(.extension, Self.importer, conformanceList: nil)).source == "")
    }

    // MARK: Diagnostics

    @Test(arguments: [("class", "a class"), ("struct", "a struct"), ("enum", "an enum")])
    func aNonActorGetsOneErrorSayingToWriteActor(keyword: String, kind: String) throws {
        let source = "\n@ModelActor\nfinal \(keyword) Importer {\n}"
        let member = expander.expand(request(.member, source))
        #expect(member.source == "")
        let diagnostic = try #require(member.diagnostics.first)
        #expect(member.diagnostics.count == 1)
        #expect(diagnostic.severity == .error)
        #expect(diagnostic.message.contains("'@ModelActor' cannot be applied to \(kind)"), "\(diagnostic.message)")
        #expect(diagnostic.message.contains("write 'actor Importer'"), "\(diagnostic.message)")
        let keywordOffset = try #require(offset(of: keyword, in: source))
        #expect(diagnostic.offset == 100 + keywordOffset)
        #expect(diagnostic.line == 7)
        #expect(diagnostic.fixIts.map(\.replacement) == ["actor"])
        #expect(diagnostic.fixIts.first?.startOffset == 100 + keywordOffset)
        #expect(diagnostic.fixIts.first?.endOffset == 100 + keywordOffset + keyword.utf8.count)
        // The other role adds nothing, so that the error is the only one.
        let extensionRole = expander.expand(request(.extension, source))
        #expect(extensionRole.source == "")
        #expect(extensionRole.diagnostics.isEmpty)
    }

    @Test(arguments: [
        ("@ModelActor protocol Importer {}", "cannot be applied to a protocol"),
        ("@ModelActor extension Importer {}", "cannot be applied to an extension"),
        ("@ModelActor distributed actor Importer {}", "cannot be applied to a distributed actor"),
    ])
    func otherDeclarationsGetAnErrorNamingTheActorToWrite(source: String, fragment: String) throws {
        let member = expander.expand(request(.member, source))
        let diagnostic = try #require(member.diagnostics.first)
        #expect(member.diagnostics.count == 1)
        #expect(diagnostic.message.contains(fragment), "\(diagnostic.message)")
        #expect(diagnostic.message.contains("actor Importer"), "\(diagnostic.message)")
        #expect(expander.expand(request(.extension, source)).source == "")
    }

    @Test func somethingThatIsNoTypeDeclarationGetsAnError() {
        let member = expander.expand(request(.member, "@ModelActor func f() {}"))
        #expect(member.diagnostics.count == 1)
        #expect(member.diagnostics.first?.message.contains("must be attached to an actor declaration") == true)
    }
}
