import Foundation
import SequencerTestHelpers
import SequencerTestSupport
import Testing

/// Ctrl-C and kill -9 during a ninja build: what ended is kept, what was cut short is never
/// trusted, and the next build finishes the job.
@Suite(.suiteTimeLimit)
struct NinjaInterruptTests {
    /// `slow.out` is written in two steps with a long wait between them, unless `fast` exists;
    /// `quick.out` comes first, and `after` reads `slow.out`. Each command appends its output's
    /// name to `ran.log`.
    static let manifest = """
        rule quick
          command = echo quick > $out && echo $out >> ran.log
        rule slow
          command = echo $out >> ran.log; echo partial > $out; if [ -f fast ]; then echo full > $out; else echo $$$$ > slow.pid; sleep 100; fi
        rule cat
          command = cat $in > $out && echo $out >> ran.log
        build quick.out: quick
        build slow.out: slow quick.out
        build after: cat slow.out

        """

    func ran(_ cli: CLI) -> [String] {
        (cli.read("ran.log") ?? "").split(separator: "\n").map(String.init)
    }

    /// Starts a build and waits until the slow command is in its wait.
    func startUntilSlow(_ cli: CLI) async throws -> (Process, Pipe, Pipe, Int32) {
        let started = try cli.start(["ninja", "-j", "2"])
        #expect(await eventually { cli.read("slow.pid")?.hasSuffix("\n") ?? false })
        let pid = try #require(cli.read("slow.pid").flatMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) })
        return (started.0, started.1, started.2, pid)
    }

    /// The next build, once the slow command is fast: the cut edge runs again, what ended
    /// before does not.
    func finishesTheJob(_ cli: CLI) async throws {
        try cli.write("fast", "")
        let again = try await cli.run(["ninja", "-j", "2"])
        #expect(again.status == 0, "\(again.output)")
        #expect(ran(cli) == ["quick.out", "slow.out", "slow.out", "after"])
        #expect(cli.read("slow.out") == "full\n")
        #expect(cli.read("after") == "full\n")
    }

    @Test func ctrlCStopsTheBuildAndTheCutEdgeRunsAgain() async throws {
        let cli = try CLI()
        try cli.write("build.ninja", Self.manifest)
        let (process, stdout, stderr, shell) = try await startUntilSlow(cli)
        kill(process.processIdentifier, SIGINT)
        let result = try await cli.finish(process, stdout, stderr, limit: .seconds(30))
        #expect(result.status == 2, "\(result.output)")
        #expect(result.stdout.hasSuffix("ninja: build stopped: interrupted by user.\n"), "\(result.stdout)")
        #expect(await eventually { !processIsAlive(shell) }, "the command outlived the build")
        #expect(cli.read("after") == nil)
        let runs = try await cli.run(["runs", "-f", "build.ninja", "--json"])
        let list = try #require(try JSONSerialization.jsonObject(with: Data(runs.stdout.utf8)) as? [[String: Any]])
        #expect(list.first?["state"] as? String == "cancelled", "\(runs.output)")
        try await finishesTheJob(cli)
    }

    @Test func killNineLeavesNothingHalfWrittenTrusted() async throws {
        let cli = try CLI()
        try cli.write("build.ninja", Self.manifest)
        let (process, stdout, stderr, shell) = try await startUntilSlow(cli)
        kill(process.processIdentifier, SIGKILL)
        // The command's process group outlives its parent: ended here, as the machine's
        // stop would end it.
        kill(-shell, SIGKILL)
        let result = try await cli.finish(process, stdout, stderr, limit: .seconds(30))
        #expect(result.status == SIGKILL || result.status == 128 + SIGKILL, "\(result.output)")
        #expect(cli.read("slow.out") == "partial\n")
        let runs = try await cli.run(["runs", "-f", "build.ninja", "--json"])
        let list = try #require(try JSONSerialization.jsonObject(with: Data(runs.stdout.utf8)) as? [[String: Any]])
        #expect(list.first?["state"] as? String == "interrupted", "\(runs.output)")
        try await finishesTheJob(cli)
    }
}
