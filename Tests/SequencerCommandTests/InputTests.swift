import Foundation
import Testing
import SequencerTestHelpers

/// Inputs that nothing provides (a misspelled path, a glob that matches nothing), variables in
/// paths, and globs walked once per no-op run.
@Suite(.suiteTimeLimit)
struct InputTests {
    /// The file: `in.txtt` is a typo for `in.txt`.
    static let typo = """
        version: 1
        jobs:
          out:
            run: cp in.txt out.txt
            inputs: [in.txtt]
            outputs: [out.txt]
        """
    static let typoMessage = "build.yml:5:14: %@: job 'out' has input 'in.txtt', which does not exist and is not an output of any job"

    @Test func aMisspelledInputIsAWarningFromCheck() async throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.write("in.txt", "one\n")
        try cli.write("build.yml", Self.typo)
        let check = try await cli.run(["check", "build.yml"])
        #expect(check.status == 0, "\(check.output)")
        #expect(check.stderr.contains(String(format: Self.typoMessage, "warning")), "\(check.output)")
        #expect(check.stdout == "build.yml: 1 job, 1 warning\n", "\(check.output)")
    }

    @Test(arguments: [[], ["--no-journal"]])
    func aMisspelledInputStopsTheRunBeforeAnythingRuns(options: [String]) async throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.write("in.txt", "one\n")
        try cli.write("build.yml", Self.typo)
        let run = try await cli.run(["run", "build.yml"] + options)
        #expect(run.status == 2, "\(run.output)")
        #expect(run.stderr.contains(String(format: Self.typoMessage, "error")), "\(run.output)")
        #expect(!FileManager.default.fileExists(atPath: cli.path("out.txt")), "the job ran")
        #expect(!FileManager.default.fileExists(atPath: cli.path(".sequencer/journal.sqlite")), "a run was recorded")
    }

    @Test func anInputThatAJobWritesNeedNotExistBeforeTheRun() async throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.write("sequencer.yml", """
            jobs:
              gen:
                run: mkdir -p gen && echo g > gen/out.txt
                outputs: [./gen/out.txt]
              use:
                needs: [gen]
                cwd: sub
                run: cat ../gen/out.txt > used.txt
                inputs: [../gen/out.txt, "../gen/*.txt"]
                outputs: [used.txt]
            """)
        try FileManager.default.createDirectory(atPath: cli.path("sub"), withIntermediateDirectories: true)
        let check = try await cli.run(["check"])
        #expect(check.status == 0 && check.stderr.isEmpty, "\(check.output)")
        #expect(check.stdout.contains("no problems"), "\(check.output)")
        let run = try await cli.run(["run"])
        #expect(run.status == 0 && run.stderr.isEmpty, "\(run.output)")
        #expect(cli.read("sub/used.txt") == "g\n")
    }

    @Test func aGlobThatMatchesNothingIsAWarningAndTheRunGoesOn() async throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.write("src/a.c", "a\n")
        try cli.write("sequencer.yml", """
            jobs:
              build:
                run: echo b > out.txt
                inputs: ["src/*.h"]
                outputs: [out.txt]
            """)
        let warning = "sequencer.yml:4:14: warning: job 'build' has input 'src/*.h', which matches no file and no output of any job"
        let check = try await cli.run(["check"])
        #expect(check.status == 0, "\(check.output)")
        #expect(check.stderr.contains(warning), "\(check.output)")
        let run = try await cli.run(["run"])
        #expect(run.status == 0, "\(run.output)")
        #expect(run.stderr.contains(warning), "\(run.output)")
        #expect(cli.read("out.txt") == "b\n")
    }

    static let variableFile = """
        jobs:
          copy:
            run: cp "$SRC/in.txt" out.txt
            inputs: [$SRC/in.txt]
            outputs: [out.txt]
        """

    @Test func aVariableInAnInputIsExpandedFromTheEnvironment() async throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.write("src/in.txt", "one\n")
        try cli.write("sequencer.yml", Self.variableFile)
        let environment = ["SRC": "src"]
        #expect(try await cli.run(["check"], environment: environment).status == 0)
        let first = try await cli.run(["run"], environment: environment)
        #expect(first.status == 0, "\(first.output)")
        #expect(try await cli.run(["run"], environment: environment).counts == "1 up to date")

        // The input changes through the variable: the job runs again.
        try cli.write("src/in.txt", "two\n")
        let changed = try await cli.run(["run", "--explain"], environment: environment)
        #expect(changed.explanations == ["explain: copy runs: input src/in.txt changed"], "\(changed.output)")
        #expect(cli.read("out.txt") == "two\n")
    }

    @Test func aVariableInAPathIsExpandedFromTheFilesEnv() async throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.write("lib/in.txt", "one\n")
        try cli.write("sequencer.yml", "env: { SRC: lib }\n" + Self.variableFile)
        #expect(try await cli.run(["run"]).status == 0)
        try cli.write("lib/in.txt", "two\n")
        let changed = try await cli.run(["run", "--explain"])
        #expect(changed.explanations == ["explain: copy runs: input lib/in.txt changed"], "\(changed.output)")
        #expect(cli.read("out.txt") == "two\n")
    }

    @Test func anUndefinedVariableIsAnErrorAtItsPosition() async throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.write("sequencer.yml", Self.variableFile)
        let message = "sequencer.yml:4:14: error: job 'copy': input '$SRC/in.txt': variable 'SRC' is not defined"
        for command in ["check", "run"] {
            let result = try await cli.run([command])
            #expect(result.status == 2, "\(command): \(result.output)")
            #expect(result.stderr.contains(message), "\(command): \(result.output)")
        }
    }

    @Test func twoDollarsAreOneDollarInAPath() async throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.write("sequencer.yml", """
            jobs:
              price:
                run: echo 5 > 'cost$.txt'
                outputs: [cost$$.txt]
            """)
        #expect(try await cli.run(["run"]).status == 0)
        #expect(cli.read("cost$.txt") == "5\n")
        // The output is found where the command wrote it: the job is up to date.
        let second = try await cli.run(["run"])
        #expect(second.counts == "1 up to date", "\(second.output)")
    }

    @Test func aFileANeedWritesIsInTheDependentsFingerprint() async throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.write("src/a.h", "a\n")
        try cli.write("sequencer.yml", """
            jobs:
              gen:
                run: echo g > src/gen.h
                outputs: [src/gen.h]
              use:
                needs: [gen]
                run: cat src/*.h > all.txt
                inputs: ["src/*.h"]
                outputs: [all.txt]
            """)
        #expect(try await cli.run(["run"]).status == 0)
        #expect(cli.read("all.txt") == "a\ng\n")
        // Had `use` been fingerprinted without src/gen.h (a walk from before gen ran), it would
        // see a new input now.
        let second = try await cli.run(["run", "--explain"])
        #expect(second.counts == "2 up to date", "\(second.output)")
        #expect(second.explanations.isEmpty, "\(second.output)")
    }

    @Test func aNoOpRunWalksEachGlobOnce() async throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.write("src/a.h", "a\n")
        try cli.write("src/deep/b.h", "b\n")
        var file = "jobs:\n"
        for job in 0..<6 {
            file += "  j\(job):\n    run: touch out\(job)\n    inputs: [\"src/**/*.h\"]\n    outputs: [out\(job)]\n"
            file += job > 0 ? "    needs: [j\(job - 1)]\n" : ""
        }
        try cli.write("sequencer.yml", file)
        let first = try await cli.run(["run"], environment: ["SEQUENCER_LOG": "debug"])
        #expect(first.status == 0, "\(first.output)")
        // Each job that ran may have written files: the next job's fingerprint walks again.
        #expect(first.stderr.contains("globWalks=6"), "\(first.stderr)")
        let noop = try await cli.run(["run"], environment: ["SEQUENCER_LOG": "debug"])
        #expect(noop.counts == "6 up to date", "\(noop.output)")
        #expect(noop.stderr.contains("globWalks=1"), "\(noop.stderr)")
    }
}
