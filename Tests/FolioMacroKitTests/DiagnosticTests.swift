import Testing
@testable import FolioMacroKit

/// Each mistake is reported once (by the member role), on the line where it is written, with a message
/// that says what to do.
@Suite("Diagnostics")
struct DiagnosticTests {
    /// The class starts on line 10 of its file at byte 200, as if preceded by imports and other code.
    static let baseLine = 10
    static let baseOffset = 200

    /// Expands the member role of `@Model` on `source`; returns the diagnostics.
    private func diagnose(_ source: String, conformanceList: String? = "struct Placeholder: PersistentModel, Observable {}")
        -> [MacroDiagnostic]
    {
        let requests = ModelRequests(
            source: source, fileName: "/src/Models.swift", offset: Self.baseOffset,
            line: Self.baseLine, conformanceList: conformanceList)
        let expander = MacroExpander()
        // The other roles never repeat the member role's errors.
        let parser = DeclParser(source)
        for member in DeclParser.parseTypeDecl(source)?.allMembers ?? [] {
            let text = parser.slice(member.decl.start, member.decl.end)
            #expect(expander.expand(requests.memberAttribute(text)).diagnostics.isEmpty)
            #expect(expander.expand(ModelRequests.persisted(.peer, text)).diagnostics.isEmpty)
            #expect(expander.expand(ModelRequests.persisted(.accessor, text)).diagnostics.isEmpty)
        }
        #expect(expander.expand(requests.extensionRole()).diagnostics.isEmpty)
        return expander.expand(requests.member()).diagnostics
    }

    /// Expects exactly one error, at the first occurrence of `marker` in `source`, whose message
    /// contains each of `fragments`.
    private func expectOneError(
        _ source: String, at marker: String, occurrence: Int = 1, _ fragments: String...,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let diagnostics = diagnose(source)
        guard diagnostics.count == 1, let diagnostic = diagnostics.first else {
            Issue.record("expected one diagnostic, got \(diagnostics.map(\.message))", sourceLocation: sourceLocation)
            return
        }
        expect(diagnostic, in: source, at: marker, occurrence: occurrence, fragments, sourceLocation: sourceLocation)
    }

    private func expect(
        _ diagnostic: MacroDiagnostic, in source: String, at marker: String, occurrence: Int = 1,
        _ fragments: [String], sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(diagnostic.severity == .error, sourceLocation: sourceLocation)
        #expect(diagnostic.fileName == "/src/Models.swift", sourceLocation: sourceLocation)
        guard let local = offset(of: marker, in: source, occurrence: occurrence),
            let markerLine = line(of: marker, in: source, occurrence: occurrence)
        else {
            Issue.record("marker \(marker) not in source", sourceLocation: sourceLocation)
            return
        }
        #expect(diagnostic.offset == Self.baseOffset + local, "\(diagnostic.message)", sourceLocation: sourceLocation)
        #expect(diagnostic.line == Self.baseLine + markerLine - 1, "\(diagnostic.message)", sourceLocation: sourceLocation)
        for fragment in fragments {
            #expect(diagnostic.message.contains(fragment), "\(diagnostic.message)", sourceLocation: sourceLocation)
        }
    }

    // MARK: What @Model is attached to

    @Test(arguments: [("struct", "a struct"), ("enum", "an enum"), ("actor", "an actor"), ("protocol", "a protocol")])
    func modelOnANonClassIsAnErrorWithAFixIt(keyword: String, kind: String) throws {
        let source = "\n\n/// Docs\n@Model\npublic \(keyword) Trip {\n    var name: String = \"\"\n}"
        let diagnostics = diagnose(source)
        #expect(diagnostics.count == 1)
        let diagnostic = try #require(diagnostics.first)
        expect(diagnostic, in: source, at: "\(keyword) Trip", ["'@Model' cannot be applied to \(kind)", "models are classes"])
        let fixIt = try #require(diagnostic.fixIts.first)
        #expect(fixIt.replacement == "class")
        #expect(fixIt.startOffset == diagnostic.offset)
        #expect(fixIt.endOffset == diagnostic.offset + keyword.utf8.count)
    }

