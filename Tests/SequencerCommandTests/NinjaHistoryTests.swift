import Foundation
import SequencerTestHelpers
import SequencerTestSupport
import Testing

/// A ninja build in the journal: `runs`, `show` (why each edge ran), `trace` and `clean` read a
/// build of `build.ninja` as they read a workflow file's run.
@Suite(.suiteTimeLimit)
struct NinjaHistoryTests {
    static let manifest = """
        rule cat
          command = cat $in > $out && echo built $out
          description = CAT $out
        rule fail
          command = echo oops; exit 3
        build mid: cat src
        build out: cat mid
        build bad: fail out
        default out

        """

    func ninja(_ cli: CLI, _ arguments: [String] = []) async throws -> CLI.Result {
        try await cli.run(["ninja"] + arguments)
    }

    func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test func eachBuildThatRunsSomethingIsARunWithWhyEachEdgeRan() async throws {
        let cli = try CLI()
        try cli.write("build.ninja", Self.manifest)
        try cli.write("src", "s\n")
        #expect(try await ninja(cli).status == 0)
        // A no-op is not recorded.
        #expect(try await ninja(cli).stdout == "ninja: no work to do.\n")
        try cli.write("src", "t\n")
        #expect(try await ninja(cli, ["bad"]).status == 1)

        let runs = try await cli.run(["runs", "-f", "build.ninja", "--json"])
        #expect(runs.status == 0, "\(runs.output)")
        let list = try #require(try JSONSerialization.jsonObject(with: Data(runs.stdout.utf8)) as? [[String: Any]])
        #expect(list.map { $0["state"] as? String } == ["failed", "succeeded"])
        #expect(list.map { $0["jobs"] as? Int } == [3, 2])

        let shown = try await cli.run(["show", "-f", "build.ninja", "--json", "last"])
        #expect(shown.status == 0, "\(shown.output)")
        let jobs = try #require(try json(shown.stdout)["jobs"] as? [[String: Any]])
        let byName = Dictionary(uniqueKeysWithValues: jobs.map { ($0["name"] as? String ?? "", $0) })
        #expect(byName["mid"]?["status"] as? String == "succeeded")
        #expect(byName["mid"]?["reason"] as? String == "input src changed")
        #expect(byName["out"]?["reason"] as? String == "input mid changed")
        #expect(byName["bad"]?["status"] as? String == "failed")
        #expect(byName["bad"]?["exitCode"] as? Int == 3)

        // The failed command's output is kept with the run.
        let output = try await cli.run(["show", "-f", "build.ninja", "last", "--output", "bad"])
        #expect(output.stdout == "oops\n", "\(output.output)")

        // The trace lays the run out from the graph recorded with it (build.ninja is no YAML).
        let trace = try await cli.run(["trace", "-f", "build.ninja", "last"])
        #expect(trace.status == 0, "\(trace.output)")
        let events = try #require(try json(trace.stdout)["traceEvents"] as? [[String: Any]])
        let slices = events.filter { $0["ph"] as? String == "X" && $0["cat"] as? String != "critical" }
        #expect(Set(slices.compactMap { $0["name"] as? String }) == ["mid", "out", "bad"])
        let command = slices.first { $0["name"] as? String == "mid" }.flatMap { ($0["args"] as? [String: Any])?["command"] as? String }
        #expect(command == "cat src > mid && echo built mid")
    }

