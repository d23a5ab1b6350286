import Foundation
import SequencerTestHelpers
import SequencerTestSupport
import Testing

@Suite(.suiteTimeLimit)
struct RunCommandTests {
    @Test func aSucceedingRunPrintsADoneLinePerJobAndExitsZero() async throws {
        let cli = try CLI()
        try cli.write("sequencer.yml", """
            version: 1
            jobs:
              first: echo one > first.txt
              second:
                needs: [first]
                run: cat first.txt > second.txt && echo made second
            """)
        let result = try await cli.run(["run"])
        #expect(result.status == 0, "\(result.output)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasPrefix("[1/2] done first (") })
        #expect(lines.contains { $0.hasPrefix("[2/2] done second (") })
        #expect(cli.read("second.txt") == "one\n")
        // Output is kept, and printed after the job's line.
        #expect(lines.firstIndex { $0.hasPrefix("[2/2] done second (") }.map { lines[$0 + 1] } == "made second")
        #expect(cli.read(".sequencer/output/1/second.log") == "made second\n")
    }

    /// Like ninja: a job that succeeds with a warning has it shown after its line; a silent
    /// job adds no line; `-v` shows it once; `--no-success-output` hides it.
    @Test func aSucceedingJobsOutputIsPrintedAfterItsLine() async throws {
        let cli = try CLI()
        try cli.write("sequencer.yml", """
            jobs:
              compile:
                run: |
                  echo "warning: 'unused_helper' defined but not used" >&2
              notes:
                needs: [compile]
                run: |
                  echo "note: one"; echo "note: two"
              silent: { needs: [notes], run: touch silent.txt }
            """)
        let result = try await cli.run(["run", "--force"])
        #expect(result.status == 0, "\(result.output)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        func after(_ job: String) -> ArraySlice<String> {
            guard let index = lines.firstIndex(where: { $0.contains("] done \(job) (") }) else { return [] }
            return lines[(index + 1)...].prefix(2)
        }
        #expect(after("compile").first == "warning: 'unused_helper' defined but not used", "\(result.stdout)")
        #expect(Array(after("notes")) == ["note: one", "note: two"], "\(result.stdout)")
        #expect(after("silent").first?.hasPrefix("sequencer: succeeded") == true, "\(result.stdout)")

        let verbose = try await cli.run(["run", "--force", "-v"])
        #expect(verbose.stdout.components(separatedBy: "defined but not used").count == 2, "\(verbose.stdout)")