    @Test func modelOnAnExtensionSaysWhereItBelongs() throws {
        let source = "\n@Model\nextension Trip {\n}"
        let diagnostics = diagnose(source)
        #expect(diagnostics.count == 1)
        let diagnostic = try #require(diagnostics.first)
        expect(diagnostic, in: source, at: "extension", ["'@Model' cannot be applied to an extension", "attach it to the class declaration"])
        #expect(diagnostic.fixIts.isEmpty)
    }

    @Test func modelOnAGenericClass() {
        expectOneError("@Model\nfinal class Box<T> {\n    init() {}\n}", at: "Box", "does not support generic classes")
    }

    @Test func modelOnSomethingThatIsNotATypeDeclaration() throws {
        let requests = ModelRequests(source: "\nfunc f() {}", fileName: "/src/Models.swift", offset: 50, line: 3)
        let result = MacroExpander().expand(requests.member())
        #expect(result.diagnostics.map(\.message) == ["'@Model' must be attached to a class declaration"])
    }

    @Test func classWithoutAnInitializer() {
        let source = "\n@Model\nfinal class Trip {\n    var name: String = \"\"\n}"
        expectOneError(source, at: "Trip", "requires an initializer", "'Trip'")
    }

    @Test func truncatedClassDoesNotClaimAMissingInitializer() {
        #expect(diagnose("@Model final class Trip {\n    var name: String = \"\"").isEmpty)
    }

    // MARK: Property forms that cannot be persisted

    @Test(arguments: [
        ("() -> Void", "a function type cannot be stored"),
        ("@Sendable (Int) async throws -> String", "a function type cannot be stored"),
        ("((Int) -> Void)?", "a function type cannot be stored"),
        ("(Int, String)", "a tuple is not Codable"),
        ("[(Int, Int)]", "a tuple is not Codable"),
        ("any Codable", "'any Codable' is an existential"),
        ("(any Codable)?", "existential"),
        ("some Codable", "existential"),
        ("Any", "existential"),
        ("AnyObject?", "existential"),
        ("Codable & Hashable", "existential"),
        ("Int.Type", "a metatype cannot be stored"),
        ("[String: () -> Void]", "a function type cannot be stored"),
        ("Set<Array<any Hashable>>", "existential"),
    ])
    func unpersistableTypeIsReportedAtTheType(type: String, reason: String) {
        let source = "@Model\nfinal class Trip {\n    var name: String = \"\"\n    var bad: \(type)\n    init() {}\n}"
        expectOneError(source, at: type, "'bad' cannot be persisted", reason, "@Transient")
    }

    @Test(arguments: ["String", "[Int]", "Int?", "Date", "[String: Int]", "Set<UUID>", "Optional<Data>", "(Int)"])
    func persistableTypesAreAccepted(type: String) {
        let source = "@Model\nfinal class Trip {\n    var value: \(type)\n    init() {}\n}"
        #expect(diagnose(source).isEmpty)
    }

    @Test(arguments: ["String", "[String: Int]", "Int?", "[UUID]", "Set<String>"])
    func relationshipOnAValueTypeIsReportedAtTheAttribute(type: String) {
        let source = "@Model\nfinal class Trip {\n    @Relationship(deleteRule: .cascade)\n    var value: \(type)\n    init() {}\n}"
        expectOneError(source, at: "@Relationship", "@Relationship needs a model type", "'value' is '\(type)'")
    }

    @Test func relationshipOnAModelTypeIsAccepted() {
        let source = "@Model\nfinal class Trip {\n    @Relationship var stops: [Stop] = []\n    @Relationship var owner: Person?\n    init() {}\n}"
        #expect(diagnose(source).isEmpty)
    }

    // MARK: Declaration forms

