import Testing
@testable import FolioMacroKit

@Suite("Wire protocol")
struct WireTests {
    /// An `expandAttachedMacro` message for the member role, written by hand in the shape the 6.3.1
    /// compiler sends (keys sorted, absent optionals omitted, non-ASCII raw, `staticBuildConfiguration`
    /// as JSON text inside a string).
    static let capturedMemberMessage = #"""
        {"expandAttachedMacro":{"attributeSyntax":{"kind":"attribute","location":{"column":13,"fileID":"App/Models.swift","fileName":"/work/App/Sources/App/Models.swift","line":1,"offset":12},"source":"\n\n@Model"},"conformanceListSyntax":{"kind":"declaration","location":{"column":0,"fileID":"","fileName":"","line":0,"offset":0},"source":"struct Placeholder: PersistentModel {}"},"declSyntax":{"kind":"declaration","location":{"column":13,"fileID":"App/Models.swift","fileName":"/work/App/Sources/App/Models.swift","line":1,"offset":12},"source":"\n\n@Model\npublic final class Trip {\n    /// Where to — «Zürich» \"quoted\" \\ backslash\n    var name: String = \"\u00e9\"\n    let id: Int = 0\n    init() {}\n}"},"discriminator":"$s3App4Trip5ModelfMm_","lexicalContext":[],"macro":{"moduleName":"FolioMacros","name":"Model","typeName":"ModelMacro"},"macroRole":"member","staticBuildConfiguration":"{\"attributes\":[],\"compilerVersion\":{\"components\":[6,3,1]},\"customConditions\":[\"DEBUG\",\"SWIFT_PACKAGE\"],\"endianness\":\"little\",\"targetOSs\":[\"Linux\"],\"targetPointerBitWidth\":64}"}}
        """#

    // MARK: PluginJSON

    @Test func parsesEveryValueKind() throws {
        let json = try PluginJSON.parse(Array(#" { "a" : [ 1, -2.5, 3e2, true, false, null, "s", {} , [] ] } "#.utf8))
        #expect(
            json
                == .object([
                    (
                        "a",
                        .array([
                            .number(1), .number(-2.5), .number(300), .bool(true), .bool(false), .null,
                            .string("s"), .object([]), .array([]),
                        ])
                    )
                ]))
        #expect(json["a"]?.array?.first?.int == 1)
        #expect(json["a"]?.array?[1].int == nil)
        #expect(json["missing"] == nil)
    }

    @Test func decodesEscapesUnicodeAndSurrogatePairs() throws {
        let text = #"["\"\\\/\b\f\n\r\t", "\u00e9\u4e2d", "\ud83d\ude80", "raw é 中 🚀", "\u0000"]"#
        let json = try PluginJSON.parse(Array(text.utf8))
        #expect(json.array?.map(\.string) == ["\"\\/\u{8}\u{C}\n\r\t", "é中", "🚀", "raw é 中 🚀", "\u{0}"])
    }

    @Test(arguments: [
        #""\ud83d""#, #""\ud83dx""#, #""\ud83d\u0041""#, #""\ude80""#, #""\u12g4""#, #""abc"#, #""\"#,
        "\"a\nb", "01x", "[1 2]", "{\"a\" 1}", "{1:2}", "-", "+1", "tru", "[", "{\"a\":}",
    ])
    func rejectsInvalidJSON(text: String) {
        #expect(throws: PluginJSONError.self) { try PluginJSON.parse(Array(text.utf8)) }
    }

    @Test func nestingIsLimitedInsteadOfOverflowingTheStack() {
        #expect(throws: PluginJSONError.self) {
            try PluginJSON.parse(Array((String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)).utf8))
        }
        #expect((try? PluginJSON.parse(Array((String(repeating: "[", count: 100) + String(repeating: "]", count: 100)).utf8))) != nil)
    }

    @Test func serializesCompactlyWithRawUTF8AndNoSurrogateEscapes() {
        let value = PluginJSON.object([
            ("s", .string("q\"b\\n\nr\rt\t\u{1}\u{1F} é 中 🚀 /")), ("i", .number(42)), ("d", .number(1.5)), ("neg", .number(-3)),
            ("b", .bool(false)), ("n", .null), ("a", .array([])), ("o", .object([])),
        ])
        let text = String(decoding: value.serialized(), as: UTF8.self)
        #expect(text == #"{"s":"q\"b\\n\nr\rt\t\u0001\u001f é 中 🚀 /","i":42,"d":1.5,"neg":-3,"b":false,"n":null,"a":[],"o":{}}"#)
        #expect(!text.contains("\\ud"))
    }

    @Test(arguments: [
        "", "plain", "\"quotes\" and \\backslashes\\", "\u{0}\u{1}\u{7F}\u{80}", "🚀👩‍👩‍👧 é\u{301}",
        "\u{FEFF}\u{2028}\u{2029}", String(repeating: "long ", count: 2000),
    ])
    func stringRoundTrip(text: String) throws {
        let value = PluginJSON.array([.string(text), .object([(text, .string(text))])])
        #expect(try PluginJSON.parse(value.serialized()) == value)
    }

    @Test func numbersRoundTrip() throws {
        for number in [0, -0.0, 1, -1, 0.1, 1e-7, 123_456_789, 9_007_199_254_740_992, -2.5e10] {
            #expect(try PluginJSON.parse(PluginJSON.number(number).serialized()) == .number(number))
        }
    }

    // MARK: Decoding host messages

    @Test func decodesACapturedExpandAttachedMacroMessage() throws {
        guard case .expand(let request) = try PluginMessageCodec.decode(Array(Self.capturedMemberMessage.utf8)) else {
            Issue.record("not an expansion")
            return
        }
        #expect(request.typeName == "ModelMacro")
        #expect(request.role == .member)
        #expect(request.attribute.source == "\n\n@Model")
        #expect(request.attribute.offset == 12)
        #expect(request.attribute.line == 1)
        #expect(request.attribute.fileName == "/work/App/Sources/App/Models.swift")
        let declaration = try #require(request.declaration)
        #expect(declaration.source.hasPrefix("\n\n@Model\npublic final class Trip {\n    /// Where to — «Zürich» \"quoted\" \\ backslash\n"))
        #expect(declaration.source.contains("var name: String = \"é\""))
        #expect(request.conformanceList == "struct Placeholder: PersistentModel {}")
        #expect(request.parentDeclaration == nil)
        #expect(request.extendedType == nil)
        #expect(request.lexicalContext.isEmpty)
    }

    @Test func decodesMemberAttributeExtensionAndFreestandingShapes() throws {
        let location = #"{"column":5,"fileID":"App/M.swift","fileName":"/M.swift","line":4,"offset":40}"#
        let empty = #"{"column":0,"fileID":"","fileName":"","line":0,"offset":0}"#
        let memberAttribute =
            #"{"expandAttachedMacro":{"attributeSyntax":{"kind":"attribute","location":\#(location),"source":"@Model"},"declSyntax":{"kind":"declaration","location":\#(location),"source":"\n    var x = 1"},"discriminator":"$s1A1TC1x5ModelfMr_","lexicalContext":[{"kind":"declaration","location":\#(empty),"source":"@Model class T {}"}],"macro":{"moduleName":"FolioMacros","name":"Model","typeName":"ModelMacro"},"macroRole":"memberAttribute","parentDeclSyntax":{"kind":"declaration","location":\#(location),"source":"@Model class T { var x = 1 }"},"staticBuildConfiguration":"{}"}}"#
        guard case .expand(let request) = try PluginMessageCodec.decode(Array(memberAttribute.utf8)) else {
            Issue.record("not an expansion"); return
        }
        #expect(request.role == .memberAttribute)
        #expect(request.parentDeclaration?.source == "@Model class T { var x = 1 }")
        #expect(request.lexicalContext == ["@Model class T {}"])
        #expect(request.declaration?.line == 4)

        let extensionMessage =
            #"{"expandAttachedMacro":{"attributeSyntax":{"kind":"attribute","location":\#(location),"source":"@Model"},"declSyntax":{"kind":"declaration","location":\#(location),"source":"@Model class T {}"},"discriminator":"$s1A1T5ModelfMe_","extendedTypeSyntax":{"kind":"type","location":\#(empty),"source":"Outer.T"},"lexicalContext":[],"macro":{"moduleName":"FolioMacros","name":"Model","typeName":"ModelMacro"},"macroRole":"extension"}}"#
        guard case .expand(let ext) = try PluginMessageCodec.decode(Array(extensionMessage.utf8)) else {
            Issue.record("not an expansion"); return
        }
        #expect(ext.role == .extension)
        #expect(ext.extendedType == "Outer.T")
        #expect(ext.conformanceList == nil)

        let freestanding =
            ##"{"expandFreestandingMacro":{"discriminator":"$s1A1T5IndexfMf_","lexicalContext":[],"macro":{"moduleName":"FolioMacros","name":"Index","typeName":"IndexMacro"},"macroRole":"declaration","syntax":{"kind":"declaration","location":\##(location),"source":"#Index<T>([\\.x])"}}}"##
        guard case .expand(let index) = try PluginMessageCodec.decode(Array(freestanding.utf8)) else {
            Issue.record("not an expansion"); return
        }
        #expect(index.typeName == "IndexMacro")
        #expect(index.role == .declaration)
        #expect(index.attribute.source == "#Index<T>([\\.x])")
        let legacy = freestanding.replacingOccurrences("\"declaration\",\"syntax\"", "\"freeStandingDeclaration\",\"syntax\"")
        guard case .expand(let old) = try PluginMessageCodec.decode(Array(legacy.utf8)) else {
            Issue.record("not an expansion"); return
        }
        #expect(old.role == .declaration)
    }

    @Test func decodesCapabilityAndUnknownMessages() throws {
        guard case .getCapability = try PluginMessageCodec.decode(Array(#"{"getCapability":{"capability":{"protocolVersion":7}}}"#.utf8)) else {
            Issue.record("not getCapability"); return
        }
        guard case .unknown(let name) = try PluginMessageCodec.decode(Array(#"{"loadPluginLibrary":{"libraryPath":"/x","moduleName":"M"}}"#.utf8))
        else {
            Issue.record("not unknown"); return
        }
        #expect(name == "loadPluginLibrary")
    }

    // MARK: Replies

    @Test func capabilityReply() {
        let reply = MacroExpander().handle(message: Array(#"{"getCapability":{"capability":{"protocolVersion":7}}}"#.utf8))
        #expect(String(decoding: reply, as: UTF8.self) == #"{"getCapabilityResult":{"capability":{"protocolVersion":7}}}"#)
    }

    @Test func replyToTheCapturedMessageHasSourceAndAFullDiagnostic() throws {
        let reply = MacroExpander().handle(message: Array(Self.capturedMemberMessage.utf8))
        let body = try #require(RobustnessTests.expansionBody(reply))
        #expect(body["expandedSource"]?.string?.contains("persistentBackingData") == true)
        let diagnostics = try #require(body["diagnostics"]?.array)
        #expect(diagnostics.count == 1)
        let diagnostic = try #require(diagnostics.first)
        guard case .object(let members) = diagnostic else { Issue.record("not an object"); return }
        #expect(members.map(\.0).sorted() == ["fixIts", "highlights", "message", "notes", "position", "severity"])
        #expect(diagnostic["severity"]?.string == "error")
        #expect(diagnostic["message"]?.string?.contains("a persisted 'let' cannot have an initial value") == true)
        #expect(diagnostic["position"]?["fileName"]?.string == "/work/App/Sources/App/Models.swift")
        // `let` is on line 4 of the file: 12 bytes of the file before the snippet, then the snippet's own bytes.
        let source = try #require(body["expandedSource"]).string
        #expect(source != nil)
        let snippet =
            "\n\n@Model\npublic final class Trip {\n    /// Where to — «Zürich» \"quoted\" \\ backslash\n    var name: String = \"é\"\n    let id: Int = 0\n    init() {}\n}"
        #expect(diagnostic["position"]?["offset"]?.int == 12 + (offset(of: "let id", in: snippet) ?? -1000))
        #expect(diagnostic["highlights"]?.array?.isEmpty == true)
        #expect(diagnostic["notes"]?.array?.isEmpty == true)
    }

    @Test func replyWithoutSourceIsNullAndWithSourceIsAString() throws {
        let none = String(decoding: PluginMessageCodec.expansionReply(ExpansionResult(source: nil)), as: UTF8.self)
        #expect(none == #"{"expandMacroResult":{"expandedSource":null,"diagnostics":[]}}"#)
        let some = String(decoding: PluginMessageCodec.expansionReply(ExpansionResult(source: "var x = \"🚀\"\n")), as: UTF8.self)
        #expect(some == #"{"expandMacroResult":{"expandedSource":"var x = \"🚀\"\n","diagnostics":[]}}"#)
        let empty = String(decoding: PluginMessageCodec.expansionReply(ExpansionResult(source: "")), as: UTF8.self)
        #expect(empty == #"{"expandMacroResult":{"expandedSource":"","diagnostics":[]}}"#)
    }

    @Test func fixItReplyShape() throws {
        let diagnostic = MacroDiagnostic(
            message: "m", fileName: "/f.swift", offset: 7, line: 2,
            fixIts: [
                .init(message: "change 'struct' to 'class'", startOffset: 7, endOffset: 13, replacement: "class")
            ])
        let reply = PluginMessageCodec.expansionReply(ExpansionResult(source: "", diagnostics: [diagnostic]))
        let fixIt = try #require(PluginJSON.parse(reply)["expandMacroResult"]?["diagnostics"]?.array?.first?["fixIts"]?.array?.first)
        #expect(fixIt["message"]?.string == "change 'struct' to 'class'")
        let change = try #require(fixIt["changes"]?.array?.first)
        #expect(change["newText"]?.string == "class")
        #expect(change["range"]?["fileName"]?.string == "/f.swift")
        #expect(change["range"]?["startOffset"]?.int == 7)
        #expect(change["range"]?["endOffset"]?.int == 13)
    }

    @Test func errorReplyHasNullSourceAndAnError() throws {
        let body = try #require(RobustnessTests.expansionBody(PluginMessageCodec.errorReply("broken")))
        #expect(body["expandedSource"] == .null)
        #expect(body["diagnostics"]?.array?.first?["severity"]?.string == "error")
        #expect(body["diagnostics"]?.array?.first?["message"]?.string == "broken")
    }
}

extension String {
    /// `replacing(_:with:)` without Foundation, for building test messages.
    func replacingOccurrences(_ target: String, _ replacement: String) -> String {
        replacing(target, with: replacement)
    }
}
