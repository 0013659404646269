import Testing
@testable import FolioMacroKit

/// The property shapes real SwiftData apps use beyond plain `var`s: `let` constants and implicitly
/// unwrapped optionals.
@Suite("Expansion of property shapes")
struct PropertyShapeExpansionTests {
    static let talk = """

        @Model
        final class Talk {
            let code: String
            var title: String
            var track: Track!
            var room: String!
            init(code: String, title: String) {
                self.code = code
                self.title = title
            }
        }
        """

    let expander = MacroExpander()

    @Test func aLetIsSetFromTheRecordWhenTheInstanceIsMadeAndEncodedButNeverDecodedAgain() throws {
        let result = expander.expand(ModelRequests(source: Self.talk).member())
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics)")
        let source = try #require(result.source)
        expectContains(
            source,
            "required init(_claimed claimed: Folio._ClaimedBackingData) throws {\n    self.`code` = try claimed._constant(forKey: \"code\", of: \"Talk\")\n    self._title = .unloaded\n",
            "try encoder.encode(Folio._ModelField(self.`code`), forKey: \"code\")",
            "properties.append(Folio.Schema.PropertyMetadata(name: \"code\", keypath: \\Talk.`code`, defaultValue: nil, metadata: nil))")
        #expect(!source.contains("self._code"), "a constant has no tracked storage")
        #expect(!source.contains("decoder.decode(forKey: \"code\""), "a constant cannot be assigned after init")
    }

    @Test func aLetGetsNoAccessorsButAVarDoes() {
        let requests = ModelRequests(source: Self.talk)
        #expect(expander.expand(requests.memberAttribute("\n    let code: String")).source == "")
        #expect(expander.expand(requests.memberAttribute("\n    var title: String")).source == "@_PersistedProperty")
    }

    @Test(arguments: [
        ("var track: Track!", "private var _track: Folio._ModelField<Track?>"),
        ("var room: String!", "private var _room: Folio._ModelField<String?>"),
        ("var stops: [Stop]!", "private var _stops: Folio._ModelField<[Stop]?>"),
    ])
    func anImplicitlyUnwrappedOptionalIsStoredAsTheOptionalItIs(member: String, expected: String) {
        let source = expander.expand(ModelRequests.persisted(.peer, member)).source
        #expect(source?.hasSuffix(expected) == true, "\(source ?? "nil")")
    }
}
