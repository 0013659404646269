import Testing
@testable import FolioMacroKit

/// A small deterministic generator (SplitMix64), so that a failing case can be replayed by its seed.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// The plugin never traps: whatever the compiler (or a corrupted pipe) sends, it answers.
@Suite("Robustness")
struct RobustnessTests {
    static let validModel = """

        /// A model { with "everything" }
        @Model
        public final class Trip: Codable {
            #Index<Trip>([\\.name], [\\.dict, \\.name])
            #Unique<Trip>([\\.name])
            @Attribute(
                .unique,
                originalName: "title"
            )
            var name: String = "a { \\" } \\(1)"
            var raw = #"x \\#(y) "# + \"\"\"
                multi { "
                \"\"\"
            var dict: Dictionary<String, [Int]> = [:]
            #if os(Linux)
            var linux: Int = 1
            #elseif DEBUG
            var debug: Int = 2
            #else
            var other = Dictionary<String, Int>()
            #endif
            @Relationship(deleteRule: .cascade, inverse: \\Stop.trip) var stops: [Stop] = []
            @Transient var cache: Int = 0
            var computed: Int { get { 1 } set { } }
            @Transient var observed: Int = 0 { didSet { } }
            /* nested /* comment */ } */
            @Transient var handler: () -> Void = { print("}") }
            var café: String = ""
            var `default`: Int = 0
            struct Inner { var x: Int }
            init(name: String) { self.name = name }
        }
        """

    /// Expands every role for `source`: member, extension (with and without a conformance list),
    /// memberAttribute for each parsed member, and peer and accessor of `@_PersistedProperty`.
    @discardableResult
    static func expandAllRoles(_ source: String, expander: MacroExpander = MacroExpander()) -> Int {
        var produced = 0
        for conformanceList in [Optional("struct Placeholder: PersistentModel, Observable {}"), nil] {
            let requests = ModelRequests(source: source, conformanceList: conformanceList)
            produced += expander.expand(requests.member()).source?.utf8.count ?? 0
            produced += expander.expand(requests.extensionRole()).source?.utf8.count ?? 0
        }
        let requests = ModelRequests(source: source)
        let parser = DeclParser(source)
        var members = DeclParser.parseTypeDecl(source)?.allMembers.map { parser.slice($0.decl.start, $0.decl.end) } ?? []
        members.append(source)  // whatever the text is, as a member too
        for member in members {
            produced += expander.expand(requests.memberAttribute(member)).source?.utf8.count ?? 0
            produced += expander.expand(ModelRequests.persisted(.peer, member)).source?.utf8.count ?? 0
            produced += expander.expand(ModelRequests.persisted(.accessor, member)).source?.utf8.count ?? 0
        }
        return produced
    }

