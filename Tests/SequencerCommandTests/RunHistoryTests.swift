import Foundation
import Testing
import SequencerTestHelpers

/// A journal of bounded size: old runs deleted after each run, and no empty log files.
@Suite(.suiteTimeLimit)
struct RunHistoryTests {
    @Test func runAndResumeKeepTheNewestRunsOfTheFile() async throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.write("sequencer.yml", "jobs:\n  greet: echo hello\n")
        for _ in 1...3 { #expect(try await cli.run(["run", "--keep-runs", "2"]).status == 0) }
        #expect(try await cli.run(["runs", "--json"]).jsonArray().map { $0["id"] as? Int } == [3, 2])
        #expect(!FileManager.default.fileExists(atPath: cli.path(".sequencer/output/1")))
        #expect(FileManager.default.fileExists(atPath: cli.path(".sequencer/output/2/greet.log")))

        let fromEnvironment = try await cli.run(["run"], environment: ["SEQUENCER_KEEP_RUNS": "1"])
        #expect(fromEnvironment.status == 0, "\(fromEnvironment.output)")
        #expect(try await cli.run(["runs", "--json"]).jsonArray().map { $0["id"] as? Int } == [4])
        #expect(!FileManager.default.fileExists(atPath: cli.path(".sequencer/output/3")))

        for _ in 1...2 { #expect(try await cli.run(["run", "--keep-runs", "0"]).status == 0) }
        #expect(try await cli.run(["runs", "--json"]).jsonArray().map { $0["id"] as? Int } == [6, 5, 4])
    }

    /// Resuming the last run keeps the newest; resuming a run older than the kept ones does
    /// not delete it.
    @Test(arguments: [("last", [2]), ("1", [2, 1])])
    func resumeKeepsTheNewestRunsToo(resumed run: String, kept: [Int]) async throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.write("sequencer.yml", "jobs:\n  wait: test -f go\n")
        for _ in 1...2 { #expect(try await cli.run(["run", "--keep-runs", "0"]).status == 1) }
        cli.release()
        let resumed = try await cli.run(["resume", run, "--keep-runs", "1"])
        #expect(resumed.status == 0, "\(resumed.output)")
        #expect(try await cli.run(["runs", "--json"]).jsonArray().map { $0["id"] as? Int } == kept)
    }

    @Test func aNegativeNumberOfRunsIsAUsageError() async throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.write("sequencer.yml", "jobs:\n  greet: touch ran\n")
        let option = try await cli.run(["run", "--keep-runs=-1"])
        #expect(option.status == 2)
        #expect(option.stderr.contains("--keep-runs must be at least 0"), "\(option.output)")
        let variable = try await cli.run(["run"], environment: ["SEQUENCER_KEEP_RUNS": "many"])
        #expect(variable.status == 2)
        #expect(variable.stderr.contains("SEQUENCER_KEEP_RUNS must be a number of runs (0 keeps all), not 'many'"),
                "\(variable.output)")
        #expect(!FileManager.default.fileExists(atPath: cli.path("ran")))
    }

    @Test func aJobThatPrintedNothingLeavesNoLogFile() async throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.write("sequencer.yml", """
            jobs:
              silent: "true"
              loud: echo loud
            """)
        #expect(try await cli.run(["run"]).status == 0)
        #expect(!FileManager.default.fileExists(atPath: cli.path(".sequencer/output/1/silent.log")))
        #expect(cli.read(".sequencer/output/1/loud.log") == "loud\n")

        let silentOutput = try await cli.run(["show", "--output", "silent"])
        #expect(silentOutput.status == 0, "\(silentOutput.output)")
        #expect(silentOutput.stdout.isEmpty)
        #expect(try await cli.run(["show", "--output", "loud"]).stdout == "loud\n")
    }

    @Test func aRunWhoseJobsPrintedNothingLeavesNoOutputDirectory() async throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.write("sequencer.yml", """
            jobs:
              silent: "true"
              failing: exit 3
            """)
        let result = try await cli.run(["run", "--keep-going"])
        #expect(result.status == 1, "\(result.output)")
        #expect(result.stdout.contains("FAILED failing (exit code 3"), "\(result.output)")
        #expect(!FileManager.default.fileExists(atPath: cli.path(".sequencer/output/1")))
        #expect(FileManager.default.fileExists(atPath: cli.path(".sequencer/journal.sqlite")))
    }
}
