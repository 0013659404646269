import Testing
@testable import FolioMacroKit

/// Text in, text out: each role of `@Model` and `@_PersistedProperty`, expanded in-process the way
/// the compiler asks for it.
@Suite("Expansion")
struct ExpansionTests {
    static let trip = """

        /// A trip.
        @Model
        public final class Trip {
            #Index<Trip>([\\.name], [\\.start, \\.name])
            #Unique<Trip>([\\.name])

            @Attribute(.unique, originalName: "title") var name: String
            var start: Int = 0
            #if DEBUG
            var debugNote: String? = nil
            #Index<Trip>([\\.debugNote])
            #endif
            @Relationship(deleteRule: .cascade) var stops: [Stop] = []
            @Transient var cache: Int = 0
            var display: String { name }
            static var count = 0
            init(name: String) { self.name = name }
        }
        """

    let expander = MacroExpander()

    // MARK: memberAttribute

    @Test(arguments: [
        ("var start: Int = 0", "@_PersistedProperty"),
        ("@Attribute(.unique, originalName: \"title\") var name: String", "@_PersistedProperty"),
        ("@Relationship(deleteRule: .cascade) var stops: [Stop] = []", "@_PersistedProperty"),
        ("\n    var debugNote: String? = nil", "@_PersistedProperty"),
        ("@Transient var cache: Int = 0", ""),
        ("var display: String { name }", ""),
        ("static var count = 0", ""),
        ("init(name: String) { self.name = name }", ""),
        ("#Index<Trip>([\\.name], [\\.start, \\.name])", ""),
        ("func f() {}", ""),
        ("let fixed = 1", ""),
        ("lazy var x = 1", ""),
    ])
    func memberAttributeMarksOnlyPersistedProperties(member: String, expected: String) {
        let result = expander.expand(ModelRequests(source: Self.trip).memberAttribute("\n    " + member))
        #expect(result.source == expected)
        #expect(result.diagnostics.isEmpty)
    }

    @Test func memberAttributeOnAStructAddsNothing() {
        let requests = ModelRequests(source: "@Model struct S { var x: Int = 0 }")
        #expect(expander.expand(requests.memberAttribute("var x: Int = 0")).source == "")
    }

    // MARK: extension

    @Test func extensionAddsTheMissingConformances() {
        let requests = ModelRequests(source: Self.trip)
        expectSource(
            expander.expand(requests.extensionRole()).source,
            "extension Trip: Folio.PersistentModel, Observation.Observable {\n}")
    }

    @Test func extensionForANestedTypeUsesTheQualifiedName() {
        var requests = ModelRequests(source: Self.trip, conformanceList: "struct Placeholder: Observable {}")
        requests.extendedType = "Outer.Trip"
        expectSource(expander.expand(requests.extensionRole()).source, "extension Outer.Trip: Observation.Observable {\n}")
    }

    @Test func extensionIsEmptyWhenTheCompilerSendsNoConformanceList() {
        let requests = ModelRequests(source: Self.trip, conformanceList: nil)
        #expect(expander.expand(requests.extensionRole()).source == "")
    }

    @Test func extensionIsEmptyForAStructSoOnlyOneErrorIsShown() {
        let requests = ModelRequests(source: "@Model struct S { var x: Int = 0 }")
        #expect(expander.expand(requests.extensionRole()).source == "")
        #expect(expander.expand(requests.extensionRole()).diagnostics.isEmpty)
    }

    // MARK: member