    @Test func validModelExpandsWithoutDiagnostics() {
        let result = MacroExpander().expand(ModelRequests(source: Self.validModel).member())
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics.map(\.message))")
        #expect(Self.expandAllRoles(Self.validModel) > 0)
    }

    @Test func everyTruncationOfAValidModel() {
        let bytes = Array(Self.validModel.utf8)
        let expander = MacroExpander()
        for length in 0...bytes.count {
            // Whole-type roles on the prefix, and the prefix as a member (the text after the last
            // complete member is what a cut-off member looks like).
            let source = String(decoding: bytes[0..<length], as: UTF8.self)
            let requests = ModelRequests(source: source)
            _ = expander.expand(requests.member())
            _ = expander.expand(requests.extensionRole())
            _ = expander.expand(requests.memberAttribute(source))
            _ = expander.expand(ModelRequests.persisted(.peer, source))
            _ = expander.expand(ModelRequests.persisted(.accessor, source))
        }
    }

    @Test(arguments: [
        "", " ", "\n\n", "@Model", "@", "@Model class", "@Model class {", "@Model class Trip {", "class Trip }",
        "class Trip {{{{{", "class Trip { }}}}}", "class Trip { var x = \"unterminated }",
        "class Trip { var x = \"\"\" never closed }", "class Trip { /* unterminated { }", "class Trip { /* /* */ }",
        "class Trip { var x = #\"raw }", "class Trip { var x = \"\\(\"\\(\" }", "class Trip { var x: [Int }",
        "class Trip { var x: Dictionary<String, }", "class Trip { var x: (Int, }", "class Trip<T { }",
        "class Trip: { }", "class Trip: Base, { }", "class Trip { #if }", "class Trip { #if DEBUG var x = 1 }",
        "class Trip { #else #endif #elseif }", "class Trip { #endif var x = 1 }", "class Trip { #Index<Trip>( }",
        "class Trip { #Index<Trip>([\\.]) init() {} }", "class Trip { #Index<Trip>([\\]) init() {} }",
        "class Trip { #Unique<>([\\.x]) init() {} }", "class Trip { @ }", "class Trip { @Attribute( var x = 1 }",
        "class Trip { var }", "class Trip { var : Int }", "class Trip { var x: = 1 }", "class Trip { var x = }",
        "class Trip { var (a, b): (Int, Int) = (1, 2)\n init() {} }", "class Trip { var x, }", "class Trip { let }",
        "class Trip { var x: Int { }", "class Trip { var x: Int = 1 { didSet }", "class Trip { `", "class Trip { var `x",
        "class Trip { var x: some }", "class Trip { var x: any }", "class Trip { var x: ->  }", "class Trip { var x: .Type }",
        "class Trip { var x: @ }", "class Trip { var x: Int?? ! ? }", "class Trip { var x: [: ] }",
        "\u{0}\u{1}\u{7F}", "\u{FEFF}class Trip { init() {} }", "class 🚀 { var 🚀: Int = 0\n init() {} }",
        "class Trip { var x = #/ { /# }", "class Trip { var x = #/ unterminated", "class Trip { ; ; ; }",
    ])
    func malformedSourcesNeverTrap(source: String) {
        Self.expandAllRoles(source)
        _ = TypeSyntax.parse(source)
        _ = ArgumentList.split(source)
        _ = ArgumentList.keyPathGroups(source)
    }

    /// Nesting far beyond anything the compiler accepts must not exhaust the stack.
    @Test(arguments: [
        ("closing braces", String(repeating: "}", count: 1000)),
        ("opening braces", String(repeating: "{", count: 1000)),
        ("quotes", String(repeating: "\"", count: 999)),
        ("#if at top level", String(repeating: "#if X\n", count: 300)),
        ("#if in a class", "@Model final class T {\n" + String(repeating: "#if X\n", count: 5000) + "var x: Int = 0\n}"),
        (
            "#if and #endif in a class",
            "@Model final class T {\n" + String(repeating: "#if X\n", count: 2000) + "var x: Int = 0\n" + String(repeating: "#endif\n", count: 2000)
                + "init() {}\n}"
        ),
        ("array types", "@Model final class T { var x: " + String(repeating: "[", count: 5000) + "Int\n init() {} }"),
        ("generic types", "@Model final class T { var x: " + String(repeating: "Optional<", count: 5000) + "Int\n init() {} }"),
        ("tuple types", "@Model final class T { var x: " + String(repeating: "(", count: 5000) + "Int\n init() {} }"),
        ("function types", "@Model final class T { var x: " + String(repeating: "(Int) -> ", count: 5000) + "Int\n init() {} }"),
        ("any types", "@Model final class T { var x: " + String(repeating: "any ", count: 5000) + "P\n init() {} }"),
        ("interpolations", "@Model final class T { var x = \"" + String(repeating: "\\(\"", count: 5000) + " }"),
        ("block comments", "@Model final class T { var x = " + String(repeating: "/*", count: 5000) + " }"),
        ("attributes", "@Model final class T { " + String(repeating: "@A(", count: 5000) + " var x = 1 }"),
        ("key path arrays", "@Model final class T { var x = 1\n #Index<T>(" + String(repeating: "[", count: 5000) + "\\.x) }"),
    ])
    func deepNestingNeverExhaustsTheStack(shape: String, source: String) {
        Self.expandAllRoles(source)
        _ = TypeSyntax.parse(source).unpersistableReason
        _ = TypeSyntax.parse(source).isCertainlyNotModel
        _ = ArgumentList.keyPathGroups(source)
    }

    @Test func randomByteMutationsOfAValidModel() {
        var random = SeededGenerator(seed: 0xF0110)
        let original = Array(Self.validModel.utf8)
        let interesting = Array("{}()[]<>\"'#\\/*@:;,=.?!`\n \u{0}".utf8) + [0xC3, 0xA9, 0xF0, 0x9F, 0x80]
        let expander = MacroExpander()
        for _ in 0..<3000 {
            var bytes = original
            for _ in 0..<Int.random(in: 1...8, using: &random) {
                let position = Int.random(in: 0..<bytes.count, using: &random)
                switch Int.random(in: 0..<4, using: &random) {
                case 0: bytes[position] = interesting.randomElement(using: &random)!
                case 1: bytes.remove(at: position)
                case 2: bytes.insert(interesting.randomElement(using: &random)!, at: position)
                default: bytes[position] = UInt8.random(in: 0...255, using: &random)
                }
                if bytes.isEmpty { bytes = [0x20] }
            }
            let source = String(decoding: bytes, as: UTF8.self)
            // A cheap subset per case: the roles that parse the whole type, and the type annotations.
            let requests = ModelRequests(source: source, conformanceList: Bool.random(using: &random) ? nil : "struct P: PersistentModel {}")
            _ = expander.expand(requests.member())
            _ = expander.expand(requests.extensionRole())
            _ = expander.expand(requests.memberAttribute(source))
            _ = expander.expand(ModelRequests.persisted(.accessor, source))
            _ = TypeSyntax.parse(source).unpersistableReason
        }
    }

    @Test func randomTokenSoupFromSwiftPunctuation() {
        var random = SeededGenerator(seed: 42)
        let pieces = [
            "@Model", "class", "T", "{", "}", "var", "let", "x", ":", "Int", "=", "1", "\"s\"", "#if", "#endif",
            "#else", "\n", "(", ")", "[", "]", "<", ">", ",", "#Index<T>", "\\.", "@Transient", "init()",
            "{ get }", "didSet", "/*", "*/", "//", "\"\"\"", "#\"", "\\(", "->", "?", "static", "lazy", "`",
        ]
        let expander = MacroExpander()
        for _ in 0..<2000 {
            let count = Int.random(in: 0...40, using: &random)
            let source = (0..<count).map { _ in pieces.randomElement(using: &random)! }.joined(separator: " ")
            _ = expander.expand(ModelRequests(source: source).member())
            _ = expander.expand(ModelRequests.persisted(.peer, source))
        }
    }

    // MARK: Messages

    /// Parses a reply and returns its `expandMacroResult` body.
    static func expansionBody(_ reply: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) -> PluginJSON? {
        guard let json = try? PluginJSON.parse(reply) else {
            Issue.record("reply is not JSON: \(String(decoding: reply, as: UTF8.self))", sourceLocation: sourceLocation)
            return nil
        }
        guard let body = json["expandMacroResult"] else {
            Issue.record("reply has no expandMacroResult: \(String(decoding: reply, as: UTF8.self))", sourceLocation: sourceLocation)
            return nil
        }
        return body
    }

    @Test(arguments: [
        "", "{", "}", "[]", "null", "42", "\"getCapability\"", "{}", "{\"unknownMessage\":{}}", "{\"getCapability\":",
        "{\"expandAttachedMacro\":{}}", "{\"expandAttachedMacro\":null}", "{\"expandAttachedMacro\":[1,2]}",
        "{\"expandFreestandingMacro\":{\"syntax\":5}}", "{\"expandAttachedMacro\":{\"attributeSyntax\":{\"source\":7}}}",
        "{\"expandAttachedMacro\":{\"attributeSyntax\":{\"source\":\"@Model\"},\"macro\":{\"typeName\":\"ModelMacro\"},\"macroRole\":\"member\"}}",
        "{\"expandAttachedMacro\":{\"attributeSyntax\":{\"source\":\"@Model\"},\"macro\":{\"typeName\":\"ModelMacro\"},\"macroRole\":\"bogus\",\"declSyntax\":{\"source\":\"class T {}\"}}}",
        "{\"expandAttachedMacro\":{\"attributeSyntax\":{\"source\":\"@Model\",\"location\":\"nowhere\"},\"macro\":5,\"macroRole\":7,\"declSyntax\":{\"source\":\"class T {}\",\"location\":{\"offset\":\"x\",\"line\":-4}}}}",
        "{\"loadPluginLibrary\":{\"libraryPath\":\"/x\",\"moduleName\":\"M\"}}",
        "{\"a\":1}garbage", "{\"a\":\"\\ud800\"}", "{\"a\":\"\\udc00\"}", "{\"a\":\"\\u12\"}", "{\"a\":\"\\x\"}",
        "{\"a\":1e99999}", "{\"a\":-}", "{\"a\":tru}", "{\"a\":nul}", "{\"a\":[1,]}", "{\"a\":{\"b\"}}",
        "\u{0}", "\u{FFFD}", String(repeating: "[", count: 100_000), String(repeating: "{\"a\":", count: 100_000),
    ])
    func garbageMessagesGetAnErrorReply(message: String) {
        let reply = MacroExpander().handle(message: Array(message.utf8))
        guard let body = Self.expansionBody(reply) else { return }
        #expect(body["diagnostics"]?.array != nil)
    }

    @Test func randomBytesAsMessages() {
        var random = SeededGenerator(seed: 7)
        let expander = MacroExpander()
        let valid = Array(WireTests.capturedMemberMessage.utf8)
        for index in 0..<2000 {
            var bytes: [UInt8]
            if index % 2 == 0 {
                bytes = (0..<Int.random(in: 0...64, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
            } else {
                bytes = valid
                for _ in 0..<Int.random(in: 1...6, using: &random) {
                    bytes[Int.random(in: 0..<bytes.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
                }
            }
            let reply = expander.handle(message: bytes)
            let json = try? PluginJSON.parse(reply)
            #expect(json?["expandMacroResult"] != nil || json?["getCapabilityResult"] != nil)
        }
    }

    @Test func extremeLocationsInAMessageDoNotOverflow() throws {
        let body = String(repeating: "    var a: Int\n", count: 200)
        // The error (`let`) sits more than 1023 bytes and lines into the snippet.
        let declaration = PluginJSON.string("@Model\nfinal class S {\n" + body + "    let z: Int = 0\n    init() {}\n}")
        for number in [9_223_372_036_854_774_784.0, -9_223_372_036_854_774_784.0, 1e300, -1, 0] {
            let location = PluginJSON.object([
                ("fileName", .string("/f.swift")), ("offset", .number(number)),
                ("line", .number(number)), ("column", .number(number)),
            ])
            let message = PluginJSON.object([
                (
                    "expandAttachedMacro",
                    .object([
                        ("attributeSyntax", .object([("kind", .string("attribute")), ("source", .string("@Model")), ("location", location)])),
                        ("declSyntax", .object([("kind", .string("declaration")), ("source", declaration), ("location", location)])),
                        (
                            "macro",
                            .object([("moduleName", .string("FolioMacros")), ("name", .string("Model")), ("typeName", .string("ModelMacro"))])
                        ),
                        ("macroRole", .string("member")),
                    ])
                )
            ])
            let reply = MacroExpander().handle(message: message.serialized())
            let result = try #require(Self.expansionBody(reply))
            #expect(result["diagnostics"]?.array?.isEmpty == false)
        }
    }
}
