import Foundation
import SequencerTestHelpers
import SequencerTestSupport
import Testing

/// Ctrl-C and SIGTERM: the run stops, every running job's process group is terminated (a job's
/// background processes too), and sequencer exits 130.
@Suite(.suiteTimeLimit)
struct InterruptTests {
    @Test(arguments: [SIGINT, SIGTERM])
    func aSignalTerminatesEveryJobsProcessGroupAndExits130(signal: Int32) async throws {
        let cli = try CLI()
        try cli.write("sequencer.yml", """
            jobs:
              one:
                run: sleep 100 & echo $! > one.pid; wait
              two:
                run: sleep 100 & echo $! > two.pid; wait
              later:
                needs: [one]
                run: touch later.txt
            """)
        let (process, stdout, stderr) = try cli.start(["run", "--jobs", "2"])
        let bothStarted = await eventually {
            (cli.read("one.pid")?.hasSuffix("\n") ?? false) && (cli.read("two.pid")?.hasSuffix("\n") ?? false)
        }
        #expect(bothStarted)
        kill(process.processIdentifier, signal)
        let result = try await cli.finish(process, stdout, stderr, limit: .seconds(20))
        #expect(result.status == 130, "\(result.output)")
        for name in ["one.pid", "two.pid"] {
            let pid = try #require(cli.read(name).flatMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) })
            #expect(await eventually { !processIsAlive(pid) }, "\(name) outlived sequencer")
        }
        #expect(!FileManager.default.fileExists(atPath: cli.path("later.txt")))
        #expect(result.stdout.contains("interrupted"))
    }

    @Test func aJobThatIgnoresSIGTERMIsKilledAfterTheGracePeriod() async throws {
        let cli = try CLI()
        try cli.write("sequencer.yml", """
            jobs:
              stubborn:
                run: trap '' TERM; echo $$ > shell.pid; while true; do sleep 0.05; done
            """)
        let (process, stdout, stderr) = try cli.start(["run", "--grace-period", "300ms"])
        #expect(await eventually { cli.read("shell.pid")?.hasSuffix("\n") ?? false })
        kill(process.processIdentifier, SIGINT)
        // The job never ends by itself: without the SIGKILL after the grace period the run
        // would outlast the limit and be killed (an issue, and not status 130). No wall-time
        // bound of its own, which a loaded machine under the sanitizer can exceed.
        let result = try await cli.finish(process, stdout, stderr, limit: .seconds(60))
        #expect(result.status == 130, "\(result.output)")
        let pid = try #require(cli.read("shell.pid").flatMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) })
        #expect(await eventually { !processIsAlive(pid) })
    }
}
