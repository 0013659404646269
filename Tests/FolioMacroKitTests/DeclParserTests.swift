import Testing
@testable import FolioMacroKit

@Suite("Declaration parser")
struct DeclParserTests {
    private func member(_ source: String) throws -> MemberDecl {
        try #require(DeclParser.parseMember(source))
    }

    private func binding(_ source: String) throws -> BindingSyntax {
        let decl = try member(source)
        #expect(decl.bindings.count == 1, "\(decl.bindings)")
        return try #require(decl.bindings.first)
    }

    // MARK: Type declarations

    @Test func typeHeaderWithTriviaAttributesModifiersAndInheritance() throws {
        let source = """

            /// A trip { with "braces" }
            // another comment
            @Model
            @available(macOS 14, *)
            public final class Trip: Base, Codable, Foo<Int, String> where Base: AnyObject {
                var name: String
            }
            """
        let type = try #require(DeclParser.parseTypeDecl(source))
        #expect(type.attributes.map(\.name) == ["Model", "available"])
        #expect(type.attributes[1].arguments == "macOS 14, *")
        #expect(type.modifiers == ["public", "final"])
        #expect(type.keyword == "class")
        #expect(type.name == "Trip")
        #expect(type.nameOffset == offset(of: "Trip:", in: source))
        #expect(type.keywordOffset == offset(of: "class Trip", in: source))
        #expect(type.inheritedTypes == ["Base", "Codable", "Foo<Int, String>"])
        #expect(type.isComplete)
        #expect(decls(type).map(\.keyword) == ["var"])
    }

    @Test func qualifiedAttributeAndGenericClass() throws {
        let type = try #require(DeclParser.parseTypeDecl("@Folio.Model class Box<T: Codable>: Base {}"))
        #expect(type.attributes.first?.name == "Model")
        #expect(type.attributes.first?.qualifiedName == "Folio.Model")
        #expect(type.genericParameters == "<T: Codable>")
        #expect(type.inheritedTypes == ["Base"])
        #expect(type.members.isEmpty)
    }

    @Test func otherTypeKeywords() throws {
        for keyword in ["struct", "enum", "actor", "protocol", "extension"] {
            let type = try #require(DeclParser.parseTypeDecl("@Model \(keyword) Thing { }"))
            #expect(type.keyword == keyword)
            #expect(type.name == "Thing")
        }
        #expect(DeclParser.parseTypeDecl("@Model func thing() {}") == nil)
        #expect(DeclParser.parseTypeDecl("") == nil)
    }

    @Test func truncatedBodyIsIncomplete() throws {
        let type = try #require(DeclParser.parseTypeDecl("class Trip {\n var a: Int\n var b: String"))
        #expect(!type.isComplete)
        #expect(decls(type).flatMap(\.bindings).map(\.name) == ["a", "b"])
    }