        let quiet = try await cli.run(["run", "--force", "--no-success-output"])
        #expect(quiet.status == 0, "\(quiet.output)")
        #expect(quiet.stdout.contains("] done compile ("))
        #expect(!quiet.output.contains("defined but not used"), "\(quiet.output)")
        #expect(!quiet.output.contains("note: one"))
    }

    @Test func aFailedJobPrintsItsCommandWithItsVariablesExpanded() async throws {
        let cli = try CLI()
        try cli.write("sequencer.yml", """
            env: { CFLAGS: -O2 }
            jobs:
              compile:
                run: $CC $CFLAGS -c '$x.c' -o $SEQUENCER_JOB.o
                env: { CC: "false" }
            """)
        let result = try await cli.run(["run"])
        #expect(result.status == 1, "\(result.output)")
        #expect(result.stdout.contains("\n$ false -O2 -c '$x.c' -o compile.o\n"), "\(result.stdout)")
    }

    @Test func aFailedJobPrintsItsCommandExitCodeAndOutputAndSkipsItsDependents() async throws {
        let cli = try CLI()
        try cli.write("sequencer.yml", """
            jobs:
              broken:
                run: echo "compiler says no" >&2; exit 3
              after:
                needs: [broken]
                run: touch after.txt
            """)
        let result = try await cli.run(["run"])
        #expect(result.status == 1, "\(result.output)")
        #expect(result.stdout.contains("FAILED broken (exit code 3"))
        #expect(result.stdout.contains("$ echo \"compiler says no\" >&2; exit 3"))
        #expect(result.stdout.contains("compiler says no"))
        #expect(result.stdout.contains("1 failed, 1 skipped") || result.stdout.contains("1 skipped"))
        #expect(!FileManager.default.fileExists(atPath: cli.path("after.txt")))
    }

    @Test func keepGoingRunsWhatDoesNotDependOnTheFailure() async throws {
        let cli = try CLI()
        try cli.write("sequencer.yml", """
            jobs:
              broken: exit 1
              independent:
                needs: []
                run: sleep 0.2 && touch independent.txt
            """)
        let stopped = try await cli.run(["run", "--jobs", "1"])
        #expect(stopped.status == 1)
        #expect(!FileManager.default.fileExists(atPath: cli.path("independent.txt")))
        let kept = try await cli.run(["run", "--jobs", "1", "--keep-going"])
        #expect(kept.status == 1)
        #expect(FileManager.default.fileExists(atPath: cli.path("independent.txt")))
    }

    @Test func jsonPutsOnlyTheReportOnStandardOutput() async throws {
        let cli = try CLI()
        try cli.write("sequencer.yml", """
            jobs:
              flaky:
                run: test "$SEQUENCER_ATTEMPT" = 2 || exit 4
                retry: { attempts: 3, backoff: 10ms }
              broken:
                needs: [flaky]
                run: exit 5
            """)
        let result = try await cli.run(["run", "--json"])
        #expect(result.status == 1)
        let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        let jobs = try #require(object?["jobs"] as? [[String: Any]])
        let flaky = try #require(jobs.first { $0["name"] as? String == "flaky" })
        #expect(flaky["status"] as? String == "succeeded")
        #expect(flaky["attempts"] as? Int == 2)
        let broken = try #require(jobs.first { $0["name"] as? String == "broken" })
        #expect(broken["status"] as? String == "failed")
        #expect(broken["exitCode"] as? Int == 5)
        #expect(object?["status"] as? String == "failed")
        #expect(result.stderr.contains("FAILED broken"))
    }

    @Test func aTimeoutStopsTheProcessGroupAndFailsTheRun() async throws {
        let cli = try CLI()
        try cli.write("sequencer.yml", """
            jobs:
              slow:
                run: echo $$ > shell.pid; sleep 30 & echo $! > sleep.pid; wait
                timeout: 3s
            """)
        let result = try await cli.run(["run"], limit: .seconds(20))
        #expect(result.status == 1, "\(result.output)")
        #expect(result.stdout.contains("TIMED OUT slow"))
        let sleeper = try #require(cli.read("sleep.pid").flatMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) })
        #expect(await eventually { !processIsAlive(sleeper) }, "the job's background process outlived it")
    }

    @Test func theEnvironmentAndWorkingDirectoryReachTheCommand() async throws {
        let cli = try CLI()
        try FileManager.default.createDirectory(atPath: cli.path("sub"), withIntermediateDirectories: true)
        try cli.write("sequencer.yml", """
            env: { GREETING: hello, SHARED: file }
            jobs:
              show:
                run: echo "$GREETING $SHARED $SEQUENCER_JOB" > out.txt
                env: { SHARED: job }
                cwd: sub
            """)
        let result = try await cli.run(["run"])
        #expect(result.status == 0, "\(result.output)")
        #expect(cli.read("sub/out.txt") == "hello job show\n")
    }

    /// The deadline stops `sleep 30`: without it the job would succeed (exit status 0, no
    /// "TIMED OUT"). No wall-time bound of its own: under the sanitizer, with the other suites
    /// running, this 0.7 s run has taken 15 s.
    @Test func theDeadlineStopsTheRunWithPartialResults() async throws {
        let cli = try CLI()
        try cli.write("sequencer.yml", """
            jobs:
              quick: touch quick.txt
              slow:
                needs: [quick]
                run: sleep 30
            """)
        // 3 s: under the sanitizer, on a loaded machine, even `touch` has taken 0.4 s to start,
        // and a 500 ms deadline timed out `quick` instead of `slow`.
        let result = try await cli.run(["run", "--deadline", "3s"], limit: .seconds(60))
        #expect(result.status == 1, "\(result.output)")
        #expect(result.stdout.contains("TIMED OUT slow"), "\(result.output)")
        #expect(result.stdout.contains("sequencer: timedOut: 2 jobs in "), "\(result.output)")
        #expect(FileManager.default.fileExists(atPath: cli.path("quick.txt")))
    }

    @Test(arguments: [
        ["run", "--jobs", "0"], ["run", "--deadline", "10x"], ["run", "--no-such-option"], ["graph", "--format", "png"],
    ])
    func badArgumentsExitWithTwo(arguments: [String]) async throws {
        let cli = try CLI()
        try cli.write("sequencer.yml", "jobs:\n  a: true\n")
        let result = try await cli.run(arguments)
        #expect(result.status == 2, "\(result.output)")
        #expect(!result.stderr.isEmpty)
    }

    @Test func aMissingFileExitsWithTwo() async throws {
        let cli = try CLI()
        let result = try await cli.run(["run", "nowhere.yml"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("nowhere.yml:1:1: error: no such file"))
    }

    @Test func aCommandThatCannotStartFailsItsJob() async throws {
        let cli = try CLI()
        try cli.write("sequencer.yml", "jobs:\n  missing: no-such-program-anywhere --flag\n")
        let result = try await cli.run(["run"])
        #expect(result.status == 1, "\(result.output)")
        #expect(result.stdout.contains("no-such-program-anywhere"))
    }
}

