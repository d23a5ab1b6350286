import Foundation
import SequencerJournal
import SequencerTestHelpers
import SequencerTestSupport
import Testing

/// `sequencer run --dry-run`: each job as would run (with `--explain`'s reason) or up to date,
/// in run order, with nothing run and nothing written.
@Suite(.suiteTimeLimit)
struct DryRunTests {
    private static let workflow = """
        jobs:
          gen:
            run: echo g >> ran.log; cat src.txt > gen.txt
            inputs: [src.txt]
            outputs: [gen.txt]
          use:
            needs: [gen]
            run: echo u >> ran.log; cat gen.txt > out/use.txt
            outputs: [out/use.txt]
          other:
            run: echo o >> ran.log; cat other.txt > other.out
            inputs: [other.txt]
            outputs: [other.out]
          stamp: echo s >> ran.log
        """

    private func project() throws -> CLI {
        let cli = try CLI()
        try cli.write("src.txt", "one\n")
        try cli.write("other.txt", "other\n")
        try cli.write("sequencer.yml", Self.workflow)
        return cli
    }

    @Test func withoutAJournalEveryJobWouldRunAndNothingIsWritten() async throws {
        let cli = try project()
        defer { cli.remove() }
        let before = try tree(cli.directory)
        let result = try await cli.run(["run", "-n"])
        #expect(result.status == 0, "\(result.output)")
        #expect(result.stdout == """
            would run  gen: no earlier success is recorded
            would run  use: no earlier success is recorded
            would run  other: no earlier success is recorded
            would run  stamp: it declares no outputs, so it always runs
            sequencer: 4 of 4 jobs would run

            """, "\(result.output)")
        #expect(try tree(cli.directory) == before)
        #expect(!FileManager.default.fileExists(atPath: cli.path(".sequencer")))
    }

    @Test func afterARunItSaysWhatChangedAndTouchesNeitherTheJournalNorTheOutputs() async throws {
        let cli = try project()
        defer { cli.remove() }
        #expect(try await cli.run(["run"]).status == 0)
        try cli.write("src.txt", "two\n")
        let before = try tree(cli.directory)
        let result = try await cli.run(["run", "--dry-run"])
        #expect(result.status == 0, "\(result.output)")
        #expect(result.stdout == """
            would run  gen: input src.txt changed
            would run  use: needed job 'gen' changed
            up to date other
            would run  stamp: it declares no outputs, so it always runs
            sequencer: 3 of 4 jobs would run

            """, "\(result.output)")
        #expect(try tree(cli.directory) == before, "the dry run changed files")
        #expect(cli.lines("ran.log") == 4)

        // The real run does what the dry run said.
        let real = try await cli.run(["run", "--explain"])
        #expect(real.explanations.sorted() == [
            "explain: gen runs: input src.txt changed", "explain: stamp runs: it declares no outputs, so it always runs",
            "explain: use runs: needed job 'gen' changed",
        ], "\(real.output)")

        // The journal keeps the same words for each run, with --explain or without (for the
        // web page's job page), and each checked job's fingerprint: the job that was up to date
        // has no reason and its fingerprint of the run before; the changed one another.
        let journal = try SQLiteJournal(readingOnly: cli.path(".sequencer/journal.sqlite"))
        let first = try journal.jobChecks(of: 1)
        #expect(first.checked == true && first.jobs.count == 4)
        #expect(first.jobs["gen"]?.reason == "no earlier success is recorded")
        let second = try journal.jobChecks(of: 2)
        let reasons = second.jobs.compactMapValues(\.reason)
        #expect(reasons.map { "explain: \($0.key) runs: \($0.value)" }.sorted() == real.explanations.sorted())
        #expect(second.jobs["other"]?.reason == nil && second.jobs["other"]?.fingerprint == first.jobs["other"]?.fingerprint)
        #expect(second.jobs["gen"]?.fingerprint != first.jobs["gen"]?.fingerprint)
        #expect(second.jobs["stamp"]?.fingerprint == first.jobs["stamp"]?.fingerprint)

        // `show --explain` prints the same lines again, from the journal; `show --json` has them.
        let shown = try await cli.run(["show", "2", "--explain"])
        #expect(shown.explanations.sorted() == real.explanations.sorted(), "\(shown.output)")
        let document = try JSONSerialization.jsonObject(with: Data(try await cli.run(["show", "2", "--json"]).stdout.utf8)) as? [String: Any]
        let jobs = (document?["jobs"] as? [[String: Any]]) ?? []
        let byName = Dictionary(jobs.map { ($0["name"] as? String ?? "", $0) }) { first, _ in first }
        #expect(byName["gen"]?["reason"] as? String == "input src.txt changed")
        #expect(byName["other"]?["reason"] == nil && byName["other"]?["fingerprint"] as? String == second.jobs["other"]?.fingerprint)
    }

    /// `use` reads gen.txt without declaring it: remaking it changes no fingerprint of `use`,
    /// so the run skips `use` as up to date, and the dry run says so (it used to say "would run").
    @Test func aJobWhoseNeedOnlyRemakesItsOutputsIsUpToDate() async throws {
        let cli = try project()
        defer { cli.remove() }
        #expect(try await cli.run(["run"]).status == 0)
        try FileManager.default.removeItem(atPath: cli.path("gen.txt"))
        let result = try await cli.run(["run", "sequencer.yml", "-n", "use"])
        #expect(result.status == 0, "\(result.output)")
        #expect(result.stdout == """
            would run  gen: output gen.txt is missing
            up to date use
            sequencer: 1 of 2 jobs would run

            """, "\(result.output)")
        #expect(try await cli.run(["run", "sequencer.yml", "use"]).counts == "1 up to date, 1 succeeded")
    }

    /// A needed job without outputs runs every time but changes no fingerprint: the real run
    /// skips the job that needs it as up to date, and so does the dry run.
    @Test func aNeededJobWithoutOutputsMakesNothingRun() async throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.write("sequencer.yml", """
            jobs:
              prepare: echo p >> ran.log
              build:
                needs: [prepare]
                run: echo b >> ran.log; echo built > out.txt
                outputs: [out.txt]
            """)
        #expect(try await cli.run(["run"]).status == 0)
        let dry = try await cli.run(["run", "-n"])
        #expect(dry.stdout == """
            would run  prepare: it declares no outputs, so it always runs
            up to date build
            sequencer: 1 of 2 jobs would run

            """, "\(dry.output)")
        #expect(try await cli.run(["run"]).counts == "1 up to date, 1 succeeded")
    }

    @Test func forceAndJSON() async throws {
        let cli = try project()
        defer { cli.remove() }
        #expect(try await cli.run(["run"]).status == 0)
        let result = try await cli.run(["run", "sequencer.yml", "-n", "--force", "--json", "other"])
        #expect(result.status == 0, "\(result.output)")
        #expect(result.stderr.isEmpty, "\(result.output)")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let jobs = try #require(document["jobs"] as? [[String: String]])
        #expect(jobs == [["name": "other", "action": "run", "reason": "--force"]])
        #expect(document["totals"] as? [String: Int] == ["jobs": 1, "run": 1, "mayRun": 0, "skip": 0])

        let skipped = try await cli.run(["run", "-n", "--json", "sequencer.yml", "other"])
        let skippedJobs = try #require(
            (try JSONSerialization.jsonObject(with: Data(skipped.stdout.utf8)) as? [String: Any])?["jobs"] as? [[String: String]])
        #expect(skippedJobs == [["name": "other", "action": "skip", "reason": "up to date"]])
    }

    @Test func withoutTheJournalEveryJobWouldRun() async throws {
        let cli = try project()
        defer { cli.remove() }
        #expect(try await cli.run(["run"]).status == 0)
        let result = try await cli.run(["run", "-n", "--no-journal"])
        #expect(result.status == 0, "\(result.output)")
        #expect(result.stdout.contains("would run  other: --no-journal: nothing is up to date"), "\(result.output)")
        #expect(result.stdout.hasSuffix("sequencer: 4 of 4 jobs would run\n"), "\(result.output)")
    }

    @Test(arguments: [["--watch"], ["--queue", "queue.sqlite"]])
    func itCannotBeCombinedWith(_ options: [String]) async throws {
        let cli = try project()
        defer { cli.remove() }
        let result = try await cli.run(["run", "-n"] + options)
        #expect(result.status == 2, "\(result.output)")
        #expect(result.stderr.contains("--dry-run"), "\(result.output)")
        #expect(cli.lines("ran.log") == 0)
    }

    @Test func anInvalidFileExitsWith2() async throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.write("sequencer.yml", "jobs:\n  a:\n    neds: [b]\n    run: true\n")
        let result = try await cli.run(["run", "-n"])
        #expect(result.status == 2, "\(result.output)")
        #expect(result.stderr.contains("unknown key 'neds'"), "\(result.output)")
    }
}

/// Every file and directory under `root`, by relative path, with each file's bytes (a
/// directory's are empty).
func tree(_ root: URL) throws -> [String: Data] {
    var entries: [String: Data] = [:]
    let files = FileManager.default
    guard let walker = files.enumerator(atPath: root.path) else { return [:] }
    while let relative = walker.nextObject() as? String {
        let isDirectory = walker.fileAttributes?[.type] as? FileAttributeType == .typeDirectory
        entries[relative] = isDirectory ? Data() : try Data(contentsOf: root.appendingPathComponent(relative))
    }
    return entries
}