    @Test func everyKindOfMemberInOneClass() throws {
        let source = """
            @Model final class Everything {
                // a comment { with a brace
                /* a block " comment */
                @Attribute(
                    .unique,
                    originalName: "old_name"
                )
                var name: String = "a } \\" {"
                var multi = \"\"\"
                    { "not a brace" }
                    \"\"\"
                var raw = #"a "quoted" \\#(1 + 2) }"#
                var nested = "\\(value("\\("inner")"))"
                var dict: Dictionary<String, [Int]> = [:]
                var ids: Set<UUID> = []
                var café: String = "crème"
                var 名前: String
                var `default`: Int = 0
                var computed: Int { get { 1 } set { } }
                var bare: Int { 42 }
                var getterOnly: Int {
                    get { 1 }
                }
                var observed: Int = 0 {
                    willSet { print(newValue) }
                    didSet { print(oldValue) }
                }
                static var shared = 1
                class var kind: String { "k" }
                private(set) var secret: String = ""
                var a = 1, b: Int = 2
                var array = [
                    1,
                    2
                ]
                var chained = foo
                    .bar()
                var handler: () -> Void = { print("}") }
                func method() -> Int { let x = "{"; return 1 }
                init(name: String) { self.name = name; self.名前 = "" }
                convenience init() { self.init(name: "") }
                deinit {}
                struct Inner { var x: Int }
                enum Kind: String, Codable { case a, b }
                final class Helper { }
                typealias ID = UUID
                subscript(i: Int) -> Int { i }
            }
            """
        let type = try #require(DeclParser.parseTypeDecl(source))
        #expect(type.isComplete)
        let members = decls(type)
        #expect(
            members.map(\.keyword) == [
                "var", "var", "var", "var", "var", "var", "var", "var", "var", "var", "var", "var", "var",
                "var", "var", "var", "var", "var", "var", "var", "func", "init", "init", "deinit",
                "struct", "enum", "class", "typealias", "subscript",
            ])
        func find(_ name: String) throws -> (MemberDecl, BindingSyntax) {
            let decl = try #require(members.first { $0.bindings.contains { $0.name == name } }, "no member \(name)")
            return (decl, try #require(decl.bindings.first { $0.name == name }))
        }
        let (nameDecl, name) = try find("name")
        #expect(nameDecl.attribute("Attribute")?.arguments?.contains("originalName: \"old_name\"") == true)
        #expect(nameDecl.attribute("Attribute")?.arguments?.contains(".unique") == true)
        #expect(nameDecl.start == offset(of: "@Attribute(", in: source))
        #expect(nameDecl.keywordOffset == offset(of: "var name", in: source))
        #expect(name.type == "String")
        #expect(name.initializer == "\"a } \\\" {\"")
        #expect(name.nameOffset == offset(of: "name: String", in: source))
        #expect(name.typeOffset == offset(of: "String = \"a", in: source))

        #expect(try find("multi").1.initializer?.hasSuffix("\"\"\"") == true)
        #expect(try find("raw").1.initializer == "#\"a \"quoted\" \\#(1 + 2) }\"#")
        #expect(try find("nested").1.initializer == "\"\\(value(\"\\(\"inner\")\"))\"")
        #expect(try find("dict").1.type == "Dictionary<String, [Int]>")
        #expect(try find("dict").1.initializer == "[:]")
        #expect(try find("ids").1.type == "Set<UUID>")
        #expect(try find("café").1.initializer == "\"crème\"")
        #expect(try find("café").1.nameOffset == offset(of: "café", in: source))
        #expect(try find("名前").1.type == "String")
        #expect(try find("名前").1.initializer == nil)
        #expect(try find("default").1.type == "Int")
        #expect(try find("computed").1.accessorBlock == .computed)
        #expect(try find("bare").1.accessorBlock == .computed)
        #expect(try find("getterOnly").1.accessorBlock == .computed)
        #expect(try find("observed").1.accessorBlock == .observers)
        #expect(try find("observed").1.initializer == "0")
        #expect(try find("shared").0.isStatic)
        #expect(try find("kind").0.isStatic)
        #expect(try find("kind").0.modifiers == ["class"])
        #expect(try find("secret").0.modifiers == ["private(set)"])
        let (pairDecl, _) = try find("a")
        #expect(pairDecl.bindings.map(\.name) == ["a", "b"])
        #expect(pairDecl.bindings.map(\.initializer) == ["1", "2"])
        #expect(pairDecl.bindings.map(\.type) == [nil, "Int"])
        #expect(try find("array").1.initializer == "[\n        1,\n        2\n    ]")
        #expect(try find("chained").1.initializer == "foo\n        .bar()")
        #expect(try find("handler").1.type == "() -> Void")
        #expect(try find("handler").1.initializer == "{ print(\"}\") }")
        #expect(try find("handler").1.accessorBlock == nil)
        // The nested struct's `var x` is not a member of the model.
        #expect(members.flatMap(\.bindings).contains { $0.name == "x" } == false)
    }

    @Test func ifConfigBlocksAreMembersWithTheirConditions() throws {
        let source = """
            class Trip {
                var always: Int = 0
                #if os(Linux) // trailing comment
                var linux: Int = 1
                #if DEBUG
                var linuxDebug: Int = 2
                #endif
                #elseif DEBUG
                var debug: Int = 3
                #else
                var other: Int = 4
                #endif
                init() {}
            }
            """
        let type = try #require(DeclParser.parseTypeDecl(source))
        #expect(type.isComplete)
        #expect(type.members.count == 3)
        guard case .ifConfig(let clauses) = type.members[1] else {
            Issue.record("expected #if")
            return
        }
        #expect(clauses.map(\.directive) == ["#if", "#elseif", "#else"])
        #expect(clauses.map(\.condition) == ["os(Linux)", "DEBUG", nil])
        #expect(clauses[0].members.count == 2)
        let flattened = type.allMembers.map { ($0.decl.bindings.first?.name ?? $0.decl.keyword, $0.conditions.map(\.directive)) }
        #expect(flattened.map(\.0) == ["always", "linux", "linuxDebug", "debug", "other", "init"])
        #expect(flattened.map(\.1) == [[], ["#if"], ["#if", "#if"], ["#elseif"], ["#else"], []])
    }

