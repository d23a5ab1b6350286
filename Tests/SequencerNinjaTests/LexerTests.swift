import Testing
@testable import SequencerNinja

/// The lexer, as ninja's lexer_test.cc checks it, and its tokens.
@Suite struct LexerTests {
    static func lexer(_ text: String) -> Lexer {
        Lexer(fileName: "input", contents: Array(text.utf8))
    }

    /// The string the lexer reads as a value, in ninja's `[text][$var]` form.
    static func value(_ text: String) throws -> String {
        var lexer = lexer(text)
        var strings = LexedStrings()
        guard try lexer.readValue(into: &strings) else { return "" }
        return ManifestTesting.serialized(strings.evalString(0))
    }

    static func tokens(_ text: String) -> [ManifestToken] {
        var lexer = lexer(text)
        var tokens: [ManifestToken] = []
        while true {
            let token = lexer.readToken()
            tokens.append(token)
            if token == .eof || token == .error || tokens.count > 100 { return tokens }
        }
    }

    @Test func valuesSplitIntoTextAndVariables() throws {
        #expect(try Self.value("plain text $var $VaR ${x}\n") == "[plain text ][$var][ ][$VaR][ ][$x]")
    }

    @Test func escapesBecomeText() throws {
        #expect(try Self.value("$ $$ab c$: $\ncde\n") == "[ $ab c: cde]")
        #expect(try Self.value("a$\r\n    b\r\n") == "[ab]")
    }

    @Test func identifiersTakeLettersDigitsUnderscoresDashesAndDots() {
        var lexer = Self.lexer("foo baR baz_123 foo-bar foo.dots")
        var read: [String] = []
        while let name = lexer.readIdent() { read.append(name) }
        #expect(read == ["foo", "baR", "baz_123", "foo-bar", "foo.dots"])
    }

    @Test func bareVariableNamesStopAtADotButBracedOnesDoNot() throws {
        var lexer = Self.lexer("foo.dots $bar.dots ${bar.dots}\n")
        let name = lexer.readIdent()
        #expect(name == "foo.dots")
        var strings = LexedStrings()
        let read = try lexer.readValue(into: &strings)
        #expect(read)
        #expect(ManifestTesting.serialized(strings.evalString(0)) == "[$bar][.dots ][$bar.dots]")
    }

    @Test func badEscapeIsReportedAtTheDollar() {
        var lexer = Self.lexer("foo$\nbad $")
        var strings = LexedStrings()
        #expect(throws: ManifestError("input:2: bad $-escape (literal $ must be written as $$)\nbad $\n    ^ near here")) {
            try lexer.readValue(into: &strings)
        }
    }

    @Test(arguments: ["$%", "${}", "${a", "${a b}", "$\r", "$", "$.x", "${a}$@"])
    func badEscapes(_ text: String) {
        var lexer = Self.lexer("x" + text + "\n")
        var strings = LexedStrings()
        #expect(throws: ManifestError.self) { try lexer.readValue(into: &strings) }
        #expect(lexer.lastToken >= 1)
    }

    @Test func aCommentRunningIntoTheEndIsAnError() {
        #expect(Self.tokens("# foo") == [.error])
        #expect(Self.tokens("# foo\n") == [.eof])
        #expect(Self.tokens("  # foo") == [.indent, .error])
    }

    @Test func tabsAreNotAllowed() {
        var lexer = Self.lexer("   \tfoobar")
        let first = lexer.readToken()
        let second = lexer.readToken()
        #expect(first == .indent && second == .error)
        #expect(lexer.describeLastError() == "tabs are not allowed, use spaces")
    }

    @Test func keywordsPunctuationAndNewlines() {
        #expect(
            Self.tokens("build a: b | c || d |@ e\n") == [.build, .ident, .colon, .ident, .pipe, .ident, .pipe2, .ident, .pipeAt, .ident, .newline, .eof])
        #expect(Self.tokens("rule pool default include subninja =\r\n") == [.rule, .pool, .default, .include, .subninja, .equals, .newline, .eof])
        #expect(Self.tokens("builds rules pool.x\n") == [.ident, .ident, .ident, .newline, .eof])
        #expect(Self.tokens("  \n   \r\n  x") == [.newline, .newline, .indent, .ident, .eof])
        #expect(Self.tokens("a\rb") == [.ident, .error])
    }

    @Test func commentLinesAreSkippedEvenIndented() {
        #expect(Self.tokens("# one\n   # two\nx\n") == [.ident, .newline, .eof])
    }

    @Test func continuationsAfterATokenAreWhitespace() {
        #expect(Self.tokens("build $\n   a $\r\n  :\n") == [.build, .ident, .colon, .newline, .eof])
    }

    @Test func aZeroByteEndsTheFile() {
        #expect(Self.tokens("x\u{0}y = 1\n") == [.ident, .eof])
        var lexer = Self.lexer("x = a\u{0}b\n")
        _ = lexer.readIdent()
        _ = lexer.readToken()
        var strings = LexedStrings()
        #expect(throws: ManifestError("input:1: unexpected EOF\nx = a\n     ^ near here")) { try lexer.readValue(into: &strings) }
    }

    @Test func pathsStopAtSpacesColonsAndPipesButValuesDoNot() throws {
        var lexer = Self.lexer("a$ b:c|d e\n")
        var strings = LexedStrings()
        let first = try lexer.readPath(into: &strings)
        let colon = lexer.readToken()
        let second = try lexer.readPath(into: &strings)
        let pipe = lexer.readToken()
        #expect(first && second && colon == .colon && pipe == .pipe)
        #expect(ManifestTesting.serialized(strings.evalString(0)) == "[a b]")
        #expect(ManifestTesting.serialized(strings.evalString(1)) == "[c]")
        #expect(try Self.value("a b:c|d  e \n") == "[a b:c|d  e ]")
    }

    @Test func anEmptyPathReadsNothing() throws {
        var lexer = Self.lexer(": x\n")
        var strings = LexedStrings()
        let read = try lexer.readPath(into: &strings)
        let next = lexer.readToken()
        #expect(!read && strings.count == 0 && next == .colon)
    }

    @Test func unreadTokenGoesBackToItsStart() {
        var lexer = Self.lexer("build x\n")
        let rule = lexer.peekToken(.rule)
        let build = lexer.peekToken(.build)
        let name = lexer.readIdent()
        #expect(!rule && build && name == "x")
    }

    @Test func errorsAtTheStartOfALineHaveNoContext() {
        var lexer = Self.lexer("a\nb c\n")
        _ = lexer.readToken()
        _ = lexer.readToken()
        _ = lexer.readToken()
        #expect(lexer.error("oops").message == "input:2: oops\n")
        _ = lexer.readToken()
        #expect(lexer.error("oops").message == "input:2: oops\nb c\n  ^ near here")
    }

    @Test func lineNumbersCountForwardAndBack() {
        var lexer = Self.lexer("a\nb\n\nc\n")
        let lines = [0, 5, 2, 100].map { lexer.lineNumber(of: $0) }
        #expect(lines == [1, 4, 2, 5])
    }

    @Test func tokenNamesAreNinjas() {
        #expect(ManifestToken.pipeAt.name == "'|@'")
        #expect(ManifestToken.eof.name == "eof")
        #expect(ManifestToken.error.name == "lexing error")
        #expect(ManifestToken.colon.expectationHint == " ($ also escapes ':')")
        #expect(ManifestToken.newline.expectationHint == "")
    }
}