@Suite(.suiteTimeLimit)
struct LiveProgressTests {
    /// On a terminal (here a pseudo-terminal made by `script`), the status line is redrawn in
    /// place and successful jobs get no line of their own.
    @Test func aTerminalGetsAStatusLineRedrawnInPlace() async throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/script") else { return }
        let cli = try CLI()
        try cli.write("sequencer.yml", "jobs:\n  a: sleep 0.3\n  b: { needs: [a], run: sleep 0.3 }\n")
        let result = try await runOnTerminal(cli)
        #expect(result.status == 0, "\(result.output)")
        #expect(result.stdout.contains("\r\u{1B}[K[0/2]"), "\(result.stdout.debugDescription)")
        #expect(result.stdout.contains("running: a"))
        #expect(!result.stdout.contains("done a"))
        #expect(result.stdout.contains("succeeded: 2 jobs"))
    }

    /// A successful job that printed something gets its line and its output, above the status
    /// line; a silent one still gets nothing.
    @Test func aTerminalShowsASuccessfulJobsOutput() async throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/script") else { return }
        let cli = try CLI()
        try cli.write("sequencer.yml", "jobs:\n  loud: echo warning, careful\n  quiet: { needs: [loud], run: sleep 0.2 }\n")
        let result = try await runOnTerminal(cli)
        #expect(result.status == 0, "\(result.output)")
        // `script` writes the terminal's output, where each newline is CR LF.
        let printed = result.stdout.replacingOccurrences(of: "\r\n", with: "\n")
        // Its line replaces the status line, or starts a line of its own when it ended before
        // the first status line was drawn (a loaded machine draws it late).
        let doneLine = printed.contains("\r\u{1B}[K[1/2] done loud (") || printed.contains("\n[1/2] done loud (")
        #expect(doneLine && printed.contains(")\nwarning, careful\n"), "\(printed.debugDescription)")
        #expect(!printed.contains("done quiet"))
    }

    /// Runs `sequencer run` in the directory on a pseudo-terminal.
    private func runOnTerminal(_ cli: CLI) async throws -> CLI.Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        process.arguments = ["-qec", "'\(CLI.binary.path)' run", "/dev/null"]
        process.currentDirectoryURL = cli.directory
        var environment = ProcessInfo.processInfo.environment
        environment["CI"] = nil
        environment["TERM"] = "xterm"
        process.environment = environment
        let stdout = Pipe(), stderr = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return try await cli.finish(process, stdout, stderr)
    }
}

@Suite(.suiteTimeLimit)
struct JobSelectionTests {
    @Test func namedJobsRunWithWhatTheyNeedAndNothingElse() async throws {
        let cli = try CLI()
        try cli.write("build.yml", """
            jobs:
              base: touch base
              left: { needs: [base], run: touch left }
              right: { needs: [base], run: touch right }
              top: { needs: [left], run: touch top }
            """)
        let result = try await cli.run(["run", "build.yml", "top"])
        #expect(result.status == 0, "\(result.output)")
        #expect(result.stdout.contains("[3/3]"))
        for name in ["base", "left", "top"] { #expect(FileManager.default.fileExists(atPath: cli.path(name))) }
        #expect(!FileManager.default.fileExists(atPath: cli.path("right")))

        let unknown = try await cli.run(["run", "build.yml", "rigth"])
        #expect(unknown.status == 2)
        #expect(unknown.stderr.contains("no job or output named 'rigth' in build.yml; did you mean 'right'?"))
    }
}

@Suite(.suiteTimeLimit)
struct LargeOutputTests {
    /// A job's output goes to a file, not through sequencer's memory: 100 MB of it raise
    /// sequencer's peak memory by far less than 100 MB over a run that prints one line (compared
    /// with such a run, so a sanitizer's own memory does not count), and a failure prints only
    /// the end of it.
    @Test func aHundredMegabytesOfOutputCostNoMemory() async throws {
        let cli = try CLI()
        try cli.write("loud.yml", "jobs:\n  loud: yes sequencer | head -c 100000000; echo last line; exit 1\n")
        try cli.write("quiet.yml", "jobs:\n  loud: echo last line; exit 1\n")
        let quiet = try await cli.runMeasuringMemory(["run", cli.path("quiet.yml")])
        let loud = try await cli.runMeasuringMemory(["run", cli.path("loud.yml")])
        #expect(loud.status == 1)
        // Both files share the directory's journal: quiet.yml's run is #1, loud.yml's #2.
        let size = try FileManager.default.attributesOfItem(atPath: cli.path(".sequencer/output/2/loud.log"))[.size] as? Int
        #expect(size == 100_000_000 + "last line\n".utf8.count)
        let printed = try #require(cli.read("stdout.txt"))
        #expect(printed.contains("last line"))
        #expect(printed.utf8.count < 100_000, "printed \(printed.utf8.count) bytes of a failure's output")
        #if os(Linux)
        #expect(quiet.peakKiB > 0 && loud.peakKiB > 0, "no memory figures were read")
        #endif
        #expect(loud.peakKiB - quiet.peakKiB < 30_000, "peak \(loud.peakKiB) KiB against \(quiet.peakKiB) KiB")
    }
}
