import Testing

@testable import SequencerNinja

@Suite struct NinjaOptionsTests {
    func options(_ arguments: [String]) throws -> NinjaOptions {
        guard case .options(let options) = NinjaOptions.parse(arguments) else {
            Issue.record("not options: \(NinjaOptions.parse(arguments))")
            throw CancellationError()
        }
        return options
    }

    @Test func flagsAreReadAsGetoptReadsThemWithTargetsAnywhere() throws {
        let parsed = try options(["all", "-j4", "-C", "out", "-k", "0", "lib", "-nv", "-l2.5x", "-d", "explain", "-f", "other.ninja"])
        #expect(parsed.arguments == ["all", "lib"])
        #expect(parsed.parallelism == 4)
        #expect(parsed.directory == "out")
        #expect(parsed.failuresAllowed == Int.max)
        #expect(parsed.dryRun && parsed.verbosity == .verbose && parsed.explain)
        #expect(parsed.maxLoadAverage == 2.5)
        #expect(parsed.manifest == "other.ninja")
    }

    @Test func aToolTakesEveryArgumentAfterIt() throws {
        let parsed = try options(["-C", "b", "-t", "targets", "-x", "all", "--", "y"])
        #expect(parsed.tool == "targets")
        #expect(parsed.arguments == ["-x", "all", "--", "y"])
        #expect(parsed.directory == "b")
    }

    @Test func jobsZeroIsNoLimitAndTheDefaultIsNinjas() throws {
        #expect(try options(["-j", "0"]).parallelism == Int.max)
        #expect(try options([]).parallelism == nil)
        #expect(NinjaOptions.defaultParallelism(processors: 1) == 2)
        #expect(NinjaOptions.defaultParallelism(processors: 2) == 3)
        #expect(NinjaOptions.defaultParallelism(processors: 8) == 10)
    }

    @Test func badFlagsGetNinjasMessages() {
        #expect(NinjaOptions.parse(["-j", "x"]) == .error("invalid -j parameter", fatal: true))
        #expect(NinjaOptions.parse(["-k", "x"]) == .error("-k parameter not numeric; did you mean -k 0?", fatal: true))
        #expect(NinjaOptions.parse(["-l", "x"]) == .error("-l parameter not numeric: did you mean -l 0.0?", fatal: true))
        #expect(NinjaOptions.parse(["-d", "explian"]) == .error("unknown debug setting 'explian', did you mean 'explain'?", fatal: false))
        #expect(NinjaOptions.parse(["-w", "nope"]) == .error("unknown warning flag 'nope'", fatal: false))
        #expect(NinjaOptions.parse(["-t", "tragets"]) == .error("unknown tool 'tragets', did you mean 'targets'?", fatal: true))
        #expect(NinjaOptions.parse(["-q"]) == .usage(message: "invalid option -- 'q'"))
        #expect(NinjaOptions.parse(["-j"]) == .usage(message: "option requires an argument -- 'j'"))
    }

    @Test func versionAndListsArePrinted() {
        #expect(NinjaOptions.parse(["--version"]) == .print("1.11.1\n", exitCode: 0))
        guard case .print(let tools, 0) = NinjaOptions.parse(["-t", "list"]) else {
            Issue.record("-t list")
            return
        }
        #expect(tools.hasPrefix("ninja subtools:\n     browse  browse dependency graph in a web browser\n      clean  clean built files\n"))
        #expect(NinjaOptions.parse(["-w", "dupbuild=warn", "-w", "depfilemulti=err"])
            == .warning("deprecated warning 'depfilemulti'", then: .options({
                var expected = NinjaOptions()
                expected.duplicateOutputsAreErrors = false
                return expected
            }())))
    }
}
