import Testing
@testable import FolioMacroKit

@Suite("Lexer")
struct LexerTests {
    private func texts(_ source: String) -> [String] { Lexer.tokenize(source).map(\.text) }

    @Test func lineAndNestedBlockCommentsAreTrivia() {
        let source = """
            // a { line " comment
            /* outer /* inner { */ still " comment } */ var x
            /// doc with } and "
            let y
            """
        #expect(texts(source) == ["var", "x", "let", "y"])
    }

    @Test func docCommentsWithBracesAndQuotesDoNotHideTheDeclaration() {
        let source = "/**\n { \" } \n*/\nvar a: Int /* } */ = 1 // {\nvar b"
        let tokens = Lexer.tokenize(source)
        #expect(tokens.map(\.text) == ["var", "a", ":", "Int", "=", "1", "var", "b"])
        #expect(tokens[0].startsLine)
        #expect(!tokens[4].startsLine)
        #expect(tokens[6].startsLine)
    }

    @Test func stringLiteralsWithBracesAndQuotesAreOneToken() {
        let source = #"x = "a { b \" } c" + "\(y) }""#
        let tokens = Lexer.tokenize(source)
        #expect(tokens.map(\.kind) == [.identifier, .punctuation, .string, .punctuation, .string])
        #expect(tokens[2].text == #""a { b \" } c""#)
        #expect(tokens[4].text == #""\(y) }""#)
    }

    @Test func multiLineStringIsOneTokenAndTheNextLineStartsALine() {
        let source = "a = \"\"\"\n  { \"quoted\" }\n  \\(x)\n  \"\"\"\nvar b"
        let tokens = Lexer.tokenize(source)
        #expect(tokens.map(\.text).last == "b")
        #expect(tokens.count == 5)
        #expect(tokens[2].kind == .string)
        #expect(tokens[2].text.hasPrefix("\"\"\"") && tokens[2].text.hasSuffix("\"\"\""))
        #expect(tokens[3].startsLine)
    }

    @Test func rawStringsWithHashInterpolation() {
        let source = ###"x = #"a "quoted" \(not) \#(y + "}") } "# + ##"a "# b"##"###
        let tokens = Lexer.tokenize(source)
        #expect(tokens.map(\.kind) == [.identifier, .punctuation, .string, .punctuation, .string])
        #expect(tokens[2].text == ##"#"a "quoted" \(not) \#(y + "}") } "#"##)
        #expect(tokens[4].text == ###"##"a "# b"##"###)
    }

    @Test func nestedInterpolationsWithStringsInside() {
        let source = #"x = "\(a("\(b(")"))")) )" ; y"#
        let tokens = Lexer.tokenize(source)
        #expect(tokens.map(\.text) == ["x", "=", #""\(a("\(b(")"))")) )""#, ";", "y"])
    }

    @Test func interpolationContainingCommentAndClosure() {
        let source = "x = \"\\(items.map { /* ) */ $0 }.count)\" + z"
        #expect(texts(source) == ["x", "=", "\"\\(items.map { /* ) */ $0 }.count)\"", "+", "z"])
    }

    @Test func unicodeAndBacktickedIdentifiers() {
        let tokens = Lexer.tokenize("var café: String; var 名前: String; var `default`: Int")
        #expect(tokens[1].text == "café")
        #expect(tokens[1].kind == .identifier)
        #expect(tokens[6].text == "名前")
        #expect(tokens[11].text == "default")
        #expect(tokens[11].isBackticked)
        #expect(!tokens[11].isIdentifier("default"))
        // Offsets are UTF-8 bytes: "café" is 5 bytes.
        #expect(tokens[1].start == 4)
        #expect(tokens[1].end == 9)
    }

    @Test func genericAnglesAndArrowsAreSeparateTokens() {
        #expect(texts("Dictionary<String, [Int]>") == ["Dictionary", "<", "String", ",", "[", "Int", "]", ">"])
        #expect(texts("Set<Array<Int>>") == ["Set", "<", "Array", "<", "Int", ">", ">"])
        #expect(texts("(Int) -> Void") == ["(", "Int", ")", "->", "Void"])
        #expect(texts("Int?") == ["Int", "?"])
        #expect(texts("a...b") == ["a", "...", "b"])
        #expect(texts("a..<b") == ["a", "..<", "b"])
    }

    @Test func poundDirectivesAndMacros() {
        let tokens = Lexer.tokenize("#if os(Linux)\n#Index<T>([\\.a])\n#endif")
        #expect(tokens.filter { $0.kind == .pound }.map(\.text) == ["#if", "#Index", "#endif"])
    }

    @Test func numbers() {
        #expect(texts("1_000 0x1F 1.5e-3 0x1p-2 2.0") == ["1_000", "0x1F", "1.5e-3", "0x1p-2", "2.0"])
        #expect(texts("1.description") == ["1", ".", "description"])
    }

    @Test func unterminatedLiteralsAndCommentsEndAtTheEnd() {
        #expect(texts("var a = \"open\nvar b") == ["var", "a", "=", "\"open", "var", "b"])
        #expect(texts("var a /* open") == ["var", "a"])
        #expect(texts("a = \"\"\"\nnever closed").count == 3)
        #expect(texts("a = #\"raw") == ["a", "=", "#\"raw"])
        #expect(texts("`open") == ["open"])
        #expect(texts("\"\\(") == ["\"\\("])
    }

    @Test func offsetsCoverTheWholeToken() {
        let source = "  @Attribute(.unique) var name: String"
        for token in Lexer.tokenize(source) {
            let slice = String(decoding: Array(source.utf8)[token.start..<token.end], as: UTF8.self)
            #expect(slice == token.text)
        }
    }

    @Test func extendedRegexLiteralHidesBracesAndQuotes() {
        let source = "var pattern = #/a{2}\\/\"[}]/# ; var b"
        #expect(texts(source) == ["var", "pattern", "=", "#/a{2}\\/\"[}]/#", ";", "var", "b"])
    }

    @Test func lineBreakInsideAnInterpolationDoesNotStartALine() {
        let tokens = Lexer.tokenize("x = \"\\(a /* \n */ + b)\" + c")
        #expect(tokens.map(\.text).last == "c")
        #expect(tokens.last?.startsLine == false)
        #expect(tokens.count == 5)
    }
}