    @Test func letWithAnInitialValueIsReportedWithWhatToWriteInstead() {
        let source = "@Model\nfinal class Trip {\n    let id = 1\n    init() {}\n}"
        expectOneError(source, at: "let id", "cannot have an initial value", "set it in the initializer", "'var'")
    }

    @Test func letSetByTheInitializerIsPersisted() {
        let source = "@Model\nfinal class Trip {\n    let id: Int\n    init() { id = 1 }\n}"
        #expect(diagnose(source).isEmpty)
    }

    @Test func letRelationshipIsReportedAtTheAttribute() {
        let source = "@Model\nfinal class Trip {\n    @Relationship let owner: Person\n    init(owner: Person) { self.owner = owner }\n}"
        expectOneError(source, at: "@Relationship", "cannot be a 'let'", "declare 'owner' with 'var'")
    }

    @Test func lazyProperty() {
        let source = "@Model\nfinal class Trip {\n    lazy var cache: [Int] = []\n    init() {}\n}"
        expectOneError(source, at: "var cache", "'lazy' property cannot be persisted", "@Transient")
    }

    @Test func transientWithoutDefault() {
        let source = "@Model\nfinal class Trip {\n    @Transient var cache: Int\n    init() { cache = 0 }\n}"
        expectOneError(source, at: "cache: Int", "@Transient property needs a default value", "'cache'")
    }

    @Test func transientOptionalVarNeedsNoDefaultButLetDoes() {
        #expect(diagnose("@Model\nfinal class Trip {\n    @Transient var cache: Int?\n    init() {}\n}").isEmpty)
        let source = "@Model\nfinal class Trip {\n    @Transient let cache: Int?\n    init() { cache = nil }\n}"
        expectOneError(source, at: "cache: Int?", "needs a default value")
    }

    @Test func weakReference() {
        let source = "@Model\nfinal class Trip {\n    weak var owner: Person?\n    init() {}\n}"
        expectOneError(source, at: "weak var", "'weak' reference cannot be persisted", "@Relationship")
    }

    @Test func observersOnAPersistedProperty() {
        let source = "@Model\nfinal class Trip {\n    var count: Int = 0 {\n        didSet { print(count) }\n    }\n    init() {}\n}"
        expectOneError(source, at: "count: Int", "'willSet'/'didSet' are not supported")
    }

    @Test func twoBindingsInOneVar() {
        let source = "@Model\nfinal class Trip {\n    var a = 1, b = 2\n    init() {}\n}"
        expectOneError(source, at: "var a", "one persisted property per 'var'")
    }

    @Test func neitherTypeNorDefault() {
        // `var x` alone is not valid Swift, but the macro still explains itself instead of guessing.
        let source = "@Model\nfinal class Trip {\n    var x\n    init() {}\n}"
        expectOneError(source, at: "x\n", "'x' needs a type annotation or a default value")
    }

    @Test func reservedAndUnderscoreNames() {
        expectOneError(
            "@Model\nfinal class Trip {\n    var modelContext: Int = 0\n    init() {}\n}",
            at: "modelContext", "name @Model gives every model")
        expectOneError(
            "@Model\nfinal class Trip {\n    var _secret: Int = 0\n    init() {}\n}",
            at: "_secret", "cannot start with '_'")
    }

    @Test func attributeAndRelationshipTogether() {
        let source = "@Model\nfinal class Trip {\n    @Attribute(.unique) @Relationship var stop: Stop?\n    init() {}\n}"
        expectOneError(source, at: "@Attribute", "either an @Attribute or a @Relationship")
    }

    @Test func attributeOnAComputedProperty() {
        let source = "@Model\nfinal class Trip {\n    @Attribute(.unique) var name: String { \"x\" }\n    init() {}\n}"
        expectOneError(source, at: "@Attribute", "applies to stored properties")
    }

