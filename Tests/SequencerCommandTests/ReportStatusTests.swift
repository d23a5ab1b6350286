import Foundation
import Testing
import SequencerTestHelpers

/// What the end of a run tells: up to date as a status of its own in `--json`, and a critical
/// path that names the job a waiting job waited for.
@Suite(.suiteTimeLimit)
struct ReportStatusTests {
    /// `run --json` used to file an up-to-date job under "skipped", next to jobs skipped
    /// because a need failed.
    @Test func runJSONGivesUpToDateItsOwnStatusAndCount() async throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.write("sequencer.yml", """
            version: 1
            jobs:
              built:
                run: echo made > built.txt
                outputs: [built.txt]
              broken:
                needs: [built]
                run: exit 3
              after:
                needs: [broken]
                run: touch after.txt
            """)
        #expect(try await cli.run(["run", "--keep-going"]).status == 1)
        let second = try await cli.run(["run", "--keep-going", "--json"])
        #expect(second.status == 1, "\(second.output)")
        let document = try second.jsonObject()
        let jobs = try #require(document["jobs"] as? [[String: Any]])
        let status = Dictionary(jobs.map { ($0["name"] as? String ?? "", $0["status"] as? String ?? "") }) { a, _ in a }
        #expect(status == ["built": "upToDate", "broken": "failed", "after": "skipped"])
        let counts = try #require(document["counts"] as? [String: Int])
        #expect(counts["upToDate"] == 1 && counts["skipped"] == 1 && counts["succeeded"] == 0, "\(counts)")
        #expect(second.stderr.contains("1 up to date, 1 failed, 1 skipped"), "\(second.stderr)")
    }

    /// One worker: "long" holds it while "short", ready as soon as "prepare" ended, waits. The
    /// path goes through "long" and says that "short" waited for a worker.
    @Test func theCriticalPathNamesTheJobThatHeldTheWorker() async throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.write("sequencer.yml", """
            version: 1
            jobs:
              prepare: "true"
              long: { run: sleep 0.3, needs: [prepare] }
              short: { run: "true", needs: [prepare] }
              link: { run: "true", needs: [long, short] }
            """)
        let result = try await cli.run(["run", "-j", "1", "--no-journal"])
        #expect(result.status == 0, "\(result.output)")
        let line = try #require(result.stdout.split(separator: "\n").first { $0.hasPrefix("critical path (") })
        let names = line.split(separator: ": ", maxSplits: 1).last?.components(separatedBy: " -> ")
            .map { $0.split(separator: " ").first.map(String.init) ?? "" }
        #expect(names == ["prepare", "long", "short", "link"], "\(line)")
        #expect(line.contains("short ") && line.contains("(waited ") && line.contains(" for a worker)"), "\(line)")
    }

    /// A critical path of more than 12 jobs shows its first and last five, and how many between.
    @Test func aLongCriticalPathShowsItsEnds() async throws {
        let cli = try CLI()
        defer { cli.remove() }
        var file = "jobs:\n"
        for job in 0..<20 { file += "  c\(job): { run: \"true\"\(job > 0 ? ", needs: [c\(job - 1)]" : "") }\n" }
        try cli.write("sequencer.yml", file)
        let result = try await cli.run(["run", "--no-journal"])
        #expect(result.status == 0, "\(result.output)")
        let line = try #require(result.stdout.split(separator: "\n").first { $0.hasPrefix("critical path (") })
        let steps = line.split(separator: ": ", maxSplits: 1).last?.components(separatedBy: " -> ") ?? []
        #expect(steps.map { $0.split(separator: " ").first.map(String.init) ?? "" }
            == ["c0", "c1", "c2", "c3", "c4", "(10", "c15", "c16", "c17", "c18", "c19"], "\(line)")
        #expect(steps[5] == "(10 more)", "\(line)")
    }
}
