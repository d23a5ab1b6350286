#if canImport(Glibc)
import Glibc
#endif
import Foundation
import SequencerTestHelpers
import SequencerTestSupport
import Testing

/// A `sequencer worker` parted from the queue past its lease (stopped with SIGSTOP, as a network
/// partition or a long pause would), while its command runs on: another worker runs the job
/// again; when the first comes back, its heartbeat hears that the job is no longer its own, its
/// command's process group is killed, and its late end is refused.
@Suite(.suiteTimeLimit) struct WorkerPartitionTests {
    #if os(Linux)
    @Test(arguments: QueueKind.testable)
    func aWorkerBackFromAPartitionKillsItsCommandAndItsLateEndIsRefused(_ kind: QueueKind) async throws {
        let cli = try CLI()
        try await kind.withQueue(in: cli) { queue in
            // Each attempt leaves `started-SHELL` naming its background sleep. The first waits
            // for good; the second (another file is there) stops its sleep and succeeds.
            try cli.write("sequencer.yml", """
                version: 1
                jobs:
                  a: sleep 300 & echo $! > started-$$; if [ $(ls started-* | wc -l) -ge 2 ]; then kill $!; exit 0; fi; wait
                """)
            let options = ["--queue", queue, "--lease", "2s", "--heartbeat", "300ms", "-j", "1"]
            let first = try cli.start(["worker"] + options)
            let submitter = try cli.start(["run", "--queue", queue])
            #expect(await eventually { starts(in: cli).count == 1 })
            let firstSleep = try #require(starts(in: cli).first)
            var second: (Process, Pipe, Pipe)?
            // Stopped in the middle of a transaction (rare), the first worker would hold up the
            // second: then it goes on, and is stopped again a moment later.
            for _ in 0..<3 {
                kill(first.0.processIdentifier, SIGSTOP)
                if second == nil { second = try cli.start(["worker"] + options) }
                if await eventually(within: .seconds(60), { starts(in: cli).count >= 2 }) { break }
                kill(first.0.processIdentifier, SIGCONT)
                try await Task.sleep(for: .milliseconds(150))
            }
            #expect(starts(in: cli).count == 2, "no second attempt while the first worker was stopped")
            let submitted = try await cli.finish(submitter.0, submitter.1, submitter.2)
            #expect(submitted.status == 0, "\(submitted.output)")
            #expect(!processHasEnded(firstSleep), "the first attempt's command should run on while its worker is stopped")

            kill(first.0.processIdentifier, SIGCONT)
            #expect(await eventually { processHasEnded(firstSleep) }, "the first worker did not stop its command")
            let firstResult = try await cli.stopWorker(first)
            if let second { _ = try await cli.stopWorker(second) }
            let shown = try await cli.run(["show", "last", "--queue", queue, "--json"])
            let document = try JSONSerialization.jsonObject(with: Data(shown.stdout.utf8)) as? [String: Any]
            let job = (document?["jobs"] as? [[String: Any]])?.first
            #expect(job?["status"] as? String == "succeeded" && job?["attempts"] as? Int == 2, "\(shown.stdout)\n\(firstResult.output)")
        }
    }

    /// The background sleeps the attempts started, in no order.
    private func starts(in cli: CLI) -> [Int32] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: cli.path("."))) ?? []
        return names.filter { $0.hasPrefix("started-") }.compactMap { name in
            cli.read(name).flatMap { $0.hasSuffix("\n") ? Int32($0.dropLast()) : nil }
        }
    }
    #endif
}
