import Foundation
import SequencerTestHelpers
import SequencerTestSupport
import Testing

/// A run whose every job is up to date ends without starting any (the jobs are decided in one
/// pass before the run would start): the same lines, exit status and journal records as a run
/// that started them and found each up to date.
@Suite(.suiteTimeLimit)
struct NoOpRunTests {
    static let yaml = """
        jobs:
          gen:
            run: echo g >> gen.count; cat src.txt > gen.txt
            inputs: [src.txt]
            outputs: [gen.txt]
          use:
            needs: [gen]
            run: echo u >> use.count; cat gen.txt > out/use.txt
            outputs: [out/use.txt]
        """

    @Test func aNoOpRunPrintsRecordsAndShowsAsBefore() async throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.write("src.txt", "one\n")
        try cli.write("sequencer.yml", Self.yaml)
        #expect(try await cli.run(["run"]).status == 0)

        let noOp = try await cli.run(["run", "--verbose"])
        #expect(noOp.status == 0, "\(noOp.output)")
        let lines = noOp.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "sequencer: run #2 of sequencer.yml", "\(noOp.output)")
        #expect(lines.dropFirst().prefix(2) == ["[1/2] up to date gen", "[2/2] up to date use"], "\(noOp.output)")
        #expect(lines.last?.hasPrefix("sequencer: succeeded: 2 jobs in ") == true, "\(noOp.output)")
        #expect(lines.last?.hasSuffix(": 2 up to date") == true, "\(noOp.output)")
        #expect(lines.count == 4, "no critical path: up-to-date jobs take no time")
        #expect(noOp.stderr.isEmpty, "\(noOp.stderr)")
        #expect(cli.lines("gen.count") == 1 && cli.lines("use.count") == 1)
        // Without --verbose: the run line and the summary.
        let quiet = try await cli.run(["run"])
        #expect(quiet.stdout.split(separator: "\n").count == 2, "\(quiet.output)")
        #expect(!FileManager.default.fileExists(atPath: cli.path(".sequencer/output/3")), "no output directory for a run that ran nothing")

        let runs = try await cli.run(["runs", "--json"]).jsonArray()
        #expect(runs.map { $0["id"] as? Int } == [3, 2, 1])
        #expect(runs.map { $0["state"] as? String } == ["succeeded", "succeeded", "succeeded"])
        #expect(runs.map { $0["jobs"] as? Int } == [2, 2, 2])
        #expect(runs.map { $0["upToDate"] as? Int } == [2, 2, 0])
        #expect(runs.map { $0["skipped"] as? Int } == [0, 0, 0])
        #expect(runs.map { $0["succeeded"] as? Int } == [0, 0, 2])
        let shown = try await cli.run(["show", "2", "--json"]).jsonObject()
        let jobs = try #require(shown["jobs"] as? [[String: Any]])
        #expect(jobs.map { $0["name"] as? String } == ["gen", "use"])
        #expect(jobs.map { $0["status"] as? String } == ["upToDate", "upToDate"])
        #expect(jobs.map { $0["attempts"] as? Int } == [1, 1])
        #expect(jobs.map { $0["duration"] as? Double } == [0, 0], "no job took the pass's time")
        let text = try await cli.run(["show", "2"])
        #expect(text.stdout.contains("run #2 of \(cli.path("sequencer.yml")): succeeded, 2 jobs"), "\(text.stdout)")
        #expect(text.stdout.split(separator: "\n").filter { $0.contains("up to date") }.count == 3, "\(text.stdout)")
        #expect(text.stdout.contains("\njobs: 2 up to date\n"), "\(text.stdout)")

        // The run after a change runs what changed, and explains it, as before.
        try cli.write("src.txt", "two\n")
        let changed = try await cli.run(["run", "--explain"])
        #expect(changed.status == 0)
        #expect(changed.stdout.contains("explain: gen runs: input src.txt changed"), "\(changed.output)")
        #expect(changed.stdout.contains("explain: use runs: needed job 'gen' changed"), "\(changed.output)")
        #expect(cli.lines("gen.count") == 2 && cli.lines("use.count") == 2)
        #expect(try await cli.run(["run", "--force"]).stdout.contains("2 succeeded"))
        #expect(cli.lines("gen.count") == 3)
    }

    /// With `--json` (a report to print) the run starts as before, its jobs found up to date.
    @Test func withJSONTheReportIsPrintedAsBefore() async throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.write("src.txt", "one\n")
        try cli.write("sequencer.yml", Self.yaml)
        #expect(try await cli.run(["run"]).status == 0)
        let report = try await cli.run(["run", "--json"]).jsonObject()
        let counts = try #require(report["counts"] as? [String: Int])
        #expect(counts["upToDate"] == 2 && counts["succeeded"] == 0)
    }

    /// A run selecting jobs (`run use`) is up to date for those jobs and what they need.
    @Test func aSelectionIsUpToDateToo() async throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.write("src.txt", "one\n")
        try cli.write("sequencer.yml", Self.yaml + "\n  stamp: echo s >> stamp.count\n")
        #expect(try await cli.run(["run"]).status == 0)
        let selected = try await cli.run(["run", "sequencer.yml", "use"])
        #expect(selected.status == 0, "\(selected.output)")
        #expect(selected.stdout.contains(": 2 up to date"), "\(selected.output)")
        #expect(cli.lines("stamp.count") == 1)
    }
}