    /// The journal keeps each success's fingerprint part by part, so a rerun says what changed.
    @Test func theReasonNamesThePartThatChanged() async throws {
        let cli = try CLI()
        try cli.write("build.ninja", Self.manifest)
        try cli.write("src", "s\n")
        #expect(try await ninja(cli).status == 0)
        try cli.write("build.ninja", Self.manifest.replacingOccurrences(of: "echo built", with: "echo made"))
        #expect(try await ninja(cli).status == 0)
        try cli.write("mid", "edited by hand\n")
        #expect(try await ninja(cli).status == 0)
        let reasons = { (run: String) async throws -> [String?] in
            let shown = try await cli.run(["show", "-f", "build.ninja", "--json", run])
            return try #require(try self.json(shown.stdout)["jobs"] as? [[String: Any]]).map { $0["reason"] as? String }
        }
        #expect(try await reasons("2") == ["the command changed", "the command changed"])
        // mid comes out as it was: out is up to date, and has no reason.
        #expect(try await reasons("3") == ["output mid changed since it was built", nil])
        // `-d explain` says the same.
        try cli.write("src", "t\n")
        let explained = try await ninja(cli, ["-d", "explain"])
        #expect(explained.stderr.contains("ninja explain: mid: input src changed\n"), "\(explained.stderr)")
        #expect(explained.stderr.contains("ninja explain: out runs: input mid changed\n"), "\(explained.stderr)")
    }

    @Test func anEdgeThatCameOutTheSameIsRecordedUpToDate() async throws {
        let cli = try CLI()
        try cli.write("build.ninja", """
            rule copy
              command = cp $in $out
            rule first
              command = head -c 1 $in > $out
            build head: first src
            build out: copy head

            """)
        try cli.write("src", "abc\n")
        #expect(try await ninja(cli).status == 0)
        try cli.write("src", "axyz\n")
        #expect(try await ninja(cli).stdout == "[1/2] head -c 1 src > head\n")
        let shown = try await cli.run(["show", "-f", "build.ninja", "--json", "last"])
        let jobs = try #require(try json(shown.stdout)["jobs"] as? [[String: Any]])
        #expect(jobs.map { $0["name"] as? String } == ["head", "out"])
        #expect(jobs.map { $0["status"] as? String } == ["succeeded", "upToDate"])
    }

    @Test func cleanDeletesWhatNinjasCleanDeletes() async throws {
        let cli = try CLI()
        try cli.write("build.ninja", Self.manifest)
        try cli.write("src", "s\n")
        #expect(try await ninja(cli).status == 0)
        let dry = try await cli.run(["clean", "-f", "build.ninja", "-n"])
        #expect(dry.status == 0, "\(dry.output)")
        #expect(cli.read("out") == "s\n")
        let clean = try await cli.run(["clean", "-f", "build.ninja"])
        #expect(clean.stdout == "Cleaning... 2 files.\n", "\(clean.output)")
        #expect(cli.read("out") == nil)
        #expect(cli.read("mid") == nil)
        #expect(cli.read("src") == "s\n")
    }

    /// The journal is a record here: a damaged one is set aside, with a warning, and the build
    /// goes on, recorded in a new one.
    @Test func aDamagedJournalIsSetAsideAndTheBuildGoesOn() async throws {
        let cli = try CLI()
        try cli.write("build.ninja", Self.manifest)
        try cli.write("src", "s\n")
        try cli.write(".sequencer/journal.sqlite", String(repeating: "not a database ", count: 300))
        let result = try await ninja(cli)
        #expect(result.status == 0, "\(result.output)")
        #expect(result.stderr.contains("is damaged"), "\(result.stderr)")
        #expect(result.stderr.contains("set aside as"), "\(result.stderr)")
        #expect(cli.read("out") == "s\n")
        // The file itself (beside it, the marker that says why it was set aside).
        let aside = try FileManager.default.contentsOfDirectory(atPath: cli.path(".sequencer"))
            .filter { $0.wholeMatch(of: /journal\.sqlite\.damaged-[0-9]{8}-[0-9]{6}/) != nil }
        #expect(aside.count == 1)
        let runs = try await cli.run(["runs", "-f", "build.ninja", "--json"])
        let list = try #require(try JSONSerialization.jsonObject(with: Data(runs.stdout.utf8)) as? [[String: Any]])
        #expect(list.count == 1)
    }
}
