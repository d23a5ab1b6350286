#if canImport(Glibc)
import Glibc
#endif
import Foundation
import SequencerTestHelpers
import SequencerTestSupport
import Testing

/// A `sequencer worker` killed with SIGKILL leaves none of its commands running: another worker
/// runs the job again after the lease, and it must not run twice at once.
@Suite(.suiteTimeLimit) struct WorkerKillTests {
    #if os(Linux)
    @Test func aKilledWorkersCommandAndWhatItStartedEndWithIt() async throws {
        let cli = try CLI()
        // A shell with a grandchild in its process group, both waiting for a long time.
        try cli.write("sequencer.yml", """
            version: 1
            jobs:
              a: sleep 1000 & echo $! > sleep.pid; echo $$ > shell.pid; wait
            """)
        let worker = try cli.start(["worker", "--queue", cli.path("q.sqlite")])
        let submitter = try cli.start(["run", "--queue", cli.path("q.sqlite")])
        #expect(await eventually { cli.read("shell.pid")?.hasSuffix("\n") == true })
        let pids = ["shell.pid", "sleep.pid"].compactMap { Int32(cli.read($0)?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "") }
        try #require(pids.count == 2 && pids.allSatisfy { !processHasEnded($0) }, "the command did not start: \(pids)")
        kill(worker.0.processIdentifier, SIGKILL)
        _ = try await cli.finish(worker.0, worker.1, worker.2)
        let gone = await eventually { pids.allSatisfy(processHasEnded) }
        for pid in pids where !processHasEnded(pid) { kill(pid, SIGKILL) }
        kill(submitter.0.processIdentifier, SIGKILL)
        _ = try await cli.finish(submitter.0, submitter.1, submitter.2)
        #expect(gone, "the killed worker's command (\(pids[0])) or its grandchild (\(pids[1])) still runs")
    }
    #endif
}
