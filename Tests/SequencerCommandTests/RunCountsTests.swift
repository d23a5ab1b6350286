import Foundation
import SequencerTestHelpers
import SequencerTestSupport
import Testing

/// The counts of a run agree wherever they are shown: `runs` (table and JSON), `show --json`
/// and what `resume` restores; up-to-date jobs are counted, and the counts add up to the jobs.
@Suite(.suiteTimeLimit)
struct RunCountsTests {
    /// Up-to-date jobs of a resumed run used to fall out of the counts ("2 jobs, 1 OK, 0
    /// failed, 0 skipped"), and `runs --json` had no up-to-date count.
    @Test func aResumedRunCountsItsUpToDateJobs() async throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.write("sequencer.yml", """
            jobs:
              built:
                run: echo made > built.txt
                outputs: [built.txt]
              check:
                needs: [built]
                run: test -f ok
            """)
        #expect(try await cli.run(["run"]).status == 1)
        #expect(try await cli.run(["run"]).status == 1)  // #2: built is up to date, check fails again
        try cli.write("ok", "")
        let resumed = try await cli.run(["resume", "2"])
        #expect(resumed.status == 0, "\(resumed.output)")

        let runs = try await cli.run(["runs", "--json"]).jsonArray()
        let second = try #require(runs.first { $0["id"] as? Int == 2 })
        #expect(second["jobs"] as? Int == 2)
        #expect(second["succeeded"] as? Int == 1 && second["upToDate"] as? Int == 1, "\(second)")
        let parts = ["succeeded", "upToDate", "failed", "skipped", "cancelled", "timedOut", "unfinished"]
        for run in runs {
            #expect(parts.map { run[$0] as? Int ?? -1 }.reduce(0, +) == run["jobs"] as? Int, "counts must add up: \(run)")
        }
        let table = try await cli.run(["runs"])
        let rows = table.stdout.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
        let header = try #require(rows.first)
        let row = try #require(rows.first { $0.first == "#2" })
        let column = { (name: String) in header.firstIndex(of: name).map { row[row.count - header.count + $0] } }
        #expect(column("OK") == "1" && column("UP-TO-DATE") == "1" && column("SKIPPED") == "0", "\(table.stdout)")

        let shown = try await cli.run(["show", "2", "--json"]).jsonObject()
        let entry = try #require(shown["run"] as? [String: Any])
        #expect(parts.map { entry[$0] as? Int } == parts.map { second[$0] as? Int }, "show and runs differ: \(entry)")
    }

    /// After a kill -9, `runs` showed 0 OK while `resume` said jobs were done before: the run's
    /// counts were written only at its end.
    @Test func aKilledRunIsCountedAsFarAsItsRecordsGo() async throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.write("sequencer.yml", """
            jobs:
              a: echo a > a.txt
              b: echo b > b.txt
              wait:
                needs: [a, b]
                run: while [ ! -f go ]; do sleep 0.02; done
            """)
        let (process, stdout, stderr) = try cli.start(["run"])
        // The gate: both quick jobs are in the journal as succeeded.
        let recorded = await eventually {
            guard let shown = try? runShown(cli), let jobs = shown["jobs"] as? [[String: Any]] else { return false }
            return jobs.count { $0["status"] as? String == "succeeded" } == 2
        }
        #expect(recorded)
        kill(process.processIdentifier, SIGKILL)
        _ = try await cli.finish(process, stdout, stderr)
        cli.release()  // the orphaned job ends

        let runs = try await cli.run(["runs", "--json"]).jsonArray()
        let run = try #require(runs.first)
        #expect(run["state"] as? String == "interrupted")
        #expect(run["succeeded"] as? Int == 2, "\(run)")
        #expect(run["unfinished"] as? Int == 1, "\(run)")
        let shown = try await cli.run(["show"])
        #expect(shown.stdout.contains("\njobs: 2 succeeded, 1 unfinished\n"), "\(shown.output)")

        let resumed = try await cli.run(["resume"])
        #expect(resumed.status == 0, "\(resumed.output)")
        #expect(resumed.counts == "2 done before, 1 succeeded", "\(resumed.output)")
        let after = try #require(try await cli.run(["runs", "--json"]).jsonArray().first)
        #expect(after["succeeded"] as? Int == 3 && after["unfinished"] as? Int == 0, "\(after)")
    }

    /// A job that succeeds without writing a declared output reruns every time: it is warned
    /// about, as a depfile that was not written is.
    @Test func anOutputNotWrittenIsAWarning() async throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.write("sequencer.yml", """
            jobs:
              gen:
                run: echo made > made.txt
                outputs: [made.txt, forgotten.txt]
            """)
        let result = try await cli.run(["run"])
        #expect(result.status == 0, "\(result.output)")
        #expect(result.stderr.contains(
            "sequencer.yml:4:25: warning: job 'gen' succeeded without writing its output forgotten.txt; it will run every time until it writes it"),
            "\(result.output)")
        #expect(!result.stderr.contains("made.txt;"), "\(result.output)")
    }
}

/// `show last --json` of the file in `cli`'s directory, read while a run may be going on.
private func runShown(_ cli: CLI) throws -> [String: Any]? {
    let process = Process()
    process.executableURL = CLI.binary
    process.arguments = ["show", "last", "--json"]
    process.currentDirectoryURL = cli.directory
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = FileHandle.nullDevice
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return try JSONSerialization.jsonObject(with: data) as? [String: Any]
}
