import Testing
@testable import FolioMacroKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Expands a 60-property model through the wire exactly as the compiler asks for it: 1 member,
/// 60 memberAttribute (each carrying the whole class), 60 peer, 60 accessor and 1 extension request.
/// It prints how long that took; nothing about time is asserted.
@Suite("Speed")
struct SpeedTests {
    static func bigModelMessages() -> [[UInt8]] {
        let types = ["String", "Int", "Double", "Bool", "Date", "[String]", "Int?", "[String: Int]", "Set<UUID>", "Data"]
        let defaults = ["\"\"", "0", "0", "false", "Date()", "[]", "nil", "[:]", "[]", "Data()"]
        var members: [String] = []
        for index in 0..<60 {
            var text = "\n    var property\(index): \(types[index % 10]) = \(defaults[index % 10])"
            if index % 7 == 0 { text = "\n    @Attribute(.unique, originalName: \"old\(index)\")" + text }
            members.append(text)
        }
        let type =
            "\n\n@Model\npublic final class Big {\n    #Index<Big>([\\.property1], [\\.property2, \\.property3])"
            + members.joined() + "\n    @Transient var cache: Int = 0\n    init() {}\n}"
        // About the size of the real `staticBuildConfiguration`.
        let configuration = PluginJSON.string("{\"features\":[" + (0..<120).map { "\"Feature\($0)\"" }.joined(separator: ",") + "]}")
        func syntax(_ kind: String, _ source: String) -> PluginJSON {
            .object([
                ("kind", .string(kind)),
                ("location", .object([("fileName", .string("/app/Big.swift")), ("line", .number(1)), ("offset", .number(10))])),
                ("source", .string(source)),
            ])
        }
        func message(_ role: String, _ typeName: String, _ decl: String, _ extra: [(String, PluginJSON)] = []) -> [UInt8] {
            let body: [(String, PluginJSON)] =
                [
                    ("attributeSyntax", syntax("attribute", "@Model")), ("declSyntax", syntax("declaration", decl)),
                    ("lexicalContext", .array([])),
                    ("macro", .object([("moduleName", .string("FolioMacros")), ("name", .string("Model")), ("typeName", .string(typeName))])),
                    ("macroRole", .string(role)), ("staticBuildConfiguration", configuration),
                ] + extra
            return PluginJSON.object([("expandAttachedMacro", .object(body))]).serialized()
        }
        let conformances = ("conformanceListSyntax", syntax("declaration", "struct Placeholder: PersistentModel, Observable {}"))
        var messages = [message("member", "ModelMacro", type, [conformances])]
        messages += members.map { message("memberAttribute", "ModelMacro", $0, [("parentDeclSyntax", syntax("declaration", type))]) }
        messages += members.map { message("peer", "PersistedPropertyMacro", $0) }
        messages += members.map { message("accessor", "PersistedPropertyMacro", $0) }
        messages.append(message("extension", "ModelMacro", type, [conformances, ("extendedTypeSyntax", syntax("type", "Big"))]))
        return messages
    }

    @Test func sixtyPropertyModelThroughTheWire() throws {
        let messages = Self.bigModelMessages()
        #expect(messages.count == 182)
        var best = Double.infinity
        for _ in 0..<3 {
            let expander = MacroExpander()  // as a fresh plugin process: nothing cached
            var start = timespec(), end = timespec()
            clock_gettime(CLOCK_MONOTONIC, &start)
            let replies = messages.map { expander.handle(message: $0) }
            clock_gettime(CLOCK_MONOTONIC, &end)
            best = min(best, Double(end.tv_sec - start.tv_sec) * 1000 + Double(end.tv_nsec - start.tv_nsec) / 1e6)
            for reply in replies {
                let body = try PluginJSON.parse(reply)["expandMacroResult"]
                #expect(body?["diagnostics"]?.array?.isEmpty == true)
            }
            #expect(replies.filter { String(decoding: $0, as: UTF8.self).contains("@_PersistedProperty") }.count == 60)
        }
        print("Folio macro plugin: 182 requests for a 60-property model took \(best) ms in-process (best of 3, this build configuration)")
    }
}
