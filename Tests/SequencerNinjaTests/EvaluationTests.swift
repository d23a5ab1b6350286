import Testing
@testable import SequencerNinja

/// Evaluating edge variables: ninja's EdgeEnv (graph_test.cc and what ninja prints).
@Suite struct EvaluationTests {
    typealias T = ManifestTesting

    @Test func ruleVariablesSeeEachOther() throws {
        let graph = try T.parse("rule r\n  depfile = x\n  command = depfile is $depfile\nbuild out: r in\n")
        #expect(try graph.command(of: 0) == "depfile is x")
    }

    @Test func statementVariablesOverrideRuleVariables() throws {
        let graph = try T.parse("rule r\n  depfile = x\n  command = unused\nbuild out: r in\n  depfile = y\n")
        #expect(try graph.depfile(of: 0) == "y")
    }

    @Test func ruleVariablesExpandInTheStatementsScope() throws {
        let graph = try T.parse("rule r\n  depfile = $out.d\n  command = unused\nbuild out: r in\n  out = hidden\n")
        // `$out` is built in: the statement cannot change it.
        #expect(try graph.depfile(of: 0) == "out.d")
        let parent = try T.parse("x = y\nrule r\n  depfile = $x\n  command = unused\nbuild out: r in\n  x = z\n")
        #expect(try parent.depfile(of: 0) == "z")
    }

    @Test func inAndOutAreQuotedForTheShell() throws {
        let graph = try T.parse("rule r\n  command = $in > $out\nbuild a$ b it's: r plain.c+ x$$y\n")
        #expect(try graph.command(of: 0) == "plain.c+ 'x$y' > 'a b' 'it'\\''s'")
        #expect(try graph.evaluate("command", of: 0, escaping: .none) == "plain.c+ x$y > a b it's")
    }

    @Test func shellEscapingMatchesNinjas() {
        var result = ""
        ShellEscape.append("foo bar\"/'$@d!st!c'/path'", to: &result)
        #expect(result == "'foo bar\"/'\\''$@d!st!c'\\''/path'\\'''")
        var sensible = ""
        ShellEscape.append("some/sensible/path/without/crazy/characters.c++", to: &sensible)
        #expect(sensible == "some/sensible/path/without/crazy/characters.c++")
    }

    @Test func inCountsOnlyExplicitInputsAndOutOnlyExplicitOutputs() throws {
        let graph = try T.parse("rule r\n  command = $in -> $out\nbuild a | b: r c d | e || f |@ g\n")
        #expect(try graph.command(of: 0) == "c d -> a")
        #expect(try graph.evaluate("in_newline", of: 0) == "c\nd")
    }

    @Test func fileNamesAreUnquotedButCommandsAreNot() throws {
        let graph = try T.parse("""
            rule r
              command = cc $in
              depfile = $out.d
              rspfile = $out.rsp
              rspfile_content = $in
              description = CC $out
            build o$ 1: r i$ 1 || dd
              dyndep = dd

            """)
        #expect(try graph.depfile(of: 0) == "o 1.d")
        #expect(try graph.rspfile(of: 0) == "o 1.rsp")
        #expect(try graph.dyndep(of: 0) == "dd")
        #expect(try graph.rspfileContent(of: 0) == "'i 1'")
        #expect(try graph.rspfileContent(of: 0, escaping: .none) == "i 1")
        #expect(try graph.description(of: 0) == "CC 'o 1'")
        #expect(try graph.command(of: 0, includingResponseFile: true) == "cc 'i 1';rspfile='i 1'")
    }

    @Test func commandForTheLogLeavesOutAnEmptyResponseFile() throws {
        let graph = try T.parse("rule r\n  command = c\nbuild o: r\n")
        #expect(try graph.command(of: 0, includingResponseFile: true) == "c")
    }

    @Test func flagsAreSetByAnyValue() throws {
        let graph = try T.parse("rule r\n  command = c\n  restat = 0\n  generator = $empty\nbuild o: r\n")
        #expect(try graph.restat(of: 0))
        #expect(try !graph.generator(of: 0))
        #expect(try graph.deps(of: 0) == "" && graph.msvcDepsPrefix(of: 0) == "")
    }

    @Test func cyclesAmongRuleVariablesAreFatal() throws {
        let graph = try T.parse("rule r\n  command = $description\n  description = $command\nbuild o: r\n")
        #expect(throws: ManifestError("cycle in rule variables: description -> command -> description", isFatal: true)) {
            try graph.command(of: 0)
        }
        let direct = try T.parse("rule r\n  command = c\n  description = $description\nbuild o: r\n")
        #expect(throws: ManifestError("cycle in rule variables: description -> description", isFatal: true)) {
            try direct.description(of: 0)
        }
    }

    @Test func aRuleVariableUsedTwiceIsACycleAsInNinja() throws {
        let graph = try T.parse("rule r\n  rspfile = x.rsp\n  rspfile_content = $in\n  command = cat $rspfile $rspfile\nbuild out: r in\n")
        #expect(throws: ManifestError("cycle in rule variables: rspfile -> rspfile", isFatal: true)) {
            try graph.command(of: 0)
        }
        // Once is fine.
        let once = try T.parse("rule r\n  rspfile = x.rsp\n  rspfile_content = $in\n  command = cat $rspfile\nbuild out: r in\n")
        #expect(try once.command(of: 0) == "cat x.rsp")
    }

    @Test func aCycleThroughTheStatementsPoolFailsTheParse() {
        #expect(throws: ManifestError("cycle in rule variables: pool -> pool", isFatal: true)) {
            try ManifestParser.parse("rule r\n  command = c\n  pool = $pool\nbuild o: r\n")
        }
    }

    @Test func phonyEdgesHaveNoCommand() throws {
        let graph = try T.parse("build a: phony b\n")
        #expect(try graph.command(of: 0) == "")
        #expect(graph.edges[0].isPhony)
    }

    @Test func unknownVariablesAreEmpty() throws {
        let graph = try T.parse("rule r\n  command = [$nothing]\nbuild o: r\n")
        #expect(try graph.command(of: 0) == "[]")
        #expect(try graph.evaluate("nothing", of: 0) == "")
    }

    @Test func unparsedRuleVariables() throws {
        let graph = try T.parse("rule r\n  command = cc $in -o ${out}$$\n  description = CC $out\n")
        #expect(graph.scopes[0].rules["r"]?.bindings["command"]?.unparsed == "cc ${in} -o ${out}$")
        #expect(graph.scopes[0].rules["r"]?.bindings["description"]?.unparsed == "CC ${out}")
    }
}
