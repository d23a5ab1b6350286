import Testing

@testable import SequencerNinja

/// `targets`, `rules`, `query`, `commands` and `inputs` on one manifest, with what ninja 1.11.1
/// prints for it.
struct ToolListingTests {
    static let manifest = """
        rule cc
          command = cc -c $in -o $out
          description = CC $out $$HOME
        rule link
          command = ld $in -o $out
        rule gen
          command = gen $out
          generator = 1
        build gen.h: gen
        build a.o: cc a.c | gen.h
        build b.o: cc b.c || gen.h
        build app: link a.o b.o
        build all: phony app
        build check: phony |@ app
        default app

        """

    private func run(_ commandLine: String) throws -> ToolRunResult {
        try ToolTesting.run(commandLine.split(separator: " ").map(String.init), manifest: Self.manifest)
    }

    private func expectOutput(_ commandLine: String, _ expected: String, exitCode: Int32 = 0) throws {
        let result = try run(commandLine)
        #expect(result == ToolRunResult(exitCode: exitCode, standardOutput: expected, standardError: ""), "\(commandLine)")
    }

    private func expectError(_ commandLine: String, _ message: String, output: String = "") throws {
        let result = try run(commandLine)
        #expect(result == ToolRunResult(exitCode: 1, standardOutput: output, standardError: "ninja: error: \(message)\n"), "\(commandLine)")
    }

    @Test func targetsListsTheRootsToDepthOne() throws {
        try expectOutput("-t targets", "all: phony\ncheck: phony\n")
        try expectOutput("-t targets depth 2", "all: phony\n  app: link\ncheck: phony\n")
    }

    @Test func targetsDepthZeroOrNotANumberListsEverything() throws {
        let tree = """
            all: phony
              app: link
                a.o: cc
                  a.c
                  gen.h: gen
                b.o: cc
                  b.c
                  gen.h: gen
            check: phony

            """
        try expectOutput("-t targets depth 0", tree)
        try expectOutput("-t targets depth x", tree)
        try expectOutput("-t targets depth -1", tree)
    }

    @Test func targetsAllAndByRule() throws {
        try expectOutput("-t targets all", "gen.h: gen\na.o: cc\nb.o: cc\napp: link\nall: phony\ncheck: phony\n")
        try expectOutput("-t targets rule", "a.c\nb.c\n")
        try expectOutput("-t targets rule cc", "a.o\nb.o\n")
        try expectOutput("-t targets rule nothing", "")
    }

    @Test func targetsRejectsUnknownModes() throws {
        try expectError("-t targets foo", "unknown target tool mode 'foo', did you mean 'all'?")
        try expectError("-t targets dept", "unknown target tool mode 'dept', did you mean 'depth'?")
        try expectError("-t targets something", "unknown target tool mode 'something'")
    }

    @Test func targetsStopsAtACycleWhenListingEverything() throws {
        let result = try ToolTesting.run(
            ["-t", "targets", "depth", "0"], manifest: "build a: phony b\nbuild b: phony a\nbuild top: phony a\n")
        #expect(result.exitCode == 0)
        #expect(result.standardOutput == "top: phony\n  a: phony\n    b: phony\n      a: phony\n")
    }