    @Test func parenthesisedIfConditionContinuesOnTheNextLine() throws {
        let source = "class T {\n    #if (DEBUG\n        && os(Linux)) // why\n    var b = 2\n    #endif\n    #if (unbalanced\n    #endif\n}"
        let type = try #require(DeclParser.parseTypeDecl(source))
        guard case .ifConfig(let clauses) = type.members.first else {
            Issue.record("expected #if")
            return
        }
        #expect(clauses.first?.condition == "(DEBUG\n        && os(Linux))")
        #expect(clauses.first?.members.count == 1)
        #expect(type.isComplete)
    }

    @Test func freestandingIndexAndUniqueDeclarations() throws {
        let source = """
            class Trip {
                #Index<Trip>([\\.name], [\\.start, \\.end])
                #Unique<Trip>(
                    [\\.name]
                )
                var name: String
            }
            """
        let members = decls(DeclParser.parseTypeDecl(source))
        #expect(members.map(\.keyword) == ["#Index", "#Unique", "var"])
        #expect(members[0].macroGenericArgument == "Trip")
        #expect(members[0].macroArguments == "[\\.name], [\\.start, \\.end]")
        #expect(members[1].macroArguments?.trimmingSpaces == "[\\.name]")
        #expect(members[0].keywordOffset == offset(of: "#Index", in: source))
    }

    // MARK: Single members

    @Test func memberSourceWithLeadingTriviaAsTheCompilerSendsIt() throws {
        let source = "\n\n    /// Docs { \" \n    @Attribute(.unique) var name: String = \"x\" // trailing {\n"
        let decl = try member(source)
        #expect(decl.keyword == "var")
        #expect(decl.attributes.map(\.name) == ["Attribute"])
        #expect(decl.attributes[0].arguments == ".unique")
        #expect(decl.bindings.first?.initializer == "\"x\"")
        #expect(decl.start == offset(of: "@Attribute", in: source))
    }

    @Test func genericInitializerWithCommaIsOneBinding() throws {
        let binding = try binding("var scores = Dictionary<String, Int>()")
        #expect(binding.name == "scores")
        #expect(binding.initializer == "Dictionary<String, Int>()")
        let nested = try self.binding("var pairs = Array<(Int, String)>.init()")
        #expect(nested.initializer == "Array<(Int, String)>.init()")
    }

    @Test func comparisonInInitializerStillSplitsBindings() throws {
        let decl = try member("var a = b < c, d = e > f")
        #expect(decl.bindings.map(\.name) == ["a", "d"])
        #expect(decl.bindings.map(\.initializer) == ["b < c", "e > f"])
    }

    @Test func tupleAndWildcardPatternsAreComplex() throws {
        #expect(try binding("var (a, b) = (1, 2)").isComplexPattern)
        #expect(try binding("var _ = 1").isComplexPattern)
        #expect(try binding("var `_` = 1").isComplexPattern == false)
    }

    @Test func modifiersWithArgumentsAndClassModifier() throws {
        let decl = try member("nonisolated(unsafe) public private(set) static var x = 1")
        #expect(decl.modifiers == ["nonisolated(unsafe)", "public", "private(set)", "static"])
        #expect(decl.isStatic)
        let lazyDecl = try member("lazy var x = compute()")
        #expect(lazyDecl.modifiers == ["lazy"])
        let weakDecl = try member("weak var parent: Node?")
        #expect(weakDecl.modifiers == ["weak"])
        #expect(try member("class override func f() {}").modifiers == ["class", "override"])
    }

    @Test func observerBlockWithAttributeBeforeWillSet() throws {
        #expect(try binding("var x: Int = 0 { @MainActor willSet { } }").accessorBlock == .observers)
        #expect(try binding("var x: Int { @MainActor get { 0 } }").accessorBlock == .computed)
    }

    @Test func attributeArgumentsAcrossLinesWithClosingParenOnItsOwnLine() throws {
        let source = "@Relationship(\n    deleteRule: .cascade,\n    inverse: \\Ingredient.recipe\n)\nvar ingredients: [Ingredient] = []"
        let decl = try member(source)
        let attribute = try #require(decl.attribute("Relationship"))
        #expect(attribute.arguments == "\n    deleteRule: .cascade,\n    inverse: \\Ingredient.recipe\n")
        #expect(attribute.end == offset(of: ")\nvar", in: source).map { $0 + 1 })
        #expect(decl.bindings.first?.type == "[Ingredient]")
    }

    @Test func declarationEndsBeforeTheNextDeclarationOnANewLine() throws {
        var parser = DeclParser("var a = 1\n@Transient var b = 2\nvar c = x\n    + y\nfunc f() {}")
        let parsed = parser.parseMemberDecl()
        let first = try #require(parsed)
        #expect(first.bindings.map(\.initializer) == ["1"])
        #expect(first.end == 9)
    }
}