    @Test func severalProblemsAreAllReportedEachOnItsLine() {
        let source = """
            @Model
            final class Trip {
                let a: Int = 0
                var b: () -> Void
                lazy var c = 1
                @Transient var d: Int
            }
            """
        let diagnostics = diagnose(source)
        // Lines 3–6 of the snippet, then the missing initializer at the class name (line 2); the snippet
        // starts on line 10 of its file.
        #expect(diagnostics.map(\.line) == [12, 13, 14, 15, 11])
    }

    // MARK: #Index and #Unique

    @Test(arguments: ["#Index", "#Unique"])
    func keyPathNamingATransientProperty(macro: String) {
        let source =
            "@Model\nfinal class Trip {\n    \(macro)<Trip>([\\.name], [\\.cache])\n    var name: String = \"\"\n    @Transient var cache: Int = 0\n    init() {}\n}"
        expectOneError(source, at: macro, "names 'cache', which is not persisted", "@Transient or computed")
    }

    @Test(arguments: ["#Index", "#Unique"])
    func keyPathNamingAComputedProperty(macro: String) {
        let source =
            "@Model\nfinal class Trip {\n    var name: String = \"\"\n    var upper: String { name.uppercased() }\n    \(macro)<Trip>([\\.upper])\n    init() {}\n}"
        expectOneError(source, at: macro, "names 'upper', which is not persisted")
    }

    @Test(arguments: ["#Index", "#Unique"])
    func keyPathNamingAnUnknownProperty(macro: String) {
        let source = "@Model\nfinal class Trip {\n    var name: String = \"\"\n\n    \(macro)<Trip>(\n        [\\.nmae]\n    )\n    init() {}\n}"
        expectOneError(source, at: macro, "names 'nmae', which is not a persisted property of 'Trip'")
    }

    @Test func keyPathToAnInheritedPropertyIsAllowedInASubclass() {
        let source = "@Model\nclass Sub: Base {\n    #Index<Sub>([\\.inherited])\n    var own: Int = 0\n    init() { super.init() }\n}"
        #expect(diagnose(source, conformanceList: nil).isEmpty)
    }

    @Test func keyPathWithOptionalChaining() {
        let source = "@Model\nfinal class Trip {\n    var stop: Stop?\n    #Index<Trip>([\\.stop?.name])\n    init() {}\n}"
        expectOneError(source, at: "#Index", "must name properties directly")
    }

    @Test func indexForAnotherType() {
        let source = "@Model\nfinal class Trip {\n    var name: String = \"\"\n    #Index<Stop>([\\.name])\n    init() {}\n}"
        expectOneError(source, at: "#Index", "'#Index<Stop>' inside 'Trip' must name 'Trip'")
    }

    @Test(arguments: ["#Index<Trip>()", "#Index<Trip>([])", "#Index<Trip>(\\.name)", "#Index<Trip>"])
    func indexWithoutKeyPathArrays(declaration: String) {
        let source = "@Model\nfinal class Trip {\n    var name: String = \"\"\n    \(declaration)\n    init() {}\n}"
        expectOneError(source, at: "#Index", "takes arrays of key paths")
    }

    @Test func indexOnAPropertyInsideIfConfigIsAccepted() {
        let source =
            "@Model\nfinal class Trip {\n    #if DEBUG\n    var note: String = \"\"\n    #endif\n    #Index<Trip>([\\.note])\n    init() {}\n}"
        #expect(diagnose(source).isEmpty)
    }

    // MARK: Positions

    @Test func lineCountsNewlinesInTheCompilersLeadingTrivia() {
        // As sent by the compiler: the source starts at the end of the previous line.
        let source = "\n\n// a comment\n/* a\n block */\n@Model\nstruct S {}"
        let diagnostics = diagnose(source)
        #expect(diagnostics.first?.line == Self.baseLine + 6)
    }

    @Test func offsetsAreBytesNotCharacters() {
        let source = "@Model\nfinal class Café {\n    // ☕️ \u{1F680}\n    var naïve: () -> Void\n    init() {}\n}"
        expectOneError(source, at: "() -> Void", "'naïve' cannot be persisted")
    }
}