    @Test func targetsWithNoRootFails() throws {
        let result = try ToolTesting.run(["-t", "targets"], manifest: "build a: phony b\nbuild b: phony a\n")
        #expect(
            result
                == ToolRunResult(
                    exitCode: 1, standardOutput: "", standardError: "ninja: error: could not determine root nodes of build graph\n"))
    }

    @Test func rulesAreSortedWithDescriptionsAsWritten() throws {
        try expectOutput("-t rules", "cc\ngen\nlink\nphony\n")
        try expectOutput("-t rules -d", "cc: CC ${out} $HOME\ngen\nlink\nphony\n")
    }

    @Test func rulesUsage() throws {
        let usage =
            "usage: ninja -t rules [options]\n\noptions:\n  -d     also print the description of the rule\n  -h     print this message\n"
        try expectOutput("-t rules -h", usage, exitCode: 1)
        let result = try run("-t rules -x")
        #expect(result == ToolRunResult(exitCode: 1, standardOutput: usage, standardError: "rules: invalid option -- 'x'\n"))
    }

    @Test func rulesOfSubninjasAreNotListed() throws {
        let result = try ToolTesting.run(
            ["-t", "rules"], manifest: "rule top\n  command = t\nsubninja sub.ninja\n", files: ["sub.ninja": "rule inner\n  command = i\n"])
        #expect(result.standardOutput == "phony\ntop\n")
    }

    @Test func queryShowsInputsOutputsAndValidations() throws {
        try expectOutput(
            "-t query app a.o gen.h",
            """
            app:
              input: link
                a.o
                b.o
              outputs:
                all
              validation for:
                check
            a.o:
              input: cc
                a.c
                | gen.h
              outputs:
                app
            gen.h:
              input: gen
              outputs:
                a.o
                b.o

            """)
        try expectOutput("-t query b.o", "b.o:\n  input: cc\n    b.c\n    || gen.h\n  outputs:\n    app\n")
        try expectOutput("-t query check", "check:\n  input: phony\n  validations:\n    app\n  outputs:\n")
        try expectOutput("-t query ./app/", "app:\n  input: link\n    a.o\n    b.o\n  outputs:\n    all\n  validation for:\n    check\n")
        try expectOutput("-t query a.c^", "a.o:\n  input: cc\n    a.c\n    | gen.h\n  outputs:\n    app\n")
    }

    @Test func queryErrors() throws {
        try expectError("-t query", "expected a target to query")
        try expectError("-t query nope", "unknown target 'nope', did you mean 'app'?")
        try expectError("-t query check^", "'check' has no out edge")
        try expectError("-t query clean", "unknown target 'clean', did you mean 'ninja -t clean'?")
        try expectError("-t query help", "unknown target 'help', did you mean 'ninja -h'?")
        try expectError("-t query ./ap", "unknown target 'ap', did you mean 'app'?")
        let partly = try run("-t query gen.h nope")
        #expect(partly.exitCode == 1)
        #expect(partly.standardOutput == "gen.h:\n  input: gen\n  outputs:\n    a.o\n    b.o\n")
    }

    @Test func queryLoadsAPendingDyndepFile() throws {
        let manifest = "rule r\n  command = r\nbuild out: r in || dd\n  dyndep = dd\nbuild dd: r\n"
        let loaded = try ToolTesting.run(
            ["-t", "query", "out"], manifest: manifest,
            files: ["dd": "ninja_dyndep_version = 1\nbuild out | extra.out: dyndep | extra.in\n"])
        #expect(loaded.standardOutput == "out:\n  input: r\n    in\n    | extra.in\n    || dd\n  outputs:\n")
        let missing = try ToolTesting.run(["-t", "query", "out"], manifest: manifest)
        #expect(missing.exitCode == 0)
        #expect(missing.standardError == "ninja: warning: loading 'dd': No such file or directory\n\n")
        #expect(missing.standardOutput == "out:\n  input: r\n    in\n    || dd\n  outputs:\n")
    }

    @Test func commandsListsEachCommandOnceInputsFirst() throws {
        try expectOutput("-t commands", "gen gen.h\ncc -c a.c -o a.o\ncc -c b.c -o b.o\nld a.o b.o -o app\n")
        try expectOutput("-t commands a.o", "gen gen.h\ncc -c a.c -o a.o\n")
        try expectOutput("-t commands -s app", "ld a.o b.o -o app\n")
        try expectOutput("-t commands app -s", "ld a.o b.o -o app\n")
        try expectOutput("-t commands all", "gen gen.h\ncc -c a.c -o a.o\ncc -c b.c -o b.o\nld a.o b.o -o app\n")
        try expectOutput("-t commands a.c", "")
    }

    @Test func commandsUsageAndErrors() throws {
        let usage =
            "usage: ninja -t commands [options] [targets]\n\noptions:\n  -s     only print the final command to build [target], not the whole chain\n"
        try expectOutput("-t commands -h", usage, exitCode: 1)
        let invalid = try run("-t commands --help")
        #expect(invalid == ToolRunResult(exitCode: 1, standardOutput: usage, standardError: "commands: invalid option -- '-'\n"))
        try expectError("-t commands nope", "unknown target 'nope', did you mean 'app'?")
        try expectError("-t commands -- -sapp", "unknown target '-sapp', did you mean 'app'?")
    }

    @Test func commandsReportsARuleVariableCycleAsFatal() throws {
        let result = try ToolTesting.run(
            ["-t", "commands"], manifest: "rule r\n  command = $description\n  description = $command\nbuild o: r\n")
        #expect(result.exitCode == 1)
        #expect(result.standardError.hasPrefix("ninja: fatal: cycle in rule variables: "))
    }

    @Test func inputsAreSortedUniqueAndQuoted() throws {
        try expectOutput("-t inputs", "a.c\na.o\nb.c\nb.o\ngen.h\n")
        try expectOutput("-t inputs a.o", "a.c\ngen.h\n")
        try expectOutput("-t inputs gen.h", "")
        let quoted = try ToolTesting.run(["-t", "inputs", "out"], manifest: "rule r\n  command = r\nbuild out: r b$ c 'q' a |@ v\n")
        #expect(quoted.standardOutput == "''\\''q'\\'''\n'b c'\na\n")
    }

    @Test func inputsUsage() throws {
        let usage = """
            Usage '-t inputs [options] [targets]

            List all inputs used for a set of targets. Note that this includes
            explicit, implicit and order-only inputs, but not validation ones.

            Options:
              -h, --help   Print this message.

            """
        try expectOutput("-t inputs --help", usage, exitCode: 1)
        try expectOutput("-t inputs --he", usage, exitCode: 1)
        let unknown = try run("-t inputs --foo=1")
        #expect(unknown == ToolRunResult(exitCode: 1, standardOutput: usage, standardError: "inputs: unrecognized option '--foo=1'\n"))
        let withValue = try run("-t inputs --help=1")
        #expect(withValue.standardError == "inputs: option '--help' doesn't allow an argument\n")
    }

    /// ninja's own `output_test.py` case.
    @Test func inputsOfAChain() throws {
        let plan =
            "rule cat\n  command = cat $in $out\nbuild out1 : cat in1\nbuild out2 : cat in2 out1\nbuild out3 : cat out2 out1 | implicit || order_only\n"
        let result = try ToolTesting.run(["-t", "inputs", "out3"], manifest: plan)
        #expect(result.standardOutput == "implicit\nin1\nin2\norder_only\nout1\nout2\n")
    }
}