    @Test func rootClassMembers() throws {
        let result = expander.expand(ModelRequests(source: Self.trip).member())
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics)")
        let source = try #require(result.source)
        expectContains(
            source,
            "public var persistentBackingData = Folio.ModelBackingData._forNewInstance()",
            "public required init(_claimed claimed: Folio._ClaimedBackingData) throws {\n    self._name = .unloaded\n    self._start = .unloaded\n",
            "    self.persistentBackingData = claimed.backingData\n}",
            "public required convenience init(backingData: Folio.ModelBackingData) throws {\n    try self.init(_claimed: try Folio._ClaimedBackingData(claiming: backingData, for: Self.self))\n}",
            "public class var schemaMetadata: [Folio.Schema.PropertyMetadata] {",
            "properties.append(Folio.Schema.PropertyMetadata(name: \"name\", keypath: \\Trip.`name`, defaultValue: nil, metadata: Folio.Schema.Attribute(.unique, originalName: \"title\")))",
            "properties.append(Folio.Schema.PropertyMetadata(name: \"start\", keypath: \\Trip.`start`, defaultValue: Folio.Schema.PropertyMetadata.defaultValue(of: \\Trip.`start`) { 0 }, metadata: nil))",
            "metadata: Folio.Schema.Relationship(deleteRule: .cascade)))",
            "public class var _folioEntityName: Swift.String {\n    \"Trip\"\n}",
            "public class var _folioSuperclass: (any Folio.PersistentModel.Type)? {\n    nil\n}",
            "try encoder.encode(self._name, forKey: \"name\")",
            "self._name = try decoder.decode(forKey: \"name\")",
            "self._start = try decoder.decode(forKey: \"start\", default: { 0 })")
        #expect(!source.contains("override"))
        #expect(!source.contains("super."))
        // Neither transient, computed nor static properties are persisted.
        for skipped in ["cache", "display", "count"] {
            #expect(!source.contains("\"\(skipped)\""), "\(skipped) should not be persisted")
        }
        // Members are separated by blank lines, as the compiler requires between declarations.
        #expect(!source.contains("}\npublic"))
    }

    @Test func propertiesInsideIfConfigAreWrappedInTheSameCondition() throws {
        let source = try #require(expander.expand(ModelRequests(source: Self.trip).member()).source)
        expectContains(
            source,
            "#if (DEBUG)\n    self._debugNote = .unloaded\n#endif",
            "#if (DEBUG)\n    try encoder.encode(self._debugNote, forKey: \"debugNote\")\n#endif",
            "#if (DEBUG)\n    self._debugNote = try decoder.decode(forKey: \"debugNote\", default: { nil })\n#endif")
        // Every `#if` is closed.
        let lines = source.split(separator: "\n")
        #expect(lines.filter { $0.hasPrefix("#if") }.count == lines.filter { $0.hasPrefix("#endif") }.count)
    }

    @Test func nestedAndElseClausesCombineTheirConditions() throws {
        let source = """
            @Model final class T {
                #if os(Linux)
                #if DEBUG
                var a: Int = 0
                #endif
                #elseif os(macOS)
                var b: Int = 0
                #else
                var c: Int = 0
                #endif
                init() {}
            }
            """
        let generated = try #require(expander.expand(ModelRequests(source: source).member()).source)
        expectContains(
            generated,
            "#if (os(Linux)) && (DEBUG)\n    try encoder.encode(self._a, forKey: \"a\")\n#endif",
            "#if !(os(Linux)) && (os(macOS))\n    try encoder.encode(self._b, forKey: \"b\")\n#endif",
            "#if !(os(Linux)) && !(os(macOS))\n    try encoder.encode(self._c, forKey: \"c\")\n#endif")
    }

    @Test func indexAndUniqueGroups() throws {
        let source = try #require(expander.expand(ModelRequests(source: Self.trip).member()).source)
        expectContains(
            source,
            """
            public class var _folioIndexes: [[Swift.String]] {
                var groups: [[Swift.String]] = []
                groups.append(["name"])
                groups.append(["start", "name"])
            #if (DEBUG)
                groups.append(["debugNote"])
            #endif
                return groups
            }
            """,
            """
            public class var _folioUniqueConstraints: [[Swift.String]] {
                var groups: [[Swift.String]] = []
                groups.append(["name"])
                return groups
            }
            """)
    }

    @Test func accumulatorsThatNothingAppendsToAreConstants() throws {
        let source = "@Model final class Empty {\n    @Transient var cache: Int = 0\n    init() {}\n}"
        let generated = try #require(expander.expand(ModelRequests(source: source).member()).source)
        expectContains(
            generated,
            "let properties: [Folio.Schema.PropertyMetadata] = []\n    return properties",
            "class var _folioIndexes: [[Swift.String]] {\n    let groups: [[Swift.String]] = []\n    return groups\n}",
            "class var _folioUniqueConstraints: [[Swift.String]] {\n    let groups: [[Swift.String]] = []\n    return groups\n}")
        #expect(!generated.contains("var properties"))
        #expect(!generated.contains("var groups"))
    }

    @Test func subclassDetectedFromAMissingConformanceList() throws {
        let source = """
            @Model
            class BakedGood: Recipe {
                var ovenTemperature: Int = 180
                init(name: String) {
                    super.init(name: name)
                }
            }
            """
        let result = expander.expand(ModelRequests(source: source, conformanceList: nil).member())
        #expect(result.diagnostics.isEmpty)
        let generated = try #require(result.source)
        #expect(!generated.contains("var persistentBackingData"))
        expectContains(
            generated,
            "required init(_claimed claimed: Folio._ClaimedBackingData) throws {\n    self._ovenTemperature = .unloaded\n    try super.init(_claimed: claimed)\n}",
            "required convenience init(backingData: Folio.ModelBackingData) throws {\n    try self.init(_claimed: try Folio._ClaimedBackingData(claiming: backingData, for: Self.self))\n}",
            "override class var schemaMetadata",
            "override class var _folioEntityName: Swift.String {\n    \"BakedGood\"\n}",
            "override class var _folioSuperclass: (any Folio.PersistentModel.Type)? {\n    Recipe.self\n}",
            "override func _folioEncode(to encoder: inout Folio.ModelRecordEncoder) throws {\n    try super._folioEncode(to: &encoder)\n",
            "override func _folioDecode(from decoder: inout Folio.ModelRecordDecoder) throws {\n    try super._folioDecode(from: &decoder)\n")
    }

    @Test func conformanceListWithoutPersistentModelAlsoMeansSubclass() throws {
        let source = "@Model class Sub: Base { var x = 1\n init() { super.init() } }"
        let requests = ModelRequests(source: source, conformanceList: "struct Placeholder: Observable {}")
        let generated = try #require(expander.expand(requests.member()).source)
        #expect(generated.contains("Base.self"))
        #expect(!generated.contains("var persistentBackingData"))
    }

    @Test func rootClassThatSpellsOutPersistentModelIsNotASubclass() throws {
        // The compiler omits the conformance list when the class already names the protocol.
        let source = "@Model final class Root: PersistentModel {\n var x: Int = 1\n init() {}\n}"
        let generated = try #require(expander.expand(ModelRequests(source: source, conformanceList: nil).member()).source)
        #expect(generated.contains("var persistentBackingData"))
        #expect(!generated.contains("super."))
        #expect(!generated.contains("PersistentModel.self"))
    }

    @Test func accessLevelFollowsTheClass() throws {
        for (modifier, prefix) in [
            ("public ", "public "), ("open ", "public "), ("package ", "package "), ("", ""),
            ("fileprivate ", ""), ("private ", ""),
        ] {
            let source = "@Model \(modifier)class A { var x: Int = 0\n init() {} }"
            let generated = try #require(expander.expand(ModelRequests(source: source).member()).source)
            #expect(generated.contains("\n\(prefix)required init(_claimed claimed:"), "\(modifier)")
            #expect(generated.contains("\n\(prefix)required convenience init(backingData:"), "\(modifier)")
        }
    }

    @Test func unusualNamesAreEscapedInKeyPathsAndQuotedInRecords() throws {
        let source = """
            @Model final class Odd {
                var `default`: Int = 0
                var café: String = ""
                var 名前: String = ""
                var scores = Dictionary<String, Int>()
                init() {}
            }
            """
        let result = expander.expand(ModelRequests(source: source).member())
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics)")
        expectContains(
            result.source,
            "keypath: \\Odd.`default`", "forKey: \"default\"", "self._default = .unloaded",
            "keypath: \\Odd.`café`", "forKey: \"café\"",
            "keypath: \\Odd.`名前`", "forKey: \"名前\"",
            "self._scores = try decoder.decode(forKey: \"scores\", default: { Dictionary<String, Int>() })")
    }

    @Test func multiLineInitializerIsCopiedIntact() throws {
        let source = "@Model final class M {\n    var list = [\n        1,\n        2\n    ]\n    init() {}\n}"
        expectContains(
            expander.expand(ModelRequests(source: source).member()).source,
            "default: { [\n        1,\n        2\n    ] })")
    }

    @Test func repeatedMemberExpansionFromTheParseCacheGivesTheSameResult() {
        let requests = ModelRequests(source: Self.trip)
        let first = expander.expand(requests.member())
        let second = expander.expand(requests.member())
        #expect(first == second)
    }

    // MARK: _PersistedProperty

    @Test func peerCopiesTypeAndDefaultIntoStorageThatKeepsTheRuntimeExclusivityCheck() {
        let cases: [(String, String)] = [
            ("\n    var start: Int = 0", "private var _start: Folio._ModelField<Int> = Folio._ModelField(0)"),
            ("var name: String", "private var _name: Folio._ModelField<String>"),
            ("var inferred = \"x\"", "private var _inferred = Folio._ModelField(\"x\")"),
            ("@Attribute(\n    .unique\n)\nvar tags: Set<String> = []", "private var _tags: Folio._ModelField<Set<String>> = Folio._ModelField([])"),
            ("var `default`: Int = 1", "private var _default: Folio._ModelField<Int> = Folio._ModelField(1)"),
            ("var d = Dictionary<String, [Int]>()", "private var _d = Folio._ModelField(Dictionary<String, [Int]>())"),
        ]
        for (member, expected) in cases {
            expectSource(expander.expand(ModelRequests.persisted(.peer, member)).source, expected)
        }
    }

    @Test(arguments: [
        (
            "\n    var start: Int = 0", #"_start.value(of: self, property: "start", default: { 0 })"#,
            #"Folio.ModelBackingData.loadValue(of: self, forKey: "start", default: { 0 })"#
        ),
        (
            "\n    var start: Int", #"_start.value(of: self, property: "start")"#,
            #"Folio.ModelBackingData.loadValue(of: self, forKey: "start")"#
        ),
    ])
    func accessorsTrackAccessAndMutation(member: String, read: String, load: String) {
        let expected = """
            {
                @storageRestrictions(initializes: _start)
                init(initialValue) {
                    _start = Folio._ModelField(initialValue)
                }
                get {
                    persistentBackingData.access(self, keyPath: \\.`start`)
                    if _start.isUnloaded {
                        _start = \(load)
                        if _start.isUnloaded {
                            Folio.ModelBackingData.load(self)
                        }
                    }
                    return \(read)
                }
                set {
                    persistentBackingData.withMutation(self, keyPath: \\.`start`, property: "start") {
                        _start = Folio._ModelField(newValue)
                    }
                }
            }
            """
        expectSource(expander.expand(ModelRequests.persisted(.accessor, member)).source, expected)
    }

    @Test(arguments: ["@Transient var x: Int = 0", "var x: Int { 1 }", "static var x = 1", "let x = 1", "func f() {}", ""])
    func persistedPropertyMacroIgnoresWhatIsNotPersisted(member: String) {
        for role in [MacroRole.peer, .accessor] {
            let result = expander.expand(ModelRequests.persisted(role, member))
            #expect(result.source == "")
            #expect(result.diagnostics.isEmpty)
        }
    }

    // MARK: Other macros

    @Test func annotationAndFreestandingMacrosExpandToNothing() {
        let roles: [String: MacroRole] = [
            "AttributeMacro": .peer, "RelationshipMacro": .peer, "TransientMacro": .peer,
            "IndexMacro": .declaration, "UniqueMacro": .declaration,
        ]
        for (typeName, role) in roles {
            let request = ExpansionRequest(
                typeName: typeName, role: role,
                attribute: SourceSnippet(source: "@X"), declaration: SourceSnippet(source: "var x = 1"))
            #expect(expander.expand(request) == ExpansionResult(source: ""), "\(typeName)")
        }
    }

    @Test func unknownMacroTypeIsAnErrorNotACrash() {
        let request = ExpansionRequest(
            typeName: "NoSuchMacro", role: .member,
            attribute: SourceSnippet(source: "\n\n@NoSuch", fileName: "/f.swift", offset: 10, line: 2))
        let result = expander.expand(request)
        #expect(result.source == nil)
        #expect(result.diagnostics.count == 1)
        #expect(result.diagnostics.first?.message.contains("NoSuchMacro") == true)
        #expect(result.diagnostics.first?.severity == .error)
    }
}
